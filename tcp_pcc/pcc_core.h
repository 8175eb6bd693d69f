/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PCC Allegro (Dong et al., NSDI '15) and PCC Vivace (Dong et al., NSDI
 * '18) without kernel dependencies: the monitor-interval bookkeeping of
 * Allegro's sec. 3.1, its utility functions of sec. 2.2 and 2.4 and its
 * starting / decision-making / rate-adjusting control of sec. 3.2, and
 * Vivace's utility and gradient ascent (its sec. 4).  Compiled into
 * tcp_pcc.ko, tests/unit/test_pcc_core.c and tests/model/pcc_flows.c.
 *
 * Rates are bytes per second in a u32 (so at most 4 GB/s, 34 Gbit/s, per
 * flow); utilities are s64 in bytes per second, Q16 (Vivace's in Mbit/s,
 * Q16).  Times are the low 32
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
/*
 * ... and at least PCC_MI_DEV_K RTT deviations, up to PCC_MI_DEV_MAX_US:
 * where the RTT noise is large against the RTT (a busy host, a VM) an MI
 * of two RTTs sees a gradient of noise alone.  The gradient floor,
 * PCC_VIV_NOISE_K deviations over half the MI, reaches its cap
 * PCC_VIV_NOISE_MAX (0.03) at 200 deviations: from there on noise can
 * pass the floor, and a longer MI is what shrinks its gradient.  The
 * bound binds where the RTT is under 91 deviations (Documentation/
 * tcp_pcc.rst, "A short, noisy path", "MIs long enough for the noise").
 */
#define PCC_MI_DEV_K		(2 * PCC_VIV_NOISE_K * FP_ONE / PCC_VIV_NOISE_MAX)
#define PCC_MI_DEV_MAX_US	100000U

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
	PCC_UTIL_VIVACE,	/* PCC Vivace (NSDI '18) utility and control */
};

/*
 * PCC Vivace (Dong et al., NSDI '18): u = X^0.9 - b X dRTT/dT - c X L with
 * X in Mbit/s, b = 900, c = 11.35 (its sec. 4.1), and gradient ascent: a
 * pair of trials at r(1 +- eps_max), then a step m theta gamma for the
 * utility gradient gamma and the confidence amplifier m, bounded by
 * omega r, omega = omega0 + k delta (its sec. 4.2).  b, c, eps and
 * omega0 are the paper's; theta is ours, and delta a quarter of the
 * paper's 0.1 (Documentation/tcp_pcc.rst).
 */
#define PCC_VIV_B_NUM		9		/* b = 900 per Mbit/s: 900 x 8 */
#define PCC_VIV_B_DEN		1250		/* / 10^6 = 9 / 1250 per byte/s */
#define PCC_VIV_C		743834		/* 11.35 in Q16 */
#define PCC_VIV_EXP		58982		/* 0.9 in Q16 */
/*
 * dRTT/dT below this is measurement noise, not a queue (Q16, 0.01, the
 * paper's; 0.02 let a lone flow fill the buffer, tcp_pcc.rst)
 */
#define PCC_VIV_GRAD_MIN	655
/*
 * Noise alone moves the mean RTT of half an MI by about the RTT samples'
 * mean deviation, so a rise of less than PCC_VIV_NOISE_K deviations over
 * half the MI is not charged either.  The floor this gives stays below
 * PCC_VIV_NOISE_MAX (Q16, 0.03): a trial eps_max (0.05) above capacity
 * grows the queue at 0.05 and must stay visible.  (Documentation/
 * tcp_pcc.rst, "RTT noise sets the gradient floor".)
 */
#define PCC_VIV_NOISE_K		3
#define PCC_VIV_NOISE_MAX	1966
/* theta: bytes/s of rate change per unit of gradient (1 Mbit/s) */
#define PCC_VIV_THETA		125000
#define PCC_VIV_AMP_MAX		16
#define PCC_VIV_OMEGA0		3277		/* 0.05 in Q16 */
#define PCC_VIV_DELTA		1638		/* 0.025 in Q16 */
/* k stops where omega reaches 0.5: no step more than halves the rate */
#define PCC_VIV_BOUND_MAX	18
/*
 * Beyond the paper, from the model (Documentation/tcp_pcc.rst):
 * - up to PCC_VIV_LOSS_SD sqrt(lost) of an MI's losses are chance, not
 *   a property of its rate (a 1 % random loss is a Poisson count of 1-2
 *   packets per MI at 20 Mbit/s);
 * - a round whose gradient points up may raise the rate by PCC_VIV_ADD
 *   x min(m, PCC_VIV_ADD_AMP) whatever omega r allows: an additive
 *   increase, which makes flows converge.  A queue or losses short of
 *   heavy do not deny it: behind a full buffer they are the other
 *   flows' as much as this one's;
 * - a trial that lost more than 1/PCC_VIV_HEAVY_LOSS of its packets
 *   beyond chance turns the step downwards: a full drop-tail queue shows
 *   no RTT gradient, and loss counts alone are too noisy to steer by;
 * - the starting state leaves at a probe that lost more than
 *   1/PCC_VIV_START_LOSS beyond chance, where X^0.9 - c X L would go on
 *   doubling up to 7 % loss.
 */
