/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PCC Allegro (Dong et al., NSDI '15) without kernel dependencies: the
 * monitor-interval bookkeeping of sec. 3.1, the utility functions of sec.
 * 2.2 and 2.4, and the starting / decision-making / rate-adjusting control
 * of sec. 3.2.  Compiled into tcp_pcc.ko, tests/unit/test_pcc_core.c and
 * tests/model/pcc_flows.c.
 *
 * Rates are bytes per second in a u32 (so at most 4 GB/s, 34 Gbit/s, per
 * flow); utilities are s64 in bytes per second, Q16.  Times are the low 32
 * bits of the microsecond TCP clock, compared with before() as sequence
 * numbers are, which is exact within 2^31 us (35.8 min).  No MI stays open
 * that long: the caller drops the MIs with pcc_on_idle_restart() on a send
 * after idle and whenever pcc_mon_stale(), checked on every ACK, says so.
 * So no idle period, however long, leaves an MI waiting for the clock to
 * wrap.
 */
#ifndef _PCC_CORE_H
#define _PCC_CORE_H

#ifdef __KERNEL__
#include <linux/math.h>
#include <linux/time64.h>
#include <net/tcp.h>
#endif

#include "cc_fixedpoint.h"

#define PCC_RATE_MAX		U32_MAX		/* bytes/s */

/* MI length: max(time for 10 packets, uniform [1.7, 2.2] x RTT), sec. 3.1 */
#define PCC_MI_MIN_PKTS		10
#define PCC_MI_RTT_LO		111411U		/* 1.7 in Q16 */
#define PCC_MI_RTT_SPAN		32768U		/* 0.5 in Q16 */

/* Loss-rate cut-off of the utility: Sigmoid_alpha(L - 0.05), sec. 2.2 */
#define PCC_LOSS_CUTOFF_INV	20		/* 1 / 0.05 */
/* Steepness of the latency term of sec. 2.4 (the paper leaves it open) */
#define PCC_LAT_BETA		10

/* Rate adjusting: n x eps_min never exceeds this (Q16, 0.5) per step. */
#define PCC_ADJUST_MAX_STEP	32768U

/* Longest MI; pcc_mon_stale()'s bound grows with it. */
#define PCC_MI_MAX_US		(60U * USEC_PER_SEC)
/*
 * An MI is stale once open longer than 1 s plus 8 planned MI lengths
 * (>= 13.6 RTT; results come about 1.5 RTT after an MI ends), and at
 * most 10 min, far within the 35.8 min of signed u32 comparisons.
 */
#define PCC_STALE_SLACK_US	USEC_PER_SEC
#define PCC_STALE_MIS		8
#define PCC_STALE_MAX_US	(600U * USEC_PER_SEC)

enum pcc_utility_kind {
	PCC_UTIL_LOSS,		/* sec. 2.2, the default */
	PCC_UTIL_LATENCY,	/* sec. 2.4, latency-aware */
};

struct pcc_params {
	u32 alpha;		/* sigmoid steepness, Q16 */
	u32 eps_min;		/* Q16 */
	u32 eps_max;		/* Q16 */
	u32 utility;		/* enum pcc_utility_kind */
};

/* ------------------------------------------------------------------ */
/* Utility                                                             */
/* ------------------------------------------------------------------ */

/* v x 10^6 / dur_us without overflow while the quotient fits in 2^63. */
static inline u64 pcc_per_sec(u64 v, u32 dur_us)
{
	u32 rem;
	u64 q = div_u64_rem(v, dur_us, &rem);

	return q * USEC_PER_SEC +
	       div_u64((u64)rem * USEC_PER_SEC + (dur_us >> 1), dur_us);
}

/* Sigmoid_k(num / den) = 1 / (1 + e^(k num / den)) in Q16; k in Q16. */
static inline u64 pcc_sigmoid_ratio(u32 k, s64 num, u64 den)
{
	u64 mag = num < 0 ? -(u64)num : (u64)num;
	s64 y;

	/* Keep k x |num| within 64 bits; the ratio is what matters. */
	while (den >= (1ULL << 26) || mag >= (1ULL << 31)) {
		den >>= 1;
		mag >>= 1;
	}
	if (!den)
		return num < 0 ? FP_ONE : 0;
	y = (s64)div64_u64((u64)k * mag + (den >> 1), den);
	return fp_sigmoid(num < 0 ? -y : y);
}

/**
 * pcc_utility() - Utility of one monitor interval.
 * @p: parameters (alpha, utility kind)
 * @delivered: bytes acknowledged or SACKed
 * @lost: bytes marked lost
 * @dur_us: length of the interval
 * @rtt_us: its average RTT (latency utility only; 0 = unknown)
 * @prev_rtt_us: average RTT of the interval before (latency utility only)
 *
 * Sec. 2.2: u = T x Sigmoid_alpha(L - 0.05) - x x L with T = x (1 - L), so
 * x x L is the rate at which bytes were lost: both terms are computed from
 * byte counts exactly and only the sigmoid is approximated.
 * Sec. 2.4: u = (T x S_alpha(L - 0.05) x S_beta(RTT_n / RTT_n-1 - 1) - x L)
 * / RTT_n, with RTT_n in milliseconds.  The paper prints the RTT ratio the
 * other way round, which would reward rising delay; this follows the text.
 *
 * Return: utility in bytes/s, Q16 (per millisecond of RTT for latency).
 */
static inline s64 pcc_utility(const struct pcc_params *p, u64 delivered,
			      u64 lost, u32 dur_us, u32 rtt_us,
			      u32 prev_rtt_us)
{
	u64 total = delivered + lost, gain, pain, s;
	s64 u;

	if (!dur_us || !total)
		return 0;

	s = pcc_sigmoid_ratio(p->alpha,
			      (s64)(lost * PCC_LOSS_CUTOFF_INV) - (s64)total,
			      total * PCC_LOSS_CUTOFF_INV);
	if (p->utility == PCC_UTIL_LATENCY && rtt_us && prev_rtt_us)
		s = (s * pcc_sigmoid_ratio(PCC_LAT_BETA << FP_SHIFT,
					   (s64)rtt_us - (s64)prev_rtt_us,
					   prev_rtt_us) + (FP_ONE >> 1)) >> FP_SHIFT;

	gain = pcc_per_sec(delivered * s, dur_us);
	pain = pcc_per_sec(lost << FP_SHIFT, dur_us);
	u = (s64)gain - (s64)pain;

	if (p->utility == PCC_UTIL_LATENCY && rtt_us) {
		u64 mag = div64_u64((u < 0 ? -(u64)u : (u64)u) * USEC_PER_MSEC,
				    rtt_us);

		u = u < 0 ? -(s64)mag : (s64)mag;
	}
	return u;
}

/* ------------------------------------------------------------------ */
/* Monitor intervals                                                   */
/* ------------------------------------------------------------------ */

/* What an MI was for: tells the controller how to read its utility. */
enum pcc_tag {
	PCC_TAG_NONE,		/* rate held while trials are measured */
	PCC_TAG_START,
	PCC_TAG_TRIAL0,		/* .. PCC_TAG_TRIAL0 + 3 */
	PCC_TAG_ADJUST = PCC_TAG_TRIAL0 + 4,
};

struct pcc_mi {
	u32 start;		/* send time of the interval, us */
	u32 end;		/* planned end while current, actual once closed */
	u32 rate;		/* bytes/s it was sent at */
	u32 delivered;		/* packets (S)ACKed that were sent in it */
	u32 lost;		/* packets marked lost while it was open */
	u32 rtt_sum;		/* us, over rtt_cnt samples */
	u16 rtt_cnt;
	u8 tag;			/* enum pcc_tag */
	u8 open;		/* results not complete yet, not dropped */
};

/*
 * Two intervals are enough: an MI lasts at least 1.7 RTT, so by the time
 * the current one ends the ACKs of the one before it are back, and the
 * current one is stretched when they are not.  When a result changes the
 * rate, the current MI restarts at the new rate (sec. 3.1 "re-align").
 */
struct pcc_mon {
	struct pcc_mi old;	/* closed for sending, waiting for ACKs */
	struct pcc_mi cur;	/* being sent */
	u32 settle_us;		/* wait after old.end for late loss marks */
	u32 last_rtt_us;	/* average RTT of the last completed MI */
};

struct pcc_result {
	u64 delivered;		/* packets */
	u64 lost;		/* packets */
	u32 dur_us;
	u32 rtt_us;		/* average; 0 when no sample */
	u32 prev_rtt_us;
	u32 rate;
	u8 tag;
};

/* Duration of an MI: max(10 packets at @rate, [1.7, 2.2] x @rtt_us). */
static inline u32 pcc_mi_duration(u32 rate, u32 mss, u32 rtt_us, u32 rnd)
{
	u64 pkts = div_u64((u64)PCC_MI_MIN_PKTS * mss * USEC_PER_SEC,
			   rate ? rate : 1);
	u32 frac = PCC_MI_RTT_LO + (u32)(((u64)rnd * PCC_MI_RTT_SPAN) >> 32);
	u64 rtt = ((u64)rtt_us * frac) >> FP_SHIFT;
	u64 d = pkts > rtt ? pkts : rtt;

	if (d > PCC_MI_MAX_US)
		d = PCC_MI_MAX_US;
	return d ? (u32)d : 1;
}

static inline void pcc_mi_begin(struct pcc_mi *mi, u32 now, u32 dur,
				u32 rate, u8 tag)
{
	*mi = (struct pcc_mi){ .start = now, .end = now + dur, .rate = rate,
			       .tag = tag, .open = 1 };
}

static inline void pcc_mon_init(struct pcc_mon *m, u32 now, u32 dur,
				u32 rate, u8 tag)
{
	*m = (struct pcc_mon){};
	pcc_mi_begin(&m->cur, now, dur, rate, tag);
}

static inline void pcc_mi_add(struct pcc_mi *mi, u32 acked, u32 rtt_us)
{
	mi->delivered += acked;
	/* A prefix of the samples is enough for the mean; never overflow. */
	if (rtt_us && mi->rtt_cnt < U16_MAX && mi->rtt_sum + rtt_us >= rtt_us) {
		mi->rtt_sum += rtt_us;
		mi->rtt_cnt++;
	}
}

static inline void pcc_mi_result(struct pcc_mon *m, const struct pcc_mi *mi,
				 struct pcc_result *r)
{
	r->delivered = mi->delivered;
	r->lost = mi->lost;
	r->dur_us = mi->end - mi->start;
	r->rtt_us = mi->rtt_cnt ? mi->rtt_sum / mi->rtt_cnt : 0;
	r->prev_rtt_us = m->last_rtt_us;
	r->rate = mi->rate;
	r->tag = mi->tag;
	if (r->rtt_us)
		m->last_rtt_us = r->rtt_us;
}

/**
 * pcc_mon_on_ack() - Account one ACK to the MI its packets were sent in.
 * @m: monitor
 * @sent: send time of the newest packet this ACK delivered
 * @acked: packets newly (S)ACKed (0: @sent is not meaningful)
 * @lost: packets newly marked lost
 * @rtt_us: RTT sample of the ACK, 0 if none
 * @r: filled in when the older MI completes
 *
 * Deliveries go by send time.  Losses are marked a little after the
 * packets they concern, so while the older MI is open they are its; it
 * completes once a packet sent settle_us after its end is (S)ACKed.
 * Packets sent before the older MI or in the gap left by a re-alignment
 * belong to no MI and are ignored.
 *
 * Return: true when @r holds a completed MI.
 */
static inline bool pcc_mon_on_ack(struct pcc_mon *m, u32 sent, u32 acked,
				  u32 lost, u32 rtt_us, struct pcc_result *r)
{
	struct pcc_mi *old = &m->old;

	if (old->open) {
		old->lost += lost;
		if (!acked)
			return false;
		if (before(sent, old->end)) {
			if (!before(sent, old->start))
				pcc_mi_add(old, acked, rtt_us);
			return false;
		}
		if (!before(sent, m->cur.start))
			pcc_mi_add(&m->cur, acked, rtt_us);
		if (before(sent, old->end + m->settle_us))
			return false;
		old->open = 0;
		pcc_mi_result(m, old, r);
		return true;
	}
	m->cur.lost += lost;
	if (acked && !before(sent, m->cur.start))
		pcc_mi_add(&m->cur, acked, rtt_us);
	return false;
}

/* Time to start the next MI (or the first after a drop), and is there room? */
static inline bool pcc_mon_due(const struct pcc_mon *m, u32 now)
{
	return (!m->cur.open || !before(now, m->cur.end)) && !m->old.open;
}

/**
 * pcc_mon_stale() - Has the current MI been open too long to measure?
 * @m: monitor
 * @now: current time, us
 *
 * The current MI runs past its planned end only while the older one waits
 * for its ACKs, about an RTT.  Open much longer, the sender stalled or was
 * idle and the MIs measured that, not the path.  The older MI ended when
 * the current one started, so bounding the current one bounds both.  The
 * age is an unsigned difference, right for any wait below 2^32 us
 * (71.6 min) where a signed one turns negative at 35.8 min; a wait that
 * ends within the bound after a whole number of wraps looks short, and
 * the MI then just ends late.  Call on every ACK, before the others.
 *
 * Return: true when the caller must drop the MIs (pcc_on_idle_restart()).
 */
static inline bool pcc_mon_stale(const struct pcc_mon *m, u32 now)
{
	u32 limit = PCC_STALE_MAX_US;

	if (!m->cur.open)
		return false;
	/* planned length x PCC_STALE_MIS, without a division or overflow */
	if (m->cur.end - m->cur.start <
	    (PCC_STALE_MAX_US - PCC_STALE_SLACK_US) / PCC_STALE_MIS)
		limit = PCC_STALE_SLACK_US +
			(m->cur.end - m->cur.start) * PCC_STALE_MIS;
	return now - m->cur.start > limit;
}

/*
 * Forget the MIs in flight, without a result, and the last MI's RTT: they
 * describe the path before a pause.  pcc_mon_due() is then true, and the
 * next MI starts from scratch.
 */
static inline void pcc_mon_drop(struct pcc_mon *m)
{
	m->old.open = 0;
	m->cur.open = 0;
	m->last_rtt_us = 0;
}

/* Close the current MI at @now and start the next one. */
static inline void pcc_mon_next(struct pcc_mon *m, u32 now, u32 dur,
				u32 rate, u8 tag, u32 settle_us)
{
	m->old = m->cur;
	m->old.end = now;
	m->settle_us = settle_us;
	pcc_mi_begin(&m->cur, now, dur, rate, tag);
}

/* The rate changed: restart the current MI now (sec. 3.1). */
static inline void pcc_mon_realign(struct pcc_mon *m, u32 now, u32 dur,
				   u32 rate, u8 tag)
{
	pcc_mi_begin(&m->cur, now, dur, rate, tag);
}

/* ------------------------------------------------------------------ */
/* Control (sec. 3.2)                                                  */
/* ------------------------------------------------------------------ */

enum pcc_state {
	PCC_STARTING = 1,
	PCC_DECISION,
	PCC_ADJUSTING,
};

struct pcc_ctl {
	s64 u_prev;		/* utility of the last accepted result */
	s64 u_pair;		/* decision: first result of the current pair */
	u32 rate;		/* rate of the last MI started */
	u32 base;		/* rate of the last accepted result; r of the RCTs */
	u16 eps;		/* decision: current granularity, Q16 */
	u8 state;		/* enum pcc_state */
	u8 have_prev;		/* u_prev is valid */
	u8 launched;		/* MIs started in this state (trials: 0..4) */
	u8 results;		/* decision: trial results received */
	u8 order;		/* decision: bit p set: pair p tries r(1+eps) first */
	u8 votes;		/* decision: bit p: + won pair p; bit p+2: - won */
	u8 step;		/* adjusting: n */
	s8 dir;			/* adjusting: +1 or -1 */
	u8 retry;		/* starting: enum pcc_retry */
};

/*
 * Starting: a fall in utility is only believed when an MI at the same rate
 * shows it again, unless the MI clearly met congestion.
 * An MI of the first doublings holds 17-90 packets, so one random loss
 * puts it past 5 % (Documentation/tcp_pcc.rst).
 */
enum pcc_retry {
	PCC_RETRY_NONE,
	PCC_RETRY_WANTED,	/* the next MI repeats c->rate */
	PCC_RETRY_SENT,		/* its result decides */
};

static inline u32 pcc_clamp_rate(u64 rate, u32 lo, u32 hi)
{
	if (rate < lo)
		return lo;
	return rate > hi ? hi : (u32)rate;
}

/* rate x (1 + sign x frac), frac in Q16 below 1 */
static inline u64 pcc_scale(u32 rate, int sign, u32 frac)
{
	u32 f = sign > 0 ? FP_ONE + frac : FP_ONE - frac;

	return ((u64)rate * f + (FP_ONE >> 1)) >> FP_SHIFT;
}

static inline void pcc_ctl_init(struct pcc_ctl *c, const struct pcc_params *p,
				u32 rate)
{
	*c = (struct pcc_ctl){ .rate = rate, .base = rate,
			       .eps = (u16)p->eps_min,
			       .state = PCC_STARTING };
}

static inline void pcc_ctl_decide_again(struct pcc_ctl *c, u32 rnd)
{
	c->state = PCC_DECISION;
	c->launched = 0;
	c->results = 0;
	c->votes = 0;
	c->order = rnd & 3;
	c->rate = c->base;
}

/* Is trial @t (0..3) the r(1 + eps) one of its pair? */
static inline bool pcc_trial_up(const struct pcc_ctl *c, u32 t)
{
	bool up_first = c->order & (1U << (t >> 1));

	return (t & 1) ? !up_first : up_first;
}

/**
 * pcc_ctl_next() - Rate and purpose of the MI about to start.
 * @c: controller
 * @p: parameters
 * @lo: minimum rate, bytes/s
 * @hi: maximum rate, bytes/s
 * @tag: set to the MI's enum pcc_tag
 *
 * Return: the MI's rate in bytes/s.
 */
static inline u32 pcc_ctl_next(struct pcc_ctl *c, const struct pcc_params *p,
			       u32 lo, u32 hi, u8 *tag)
{
	u64 r = c->rate;

	switch (c->state) {
	case PCC_STARTING:
		if (c->retry == PCC_RETRY_WANTED)
			c->retry = PCC_RETRY_SENT;
		else if (c->launched)
			r = (u64)c->rate * 2;
		*tag = PCC_TAG_START;
		break;
	case PCC_DECISION:
		c->base = pcc_clamp_rate(c->base, lo, hi);
		if (c->launched < 4) {
			r = pcc_scale(c->base,
				      pcc_trial_up(c, c->launched) ? 1 : -1,
				      c->eps);
			*tag = PCC_TAG_TRIAL0 + c->launched;
		} else {
			r = c->base;
			*tag = PCC_TAG_NONE;
		}
		break;
	default:
		/* r_n = r_n-1 (1 + n eps_min dir), from r_0 on */
		if (c->launched) {
			u32 step;

			if (c->step < U8_MAX)
				c->step++;
			step = (u32)c->step * p->eps_min;
			if (step > PCC_ADJUST_MAX_STEP)
				step = PCC_ADJUST_MAX_STEP;
			r = pcc_scale(c->rate, c->dir, step);
		}
		*tag = PCC_TAG_ADJUST;
		break;
	}
	if (c->launched < U8_MAX)
		c->launched++;
	c->rate = pcc_clamp_rate(r, lo, hi);
	return c->rate;
}

/*
 * Did an MI clearly meet congestion?  Its losses are past the utility's
 * 5 % cut-off by more than chance gives at 5 % (three standard deviations
 * of a Poisson count of n/20: lost > n/20 + 3 sqrt(n/20), that is
 * 20 lost > n + sqrt(180 n)), or past 5 % while its mean RTT rose by more
 * than 1/8 over the MI before (a queue built).  The RTT alone is not
 * enough: a virtual machine's own scheduling stalls move it that much.
 */
static inline bool pcc_mi_congested(const struct pcc_result *r)
{
	u64 n = r->delivered + r->lost, past = r->lost * PCC_LOSS_CUTOFF_INV;

	if (past > n + int_sqrt64(n * 180))
		return true;
	return past > n && r->rtt_us && r->prev_rtt_us &&
	       r->rtt_us > r->prev_rtt_us + (r->prev_rtt_us >> 3);
}

/*
 * Starting or rate adjusting: keep going while the utility does not fall.
 * A fall sends the controller back to the last rate that did better, into
 * decision making; starting first measures the fallen rate once more
 * unless the MI clearly met congestion.
 */
static inline bool pcc_ctl_trend_result(struct pcc_ctl *c,
					const struct pcc_params *p, u32 rate,
					s64 u, bool congested, u32 rnd)
{
	if (c->have_prev && u < c->u_prev) {
		if (c->state == PCC_STARTING && !congested &&
		    c->retry == PCC_RETRY_NONE) {
			/* Measure this rate again before leaving. */
			c->retry = PCC_RETRY_WANTED;
			c->rate = rate;
			return true;
		}
		/* Back to the last rate that did better, then RCTs. */
		c->retry = PCC_RETRY_NONE;
		c->eps = (u16)p->eps_min;
		pcc_ctl_decide_again(c, rnd);
		return true;
	}
	c->retry = PCC_RETRY_NONE;
	c->u_prev = u;
	c->have_prev = 1;
	c->base = rate;
	return false;
}

/*
 * Decision making: trial @t (0..3) of the two pairs of randomised
 * controlled trials.  Both pairs agreeing on a direction moves the rate
 * that way and starts rate adjusting; otherwise the trials are repeated
 * with a larger eps.
 */
static inline bool pcc_ctl_trial_result(struct pcc_ctl *c,
					const struct pcc_params *p, u32 t,
					s64 u, u32 rnd)
{
	u32 pair = t >> 1;

	if (!(t & 1)) {
		c->u_pair = u;
	} else {
		s64 up = pcc_trial_up(c, t) ? u : c->u_pair;
		s64 down = pcc_trial_up(c, t) ? c->u_pair : u;

		if (up > down)
			c->votes |= 1U << pair;
		else if (down > up)
			c->votes |= 4U << pair;
	}
	if (++c->results < 4)
		return false;
	if (c->votes == 3 || c->votes == 12) {
		c->dir = c->votes == 3 ? 1 : -1;
		c->base = pcc_clamp_rate(pcc_scale(c->base, c->dir, c->eps),
					 1, PCC_RATE_MAX);
		c->rate = c->base;
		c->state = PCC_ADJUSTING;
		c->launched = 0;
		c->step = 0;
		c->have_prev = 0;
		c->eps = (u16)p->eps_min;
	} else {
		/* Inconclusive: larger experiments (sec. 3.2). */
		c->eps = c->eps + p->eps_min > p->eps_max ?
			 (u16)p->eps_max : (u16)(c->eps + p->eps_min);
		pcc_ctl_decide_again(c, rnd);
	}
	return true;
}

/**
 * pcc_ctl_result() - Feed the utility of a completed MI.
 * @c: controller
 * @p: parameters
 * @tag: the MI's tag
 * @rate: the rate it was sent at
 * @u: its utility
 * @congested: it clearly met congestion (pcc_mi_congested())
 * @rnd: random bits, for the order of the next trials
 *
 * Results of MIs the current state did not start are ignored.
 *
 * Return: true when the rate changes now: the caller re-aligns the
 * current MI and starts it with pcc_ctl_next().
 */
static inline bool pcc_ctl_result(struct pcc_ctl *c, const struct pcc_params *p,
				  u8 tag, u32 rate, s64 u, bool congested,
				  u32 rnd)
{
	switch (c->state) {
	case PCC_STARTING:
	case PCC_ADJUSTING:
		if (tag != (c->state == PCC_STARTING ? PCC_TAG_START :
			    PCC_TAG_ADJUST))
			return false;
		return pcc_ctl_trend_result(c, p, rate, u, congested, rnd);
	case PCC_DECISION:
		if (tag < PCC_TAG_TRIAL0 || tag >= PCC_TAG_TRIAL0 + 4)
			return false;
		return pcc_ctl_trial_result(c, p, tag - PCC_TAG_TRIAL0, u, rnd);
	}
	return false;
}

/* After an RTO: start over from half the last good rate. */
static inline void pcc_ctl_restart(struct pcc_ctl *c,
				   const struct pcc_params *p, u32 lo)
{
	u32 rate = c->base >> 1;

	pcc_ctl_init(c, p, rate > lo ? rate : lo);
}

/*
 * The MIs in flight were dropped (restart after idle).  The paper's sender
 * never pauses (sec. 3.1), so this is our rule: keep the rate learned so
 * far, the last accepted one (base), and redo the experiment that lost
 * its MIs.  Starting doubles again from base; decision making starts its
 * round over with the same eps; rate adjusting goes back to decision
 * making with eps_min, as its direction was judged before the pause.  A
 * utility from before the pause is no reference for what follows.
 */
static inline void pcc_ctl_idle(struct pcc_ctl *c, const struct pcc_params *p,
				u32 rnd)
{
	c->have_prev = 0;
	c->retry = PCC_RETRY_NONE;
	c->rate = c->base;
	switch (c->state) {
	case PCC_STARTING:
		c->launched = 0;
		break;
	case PCC_ADJUSTING:
		c->eps = (u16)p->eps_min;
		pcc_ctl_decide_again(c, rnd);
		break;
	case PCC_DECISION:
		pcc_ctl_decide_again(c, rnd);
		break;
	}
}

/**
 * pcc_on_idle_restart() - Restart measuring after the sender was idle.
 * @c: controller
 * @m: monitor
 * @p: parameters
 * @rnd: random bits, for the order of the next trials
 *
 * For a send with nothing in flight (CA_EVENT_TX_START), or when
 * pcc_mon_stale() says so.  Drops the MIs in flight, which measured the
 * pause, and keeps the learned rate (pcc_ctl_idle()).  The caller then
 * starts an MI with pcc_ctl_next() and pcc_mon_next(), as pcc_mon_due()
 * asks.
 */
static inline void pcc_on_idle_restart(struct pcc_ctl *c, struct pcc_mon *m,
				       const struct pcc_params *p, u32 rnd)
{
	pcc_mon_drop(m);
	pcc_ctl_idle(c, p, rnd);
}

/**
 * pcc_on_rto() - Start over after a retransmission timeout.
 * @c: controller
 * @m: monitor
 * @p: parameters
 * @lo: minimum rate, bytes/s
 *
 * Whatever the MIs in flight measured is stale: drop them and restart
 * from half the last good rate (pcc_ctl_restart()).  The caller then
 * starts an MI with pcc_ctl_next() and pcc_mon_next().
 */
static inline void pcc_on_rto(struct pcc_ctl *c, struct pcc_mon *m,
			      const struct pcc_params *p, u32 lo)
{
	pcc_ctl_restart(c, p, lo);
	pcc_mon_drop(m);
}

#endif /* _PCC_CORE_H */