#define PCC_VIV_LOSS_SD		2
#define PCC_VIV_ADD		62500		/* 0.5 Mbit/s */
#define PCC_VIV_ADD_AMP		2
#define PCC_VIV_HEAVY_LOSS	20
#define PCC_VIV_START_LOSS	50
/*
 * A step down that the r(1 + eps) trial's RTT gradient g called for is
 * at most g x the rate, and at least PCC_VIV_DOWN_MIN of it.  That trial
 * grew the queue at g = X+ / C - 1, so the rate comes down by what it
 * overshot the capacity by (for flows sharing the queue, each by its part
 * of it), where the bound omega0 x rate would take 5 % whatever g was:
 * at 100 Mbit/s a trial 2 % over the capacity, or a gradient just above
 * the noise floor, cost 5 % of the link (Documentation/tcp_pcc.rst, "A
 * step down by the overshoot").
 */
#define PCC_VIV_DOWN_MIN	1311		/* 0.02 in Q16 */
/*
 * Behind a standing queue (pcc_mi_queued()) a step down is at least
 * PCC_VIV_QUEUE_MD of the rate.  Flows sharing a full drop-tail queue
 * see the same loss rate and no RTT gradient, so their utilities barely
 * tell a large flow from a small one; a step that is a share of the
 * rate (and the additive floor up) makes them converge.  A flow that
 * joined behind the queue has most of it in its minimum RTT, hence the
 * second test, by loss (Documentation/tcp_pcc.rst, "Converging behind a
 * standing queue").
 */
#define PCC_VIV_QUEUE_RTT	32768		/* 0.5 in Q16 */
/* ... and at least this much above it: less is a host's noise */
#define PCC_VIV_QUEUE_MIN_US	2000
#define PCC_VIV_QUEUE_LOSS	25
#define PCC_VIV_QUEUE_LOSS_RTT	8192		/* 0.125 in Q16 */
#define PCC_VIV_QUEUE_MD	9830		/* 0.15 in Q16 */

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
	u32 rtt_sum;		/* us, over rtt_cnt samples */
	u32 rtt_late;		/* us, the samples of its second half */
	u16 lost;		/* packets marked lost while it was open */
	u16 rtt_cnt;
	u16 late_cnt;		/* samples in rtt_late */
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
	s32 rtt_grad;		/* dRTT/dT within the MI, Q16; 0 unknown */
	u32 min_rtt_us;		/* the path's, from the caller; 0 unknown */
	u32 rtt_dev_us;		/* mean deviation of RTT samples; 0 unknown */
	u8 tag;
};

/* @rate bytes/s in Mbit/s, Q16 */
static inline u64 pcc_mbit(u32 rate)
{
	return div_u64((u64)rate << 19, USEC_PER_SEC);
}

/* The RTT gradient below which an MI's rise is noise (Q16) */
static inline s32 pcc_grad_floor(const struct pcc_result *r)
{
	u32 half = r->dur_us >> 1;
	u64 f;

	if (!half)
		return PCC_VIV_GRAD_MIN;
	f = div_u64(((u64)r->rtt_dev_us * PCC_VIV_NOISE_K) << FP_SHIFT, half);
	return (s32)clamp_t(u64, f, PCC_VIV_GRAD_MIN, PCC_VIV_NOISE_MAX);
}

/*
 * The rate Vivace's X stands for: the MI's own, unless the MI sent less
 * than half of it (a pacing timer that fires late, or the in-flight
 * cap), and then what it did send.  PCC-Uspace takes X from the packets
 * sent, always; here the MI's rate is kept otherwise, as a sender's
 * small shortfall is noise the two trials of a pair do not share.  A
 * rate the path never saw would otherwise win every pair.
 */
static inline u32 pcc_vivace_rate(const struct pcc_result *r, u32 mss)
{
	u64 bytes = (r->delivered + r->lost) * mss;

	/* no packet counted: the counts are unknown (pcc_ctl_result()) */
	if (!bytes || bytes > U64_MAX / (2 * USEC_PER_SEC) ||
	    bytes * 2 * USEC_PER_SEC >= (u64)r->rate * r->dur_us)
		return r->rate;
	return (u32)div_u64(bytes * USEC_PER_SEC, r->dur_us);
}

/* Vivace's X^0.9 - b X dRTT/dT of a completed MI, Mbit/s in Q16 */
static inline s64 pcc_vivace_gain(const struct pcc_result *r, u32 mss)
{
	u32 rate = pcc_vivace_rate(r, mss);
	u64 x = pcc_mbit(rate);
	s64 g = r->rtt_grad, u;

	if (!x)
		return 0;
	u = (s64)fp_exp(__fp_round_shr(fp_ln(x) * PCC_VIV_EXP, FP_SHIFT));
	/*
	 * Only a rising RTT is charged; a falling one earns nothing (as
	 * PCC-Uspace's Vivace): RTT noise and a draining queue would
	 * otherwise reward the lower trial, walking the rate down on a
	 * lossy path (tcp_pcc.rst, "a falling RTT earns nothing").
	 */
	if (g < pcc_grad_floor(r))
		g = 0;
	/* b X g from the rate in bytes/s: |rate g| 9 < 2^32 x 2^20 x 9 */
	return u - div64_s64((s64)rate * g * PCC_VIV_B_NUM,
			     PCC_VIV_B_DEN);
}

/**
 * pcc_vivace_utility() - PCC Vivace's utility of one completed MI.
 * @r: the MI's result
 * @mss: bytes per packet
 *
 * u = X^0.9 - b X dRTT/dT - c X L, X the MI's rate in Mbit/s
 * (pcc_vivace_rate()), so X L is the rate at which bytes were lost.  A
 * gradient below pcc_grad_floor() counts as none, and so do
 * PCC_VIV_LOSS_SD sqrt(lost) of the losses.
 *
 * Return: utility in Mbit/s, Q16.
 */
static inline s64 pcc_vivace_utility(const struct pcc_result *r, u32 mss)
{
	u64 lost = r->lost, sd = PCC_VIV_LOSS_SD * int_sqrt64(lost), loss;

	if (!r->dur_us)
		return 0;
	/* c X L = c x lost bytes x 8 / dur_us; lost < 2^16 keeps it in 64 bits */
	lost = lost > sd ? lost - sd : 0;
	loss = div_u64(lost * mss * 8 * PCC_VIV_C, r->dur_us);
	return pcc_vivace_gain(r, mss) - (s64)loss;
}

/* The utility the parameters ask for, of a completed MI */
static inline s64 pcc_mi_utility(const struct pcc_params *p,
				 const struct pcc_result *r, u32 mss)
{
	if (p->utility == PCC_UTIL_VIVACE)
		return pcc_vivace_utility(r, mss);
	return pcc_utility(p, r->delivered * mss, r->lost * mss, r->dur_us,
			   r->rtt_us, r->prev_rtt_us);
}

/*
 * Duration of an MI: max(10 packets at @rate, [1.7, 2.2] x @rtt_us,
 * PCC_MI_DEV_K x @rtt_dev_us up to PCC_MI_DEV_MAX_US).
 */
static inline u32 pcc_mi_duration(u32 rate, u32 mss, u32 rtt_us,
				  u32 rtt_dev_us, u32 rnd)
{
	u64 pkts = div_u64((u64)PCC_MI_MIN_PKTS * mss * USEC_PER_SEC,
			   rate ? rate : 1);
	u32 frac = PCC_MI_RTT_LO + (u32)(((u64)rnd * PCC_MI_RTT_SPAN) >> 32);
	u64 rtt = ((u64)rtt_us * frac) >> FP_SHIFT;
	u64 d = pkts > rtt ? pkts : rtt;
	u64 noise = min_t(u64, (u64)rtt_dev_us * PCC_MI_DEV_K,
			  PCC_MI_DEV_MAX_US);

	if (d < noise)
		d = noise;

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

static inline void pcc_mi_add(struct pcc_mi *mi, u32 sent, u32 acked,
			      u32 rtt_us)
{
	mi->delivered += acked;
	/* A prefix of the samples is enough for the mean; never overflow. */
	if (rtt_us && mi->rtt_cnt < U16_MAX && mi->rtt_sum + rtt_us >= rtt_us) {
		mi->rtt_sum += rtt_us;
		mi->rtt_cnt++;
		/* the late half's samples are a subset: no overflow either */
		if (sent - mi->start >= (mi->end - mi->start) >> 1) {
			mi->rtt_late += rtt_us;
			mi->late_cnt++;
		}
	}
}

/* Losses saturate: an MI that loses 65535 packets is past every cut-off. */
static inline void pcc_mi_lose(struct pcc_mi *mi, u32 lost)
{
	mi->lost = lost < (u32)(U16_MAX - mi->lost) ? mi->lost + lost : U16_MAX;
}

/* An ACK's deliveries and the losses it marked, for the MI of @sent */
static inline void pcc_mi_account(struct pcc_mi *mi, u32 sent, u32 acked,
				  u32 lost, u32 rtt_us)
{
	if (unlikely(lost))
		pcc_mi_lose(mi, lost);
	pcc_mi_add(mi, sent, acked, rtt_us);
}

/*
 * dRTT/dT: the mean RTT of the packets sent in the MI's second half less
 * that of its first half, over half its length (Q16).
 */
static inline s32 pcc_mi_rtt_grad(const struct pcc_mi *mi)
{
	u32 half = (mi->end - mi->start) >> 1, early_cnt;
	s64 d;

	early_cnt = mi->rtt_cnt - mi->late_cnt;
	if (!half || !mi->late_cnt || !early_cnt)
		return 0;
	d = (s64)(mi->rtt_late / mi->late_cnt) -
	    (s64)((mi->rtt_sum - mi->rtt_late) / early_cnt);
	d = div64_s64(d * (s64)FP_ONE, (s64)half);
	return (s32)clamp_t(s64, d, -(s64)FP_ONE * 16, (s64)FP_ONE * 16);
}

static inline void pcc_mi_result(struct pcc_mon *m, const struct pcc_mi *mi,
				 u32 rtt_dev_us, struct pcc_result *r)
{
	r->delivered = mi->delivered;
	r->lost = mi->lost;
	r->dur_us = mi->end - mi->start;
	r->rtt_us = mi->rtt_cnt ? mi->rtt_sum / mi->rtt_cnt : 0;
	r->prev_rtt_us = m->last_rtt_us;
	r->rate = mi->rate;
	r->rtt_grad = pcc_mi_rtt_grad(mi);
	r->rtt_dev_us = rtt_dev_us;
	r->tag = mi->tag;
	r->min_rtt_us = 0;
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
 * @rtt_dev_us: mean deviation of the sender's RTT samples now, 0 if unknown
 * @r: filled in when the older MI completes
 *
 * Deliveries go by send time, and so do losses: SACK and RACK mark a
 * packet lost once a few packets sent after it are (S)ACKed, so the
 * packets this ACK marks were sent just before @sent.  Losses of an ACK
 * that delivered nothing go to the older MI while it is open.  The older
 * MI completes once a packet sent settle_us after its end is (S)ACKed,
 * by when its own losses are marked.  Packets sent before the older MI
 * or in the gap left by a re-alignment belong to no MI and are ignored.
 *
 * Return: true when @r holds a completed MI.
 */
static inline bool pcc_mon_on_ack(struct pcc_mon *m, u32 sent, u32 acked,
				  u32 lost, u32 rtt_us, u32 rtt_dev_us,
				  struct pcc_result *r)
{
	struct pcc_mi *old = &m->old, *cur = &m->cur;

	if (!acked) {
		if (lost)
			pcc_mi_lose(old->open ? old : cur, lost);
		return false;
	}
	if (old->open && before(sent, old->end)) {
		if (!before(sent, old->start))
			pcc_mi_account(old, sent, acked, lost, rtt_us);
		return false;
	}
	if (!before(sent, cur->start))
		pcc_mi_account(cur, sent, acked, lost, rtt_us);
	if (!old->open || before(sent, old->end + m->settle_us))
		return false;
	old->open = 0;
	pcc_mi_result(m, old, rtt_dev_us, r);
	return true;
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

/*
 * Vivace reuses some fields of Allegro's decision making: u_pair sums
 * u(+) - u(-) of the round, votes holds PCC_VIV_MET_* of its trials, step
 * is the amplifier m, dir the direction of the last step; in starting,
 * results is set while a probe is out.
 */
struct pcc_ctl {
	union {
		s64 u_prev;	/* trend: utility of the last accepted result */
		s64 u_pair;	/* decision: first result of the current pair */
	};
	u32 rate;		/* rate of the last MI started */
	u32 base;		/* rate of the last accepted result; r of the RCTs */
	u16 eps;		/* decision: current granularity, Q16 */
	u8 state : 2;		/* enum pcc_state */
	u8 have_prev : 1;	/* u_prev is valid */
	u8 retry : 2;		/* starting: enum pcc_retry */
	u8 launched;		/* MIs started in this state (trials: 0..4) */
	u8 results;		/* decision: trial results received */
	u8 order;		/* decision: bit p set: pair p tries r(1+eps) first */
	u8 votes;		/* decision: bit p: + won pair p; bit p+2: - won */
	u8 step;		/* adjusting: n */
	s8 dir;			/* adjusting: +1 or -1 */
	u8 bound;		/* Vivace: k of the change bound omega */
	u16 grad_up;		/* Vivace: the r(1 + eps) trial's dRTT/dT, Q16 */
	u32 dlv_rate : 31;	/* cap: best delivery rate in this MI, 2 B/s */
	u32 dlv_fresh : 1;	/* cap: the next rate sample starts it over */
};

/* What a round of Vivace's trials met */
#define PCC_VIV_MET_HEAVY	1	/* loss past 1/PCC_VIV_HEAVY_LOSS */
#define PCC_VIV_MET_CAPPED	2	/* the in-flight cap held */
#define PCC_VIV_MET_QUEUE	4	/* a standing queue: pcc_mi_queued() */

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
	c->u_pair = 0;
}

/* Trials per round of decision making: Vivace runs one pair */
static inline u32 pcc_trials(const struct pcc_params *p)
{
	return p->utility == PCC_UTIL_VIVACE ? 2 : 4;
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
		if (p->utility == PCC_UTIL_VIVACE && c->results &&
		    c->retry != PCC_RETRY_WANTED) {
			/* Vivace: hold the last good rate until it is judged */
			r = c->base;
			*tag = PCC_TAG_NONE;
			break;
		}
		if (c->retry == PCC_RETRY_WANTED)
			c->retry = PCC_RETRY_SENT;
		else if (c->launched)
			r = (u64)(p->utility == PCC_UTIL_VIVACE ? c->base :
				  c->rate) * 2;
		if (p->utility == PCC_UTIL_VIVACE)
			c->results = 1;
		*tag = PCC_TAG_START;
		break;
	case PCC_DECISION:
		c->base = pcc_clamp_rate(c->base, lo, hi);
		if (c->launched < pcc_trials(p)) {
			r = pcc_scale(c->base,
				      pcc_trial_up(c, c->launched) ? 1 : -1,
				      p->utility == PCC_UTIL_VIVACE ?
				      p->eps_max : c->eps);
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
	c->dlv_fresh = 1;
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

/* Did the MI lose more than 1/@inv of its packets beyond chance? */
static inline bool pcc_mi_loss_past(const struct pcc_result *r, u32 inv)
{
	u64 sd = PCC_VIV_LOSS_SD * int_sqrt64(r->lost);

	return r->lost > sd && (r->lost - sd) * inv > r->delivered + r->lost;
}

/* Did an MI's mean RTT stand more than @above (Q16) over the path's minimum? */
static inline bool pcc_mi_rtt_above(const struct pcc_result *r, u32 above)
{
	return r->rtt_us && r->min_rtt_us &&
	       ((u64)r->rtt_us << FP_SHIFT) >
	       (u64)r->min_rtt_us * (FP_ONE + above);
}

/*
 * Did an MI stand behind a queue: its mean RTT PCC_VIV_QUEUE_RTT above
 * the path's minimum, or a loss past 1/PCC_VIV_QUEUE_LOSS beyond chance
 * with the RTT PCC_VIV_QUEUE_LOSS_RTT above it (a buffer overflowing,
 * not random loss)?  Either way by PCC_VIV_QUEUE_MIN_US at least.
 */
static inline bool pcc_mi_queued(const struct pcc_result *r)
{
	if (r->rtt_us < (u64)r->min_rtt_us + PCC_VIV_QUEUE_MIN_US)
		return false;
	if (pcc_mi_rtt_above(r, PCC_VIV_QUEUE_RTT))
		return true;
	return pcc_mi_rtt_above(r, PCC_VIV_QUEUE_LOSS_RTT) &&
	       pcc_mi_loss_past(r, PCC_VIV_QUEUE_LOSS);
}

/*
 * The congestion test of the mode: for Vivace, a loss past
 * 1/PCC_VIV_START_LOSS, which ends its starting state at once.
 */
static inline bool pcc_result_congested(const struct pcc_params *p,
					const struct pcc_result *r)
{
	return p->utility == PCC_UTIL_VIVACE ?
	       pcc_mi_loss_past(r, PCC_VIV_START_LOSS) : pcc_mi_congested(r);
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
	/* Vivace: a probe past its loss bound ends starting at once */
	if ((c->have_prev && u < c->u_prev) ||
	    (p->utility == PCC_UTIL_VIVACE && congested)) {
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
	if (p->utility == PCC_UTIL_VIVACE && c->state == PCC_STARTING) {
		/* the probe was good: the next one, at twice its rate, now */
		c->results = 0;
		return true;
	}
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

/*
 * In-flight cap (ours; issue 28's changing link).  A capacity that falls
 * tenfold fills a 1-BDP buffer within tens of ms, while an MI lasts
 * 1.7-2.2 RTTs and its ACKs take one more: the rate comes down seconds
 * late (the RTT stretches the MIs) and the buffer stays full meanwhile.
 * So while the path delivers less than the MI's rate / 2.5 (the best
 * rate sample since the MI began), in flight is held to 1.25 x that
 * delivery rate x the min RTT.  The queue drains within an RTT or two;
 * as the capacity comes back the delivery rate, and with it the cap,
 * grows by 1.25 per RTT.  Both trials of a round under the cap send
 * what it lets through, so the round cannot judge the rate; it moves the
 * rate up by the bound instead, within PCC_CAP_RATE_MAX x the delivery
 * rate (pcc_ctl_vivace_result()).  So the cap lets go only when the
 * path delivers the rate / 2.5 again, not at the first rise, where a
 * rate PCC learned before the fall could be far above the new capacity.
 * Not while starting: a flow doubling its rate beside others meets
 * that ratio as it joins.  On a FIFO shared with other flows a flow's
 * delivery rate is its sending rate x the capacity over all arrivals,
 * below 1 / 2.5 of it only while arrivals exceed 2.5 x the capacity.
 * But a queue that is not ours does not drain under the cap: at an RTT
 * above 1.25 x the min RTT the capped flow delivers less than the
 * estimate, which then shrinks MI by MI.  A cap that comes down to the
 * minimum cwnd is therefore dropped, and the flow sends at its rate
 * again.  A sample is what was delivered since the newest packet acked
 * was sent, over that packet's RTT; an app-limited one neither lowers
 * the estimate nor starts one.
 */
#define PCC_CAP_RATIO_NUM	5	/* 2.5 */
#define PCC_CAP_RATIO_DEN	2
#define PCC_CAP_GAIN_NUM	5
#define PCC_CAP_GAIN_DEN	4
#define PCC_CAP_RATE_MAX	10	/* x the delivery rate, while capped */

/* Is the delivery-rate estimate at the MI's rate / 2.5 or above? */
static inline bool pcc_dlv_clear(const struct pcc_ctl *c)
{
	return (u64)c->dlv_rate * 2 * PCC_CAP_RATIO_NUM >=
	       (u64)c->rate * PCC_CAP_RATIO_DEN;
}

/* Does the in-flight cap hold? */
static inline bool pcc_ctl_capping(const struct pcc_ctl *c)
{
	return c->dlv_rate && c->state != PCC_STARTING && !pcc_dlv_clear(c);
}

/**
 * pcc_ctl_on_delivery() - A rate sample for the in-flight cap.
 * @c: controller
 * @bytes: bytes delivered over the sample (tcp_rate.c's)
 * @interval_us: its interval
 * @app_limited: the sender had less to send than it was allowed
 *
 * Return: true when pcc_cap_cwnd() may have changed.
 */
static inline bool pcc_ctl_on_delivery(struct pcc_ctl *c, u64 bytes,
				       u32 interval_us, bool app_limited)
{
	bool was = pcc_ctl_capping(c);
	u64 r;

	if (c->state == PCC_STARTING || !bytes || !interval_us ||
	    bytes > U64_MAX / USEC_PER_SEC)
		return false;
	if (app_limited && (c->dlv_fresh || !c->dlv_rate))
		return false;
	/*
	 * Within an MI the estimate matters only while it is below the
	 * rate / 2.5: past that, a better sample changes nothing, and is
	 * not divided.
	 */
	if (!c->dlv_fresh && (pcc_dlv_clear(c) ||
			      bytes * USEC_PER_SEC <=
			      (u64)c->dlv_rate * 2 * interval_us))
		return false;
	r = bytes * USEC_PER_SEC;
	r = div_u64(r, interval_us) >> 1;
	c->dlv_rate = r < (1U << 31) ? (u32)r : (1U << 31) - 1;
	c->dlv_fresh = 0;
	return was || pcc_ctl_capping(c);
}

/**
 * pcc_cap_cwnd() - The in-flight cap, when it holds.
 * @c: controller
 * @min_rtt_us: the path's min RTT
 * @mss: bytes per packet
 * @min_cwnd: the sender's minimum cwnd, packets
 *
 * Return: packets, or 0 when there is no cap, or when the cap has come
 * down to @min_cwnd.
 */
static inline u32 pcc_cap_cwnd(const struct pcc_ctl *c, u32 min_rtt_us,
			       u32 mss, u32 min_cwnd)
{
	u64 bdp;

	if (!pcc_ctl_capping(c) || !min_rtt_us || !mss)
		return 0;
	bdp = div_u64((u64)c->dlv_rate * 2 * min_rtt_us, USEC_PER_SEC);
	bdp = div_u64(bdp * PCC_CAP_GAIN_NUM, PCC_CAP_GAIN_DEN * mss);
	return bdp > min_cwnd ? (u32)min_t(u64, bdp, U32_MAX) : 0;
}

/*
 * Vivace (sec. 4.2 of its paper): the pair of trials at r(1 +- eps_max)
 * gives the utility gradient gamma = (u+ - u-) / (X+ - X-), and the rate
 * moves by m theta gamma, m = 1, 2, 3 .. while the direction holds,
 * bounded by omega r with omega = omega0 + k delta, k counting the
 * consecutive rounds that met the bound.  c->votes holds what the trials
 * met (PCC_VIV_MET_*); the additive floor, the heavy-loss turn and the
 * climb of a round under the in-flight cap and the share a standing
 * queue takes off are ours (PCC_VIV_ADD, PCC_VIV_HEAVY_LOSS,
 * PCC_CAP_RATE_MAX, PCC_VIV_QUEUE_MD).
 */
static inline bool pcc_ctl_vivace_result(struct pcc_ctl *c,
					 const struct pcc_params *p, u32 t,
					 s64 u, u32 rnd)
{
	u64 span, lim;
	s64 grad, dx;
	s8 dir;

	c->u_pair += pcc_trial_up(c, t) ? u : -u;
	if (++c->results < 2)
		return false;
	/* X+ - X- = 2 eps X, Mbit/s in Q16 */
	span = (pcc_mbit(c->base) * p->eps_max) >> (FP_SHIFT - 1);
	grad = clamp_t(s64, c->u_pair, -(1LL << 46), 1LL << 46);
	grad = span ? div64_s64(grad * (s64)FP_ONE, (s64)span) : 0;
	grad = clamp_t(s64, grad, -(1LL << 31), 1LL << 31);
	if ((c->votes & PCC_VIV_MET_HEAVY) && grad > 0)
		grad = -grad;
	/* the cap, not the rate, set what the trials sent: see the cap */
	if (c->votes & PCC_VIV_MET_CAPPED)
		grad = 1LL << 31;
	dir = grad < 0 ? -1 : 1;
	if (dir != c->dir) {
		c->step = 0;
		c->bound = 0;
	}
	if (c->step < PCC_VIV_AMP_MAX)
		c->step++;
	c->dir = dir;
	dx = __fp_round_shr(grad * c->step * PCC_VIV_THETA, FP_SHIFT);
	lim = ((u64)c->base * (PCC_VIV_OMEGA0 + (u32)c->bound * PCC_VIV_DELTA))
	      >> FP_SHIFT;
	if (dx > 0)
		lim = max_t(u64, lim, (u64)PCC_VIV_ADD *
			    min_t(u32, c->step, PCC_VIV_ADD_AMP));
	if ((u64)(dx < 0 ? -dx : dx) > lim) {
		dx = dx < 0 ? -(s64)lim : (s64)lim;
		if (c->bound < PCC_VIV_BOUND_MAX)
			c->bound++;
	} else {
		c->bound = 0;
	}
	if (dx < 0 && c->grad_up && !(c->votes & PCC_VIV_MET_HEAVY)) {
		lim = ((u64)c->base * max_t(u32, c->grad_up, PCC_VIV_DOWN_MIN))
		      >> FP_SHIFT;
		if ((u64)-dx > lim)
			dx = -(s64)lim;
	}
	if (dx < 0 && (c->votes & PCC_VIV_MET_QUEUE))
		dx = min_t(s64, dx, -(s64)(((u64)c->base * PCC_VIV_QUEUE_MD) >>
					   FP_SHIFT));
	c->base = pcc_clamp_rate((u64)max_t(s64, (s64)c->base + dx, 1), 1,
				 PCC_RATE_MAX);
	if ((c->votes & PCC_VIV_MET_CAPPED) && c->dlv_rate &&
	    c->base > (u64)c->dlv_rate * 2 * PCC_CAP_RATE_MAX)
		c->base = (u32)c->dlv_rate * 2 * PCC_CAP_RATE_MAX;
	pcc_ctl_decide_again(c, rnd);
	return true;
}

/*
 * Keep the r(1 + eps) trial's dRTT/dT for pcc_ctl_vivace_result(); 0
 * when it is under the noise floor, which the utility did not charge.
 */
static inline void pcc_ctl_note_grad(struct pcc_ctl *c,
				     const struct pcc_result *r)
{
	if (!c->results)
		c->grad_up = 0;
	if (pcc_trial_up(c, r->tag - PCC_TAG_TRIAL0) &&
	    r->rtt_grad >= pcc_grad_floor(r))
		c->grad_up = (u16)min_t(s32, r->rtt_grad, U16_MAX);
}

/**
 * pcc_ctl_on_result() - Feed the utility of a completed MI.
 * @c: controller
 * @p: parameters
 * @r: the MI's result
 * @u: its utility
 * @congested: it clearly met congestion (pcc_result_congested())
 * @rnd: random bits, for the order of the next trials
 *
 * Results of MIs the current state did not start are ignored.
 *
 * Return: true when the rate changes now: the caller re-aligns the
 * current MI and starts it with pcc_ctl_next().
 */
static inline bool pcc_ctl_on_result(struct pcc_ctl *c,
				     const struct pcc_params *p,
				     const struct pcc_result *r, s64 u,
				     bool congested, u32 rnd)
{
	u8 tag = r->tag;

	switch (c->state) {
	case PCC_STARTING:
	case PCC_ADJUSTING:
		if (tag != (c->state == PCC_STARTING ? PCC_TAG_START :
			    PCC_TAG_ADJUST))
			return false;
		return pcc_ctl_trend_result(c, p, r->rate, u, congested, rnd);
	case PCC_DECISION:
		if (tag < PCC_TAG_TRIAL0 || tag >= PCC_TAG_TRIAL0 + pcc_trials(p))
			return false;
		if (p->utility == PCC_UTIL_VIVACE) {
			if (pcc_mi_loss_past(r, PCC_VIV_HEAVY_LOSS))
				c->votes |= PCC_VIV_MET_HEAVY;
			if (pcc_ctl_capping(c))
				c->votes |= PCC_VIV_MET_CAPPED;
			if (pcc_mi_queued(r))
				c->votes |= PCC_VIV_MET_QUEUE;
			pcc_ctl_note_grad(c, r);
			return pcc_ctl_vivace_result(c, p, tag - PCC_TAG_TRIAL0,
						     u, rnd);
		}
		return pcc_ctl_trial_result(c, p, tag - PCC_TAG_TRIAL0, u, rnd);
	}
	return false;
}

/*
 * pcc_ctl_on_result() for a caller that has only the tag and rate of the
 * MI: Vivace then sees no loss and no RTT gradient.
 */
static inline bool pcc_ctl_result(struct pcc_ctl *c, const struct pcc_params *p,
				  u8 tag, u32 rate, s64 u, bool congested,
				  u32 rnd)
{
	struct pcc_result r = { .tag = tag, .rate = rate };

	return pcc_ctl_on_result(c, p, &r, u, congested, rnd);
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
	c->dlv_rate = 0;
	c->retry = PCC_RETRY_NONE;
	c->rate = c->base;
	switch (c->state) {
	case PCC_STARTING:
		c->launched = 0;
		c->results = 0;
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
 * pcc_mon_paused() - Did the sender pause long enough to void the open MI?
 * @m: monitor
 * @pause_us: time since the last send, at least
 *
 * For a send with nothing in flight.  A paced flow whose gap between
 * packets exceeds the RTT (a low rate on a short path) empties the pipe
 * before every send: that is the rate the MI asked for, not idling, and
 * dropping the MIs each time would leave the controller measuring
 * nothing (Documentation/tcp_pcc.rst, "A short, noisy path").  A pause
 * as long as the MI being sent is idling.
 *
 * Return: true when the caller must drop the MIs (pcc_on_idle_restart()).
 */
static inline bool pcc_mon_paused(const struct pcc_mon *m, u32 pause_us)
{
	return !m->cur.open || pause_us >= m->cur.end - m->cur.start;
}

/**
 * pcc_on_idle_restart() - Restart measuring after the sender was idle.
 * @c: controller
 * @m: monitor
 * @p: parameters
 * @rnd: random bits, for the order of the next trials
 *
 * For a send after a pause (CA_EVENT_TX_START and pcc_mon_paused()), or
 * when pcc_mon_stale() says so.  Drops the MIs in flight, which measured the
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
