/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * PAD (Zhu et al., "Robustifying Measurement-Based Congestion Control
 * Algorithms"): the rate estimator and the ACK buffer, as pure integer
 * code shared by the kernel shim (pad_shim.c) and the userspace unit
 * tests (tests/unit/test_pad_core.c).
 *
 * The kernel cannot hold ACKs back from the stack, so the ACK buffer is
 * virtual: it is a count of packets that were (S)ACKed but not yet shown
 * to the inner congestion control.  Each ACK the stack hands us is one
 * arrival; pad_on_ack() says how many packets the inner CCA sees as newly
 * delivered on it (acked) and what the rate sample's delivered count
 * becomes (less what is held beyond its recent average, but never less
 * than mu over the sample's interval).  Packets are never lost or
 * counted twice: over any run, the sum of acked shown equals the sum of
 * acked received minus what is held at the end.
 *
 * Units: times in microseconds (u32, wrap-safe differences), packet
 * counts as tp->delivered (u32, wrap-safe), rates in packets per
 * microsecond << PAD_RATE_SHIFT (u64), k in Q16.
 *
 * Rate estimator (Eq. 2): lambda = (ACK_now - ACK_prev) / (t_now - t_prev)
 * with t_prev about w RTTs ago.  ACK_* is the highest (S)ACKed sequence;
 * in packets that is tp->delivered, which counts SACKed packets as soon
 * as they are SACKed, so it is the same measure without sequence
 * wrap-around or MSS changes.  A ring of PAD_RING checkpoints (time,
 * delivered), one every w x srtt / PAD_RING, keeps "w RTTs ago" in a few
 * bytes; the oldest is between (PAD_RING - 1) / PAD_RING and one window
 * old.  lambda is known once the history spans half an srtt.
 *
 * ACK buffer (Eq. 1): a FIFO drained at mu = k x lambda.  It is a token
 * bucket: credit accrues at mu over the time between ACKs and is spent
 * on held packets first, then on the new ones; what is left over is kept
 * up to a depth of max(PAD_DEPTH_PKTS, mu x PAD_DEPTH_US).  A steady ACK
 * stream (and delayed or slightly bunched ACKs) passes untouched: passive
 * mode.  When ACKs arrive faster than the credit, the excess is held:
 * positive mode.  The first ACK that arrives on the steady schedule (at
 * least held + acked packets of credit since the last one) releases
 * everything.
 *
 * Pass-through (everything held is released, the sample untouched but for
 * the released packets), paper sec. 3.2 and 3.3:
 *  - no lambda yet, or no RTT;
 *  - the sender is probing: the sample's send rate, delivered over the
 *    send interval, is above mu;
 *  - loss recovery or CWR (SACK keeps lambda honest, the inner CCA's
 *    recovery is not delayed), and app-limited samples (lambda assumes a
 *    backlogged sender).
 * An RTO (and an idle restart) clears PAD's state but the RTT jitter:
 * pad_restart().
 *
 * Bound: no more than half an srtt of ACKs at mu is held; beyond it
 * packets pass, so a lambda that lags a rate increase cannot starve the
 * inner CCA's view for long.
 *
 * Receiver's clock (ours): the peer stamps every segment it sends with its
 * own clock (TSval, RFC 7323), so the ACKs carry when the receiver got
 * the data, free of the ACK path's jitter and batching.  Every rate
 * sample, probing or not, is bounded by the receiver's rate over the same
 * packets (pad_rx_bound()).  This is what lets BBR probe (a probe into
 * free capacity reaches the receiver faster too) while the ACK
 * compression of its probes no longer sets its bandwidth filter, which
 * the paper's pass-through of probing phases cannot tell apart.  Without
 * timestamps, or with a TSval clock that is neither ms nor us, samples
 * are bounded by the ACK buffer alone.
 *
 * RTT samples (ours; the paper reshapes the bandwidth samples only): a
 * min RTT filter keeps the lowest sample, and delay jitter pulls that
 * below the path's delay; BBR's cwnd bound, 2 x bw x min RTT, then holds
 * the flow below its share (Arun et al., SIGCOMM '22).  The jitter shows
 * as the difference between consecutive RTT samples, which a queue moves
 * by a packet time or two; the inner CCA sees every RTT sample raised by
 * lift x the mean of that difference beyond srtt / 2^PAD_JIT_FLOOR_SHIFT.
 * Below that, jitter is well within BBR's 2 x cwnd headroom, and a host's
 * own scheduling noise (0.7 ms in a TCG guest) changes nothing.
 */
#ifndef _PAD_CORE_H
#define _PAD_CORE_H

#ifdef __KERNEL__
#include <linux/minmax.h>
#include <linux/string.h>
#endif

#include "cc_fixedpoint.h"

#define PAD_RATE_SHIFT		24
/* checkpoints of the lambda window, a power of two */
#define PAD_RING_SHIFT		3
#define PAD_RING		BIT(PAD_RING_SHIFT)
/* smallest checkpoint spacing: tiny RTTs (loopback) still span time */
#define PAD_MIN_CP_US		50
/* bucket depth: a few packets, or 1 ms at mu, whichever is larger */
#define PAD_DEPTH_PKTS		4
#define PAD_DEPTH_US		1000
/* fraction bits of held_avg */
#define PAD_AVG_SHIFT		8
/* held_avg saturates here */
#define PAD_AVG_MAX		(U32_MAX >> PAD_AVG_SHIFT)
/* lambda is capped here (about 50 Tbit/s at 1500 B): products fit u64 */
#define PAD_MAX_RATE		BIT_ULL(36)
/* time differences are capped at 16 s before they multiply a rate */
#define PAD_MAX_DT_US		16777216U	/* 2^24 */
/* RTT jitter: EWMA gain 1/2^PAD_JIT_SHIFT, which are also its fraction bits */
#define PAD_JIT_SHIFT		3
#define PAD_JIT_FLOOR_SHIFT	5
/* receiver-clock checkpoints, a power of two, PAD_RX_PER_RTT per srtt */
#define PAD_RX_SHIFT		4
#define PAD_RX_RING		BIT(PAD_RX_SHIFT)
#define PAD_RX_PER_RTT		8
/* least receiver time a bound spans: 1 ms ticks then err by 1/8 at most */
#define PAD_RX_MIN_US		8000
/* k range and w range accepted by the module (and assumed here) */
#define PAD_W_MIN		1
#define PAD_W_MAX		64

struct pad_params {
	u32 k;		/* Q16, mu = k x lambda (Eq. 1) */
	u32 w;		/* window of the rate estimator, in RTTs (Eq. 2) */
	u32 lift;	/* Q16, RTT samples raised by lift x jitter; 0: off */
	bool rx_clock;	/* bound samples by the receiver's clock */
};

struct pad_cp {
	u32 t_us;
	u32 dlv;
	u32 tsv;	/* the peer's TSval then */
};

struct pad_rx {
	u32 dlv;
	u32 tsv;
};

struct pad_core {
	struct pad_cp cp[PAD_RING];
	struct pad_rx rx[PAD_RX_RING];
	u64 lambda;	/* ACK arrival rate, packets/us << PAD_RATE_SHIFT; 0: unknown */
	u64 tokens;	/* release credit, packets << PAD_RATE_SHIFT */
	u32 last_us;	/* time of the previous ACK */
	u32 held;	/* packets ACKed but not yet shown to the inner CCA */
	u32 held_avg;	/* held, averaged over an srtt of deliveries,
			 * packets << PAD_AVG_SHIFT
			 */
	u32 rtt_prev;	/* previous RTT sample, us; 0: none yet */
	u32 rtt_jit;	/* mean |RTT - previous RTT|, us << PAD_JIT_SHIFT */
	u8 cp_head;	/* next checkpoint to write */
	u8 cp_count;
	u8 positive;	/* ACK buffer non-empty */
	u8 started;	/* last_us is valid */
	u8 rx_head;	/* next receiver-clock checkpoint to write */
	u8 rx_count;
	u8 no_tsv;	/* an ACK came without TSval: no receiver clock */
};

/* One ACK, as the stack reports it. */
struct pad_ack {
	u32 now_us;
	u32 delivered;		/* tp->delivered after this ACK */
	u32 acked;		/* rs->acked_sacked: newly (S)ACKed packets */
	s32 rs_delivered;	/* rs->delivered, < 0 if no valid sample */
	u32 snd_interval_us;	/* rs->snd_interval_us */
	u32 interval_us;	/* rs->interval_us, 0 if not known */
	u32 srtt_us;		/* smoothed RTT, 0 if none */
	s32 rtt_us;		/* rs->rtt_us, < 0 if none */
	bool ack_delayed;	/* rs->is_ack_delayed: RTT includes a delay */
	bool app_limited;	/* rs->is_app_limited */
	bool recovery;		/* CWR, Recovery or Loss state, or losses */
	bool has_tsv;		/* the ACK carries the peer's TSval */
	u32 tsv;		/* its TSval */
};

/* What the inner CCA is shown for this ACK. */
struct pad_out {
	u32 acked;		/* replaces rs->acked_sacked */
	s32 delivered;		/* replaces rs->delivered */
	u32 queued;		/* packets of this ACK that entered the buffer */
	s32 rtt_us;		/* replaces rs->rtt_us */
	bool rx_bounded;	/* delivered was cut to the receiver's rate */
};

enum pad_event {
	PAD_EV_NONE,
	PAD_EV_ENGAGE,		/* passive -> positive: started holding */
	PAD_EV_RELEASE,		/* positive -> passive on the steady schedule */
	PAD_EV_PROBE,		/* positive -> passive: sender probing */
	PAD_EV_FLUSH,		/* positive -> passive: recovery/app-limited */
	PAD_EV_RESET,		/* RTO or idle restart: state cleared */
};

static inline void pad_reset(struct pad_core *c)
{
	memset(c, 0, sizeof(*c));
}

/*
 * An RTO or idle restart: the ACK history goes (paper sec. 1 and 3.3); the
 * RTT jitter stays, a property of the path that the pause did not change,
 * so that the samples right after it are raised as before.
 */
static inline void pad_restart(struct pad_core *c)
{
	u32 jit = c->rtt_jit;

	pad_reset(c);
	c->rtt_jit = jit;
}

/*
 * A send with nothing in flight (CA_EVENT_TX_START) is a restart after
 * idle only if no ACK came for an srtt: a pipe that drains for a moment,
 * as BBR's ProbeRTT at 4 packets does under bunched ACKs, leaves lambda's
 * history valid, and clearing it there blinds PAD for the rounds that
 * follow.  @long_gap says the gap is long on a coarser clock, for gaps
 * that wrap the u32 microseconds.
 */
static inline bool pad_idle(const struct pad_core *c, u32 now_us, u32 srtt_us,
			    bool long_gap)
{
	if (!c->started)
		return false;
	return long_gap || !srtt_us || now_us - c->last_us >= srtt_us;
}

static inline u64 pad_mu(const struct pad_core *c, const struct pad_params *p)
{
	return fp_mul(c->lambda, p->k);
}

/* Eq. 2 over the checkpoint ring; updates c->lambda. */
static inline void pad_update_lambda(struct pad_core *c,
				     const struct pad_params *p,
				     const struct pad_ack *a)
{
	u32 srtt = min(a->srtt_us, PAD_MAX_DT_US);
	u32 gap, span;
	const struct pad_cp *old;
	u64 l;

	gap = max_t(u32, ((u64)p->w * srtt) >> PAD_RING_SHIFT, PAD_MIN_CP_US);
	if (!c->cp_count ||
	    a->now_us - c->cp[(c->cp_head + PAD_RING - 1) % PAD_RING].t_us >= gap) {
		c->cp[c->cp_head].t_us = a->now_us;
		c->cp[c->cp_head].dlv = a->delivered;
		c->cp[c->cp_head].tsv = a->tsv;
		c->cp_head = (c->cp_head + 1) % PAD_RING;
		if (c->cp_count < PAD_RING)
			c->cp_count++;
	}
	old = &c->cp[c->cp_count < PAD_RING ? 0 : c->cp_head];
	span = a->now_us - old->t_us;
	if (!srtt || span < srtt / 2 || (s32)span <= 0) {
		c->lambda = 0;
		return;
	}
	l = div64_u64((u64)(a->delivered - old->dlv) << PAD_RATE_SHIFT, span);
	c->lambda = min(l, PAD_MAX_RATE);
}

/*
 * held over the last srtt's deliveries, for the rate sample: the sample
 * starts where its packet was sent, at a delivered count about one srtt
 * of ACKs back.  Each ACK weighs by the packets it acknowledges, in an
 * average over win packets (what lambda delivers in an srtt).
 */
static inline void pad_average_held(struct pad_core *c, u32 held, u32 acked,
				    u32 win)
{
	u32 h = min(held, PAD_AVG_MAX) << PAD_AVG_SHIFT;
	u64 step;

	if (!acked || h == c->held_avg)	/* passive mode: nothing to do */
		return;
	if (acked >= win) {
		c->held_avg = h;
		return;
	}
	if (h > c->held_avg) {
		step = div_u64((u64)(h - c->held_avg) * acked, win);
		c->held_avg += (u32)step;
	} else {
		/* rounded up, so that it reaches 0 again */
		step = div_u64((u64)(c->held_avg - h) * acked + win - 1, win);
		c->held_avg -= (u32)step;
	}
}

/* held_avg in packets, rounded */
static inline u32 pad_held_avg(const struct pad_core *c)
{
	return (c->held_avg + (1U << (PAD_AVG_SHIFT - 1))) >> PAD_AVG_SHIFT;
}

/* The bucket's depth at mu. */
static inline u64 pad_depth(u64 mu)
{
	return max(mu * PAD_DEPTH_US, (u64)PAD_DEPTH_PKTS << PAD_RATE_SHIFT);
}

/* Time since the previous ACK (0 for the first, or one out of order). */
static inline u32 pad_clock(struct pad_core *c, u32 now_us)
{
	u32 dt = c->started ?
		 clamp_t(s32, now_us - c->last_us, 0, PAD_MAX_DT_US) : 0;

	c->last_us = now_us;
	c->started = 1;
	return dt;
}

/*
 * Pass-through: no mu, recovery or app-limited, or the sender is probing
 * (the ACKed packets were sent faster than mu).
 */
static inline bool pad_passes(u64 mu, const struct pad_ack *a)
{
	u32 snd_us = min(a->snd_interval_us, PAD_MAX_DT_US);

	if (!mu || a->recovery || a->app_limited)
		return true;
	return a->rs_delivered > 0 && snd_us &&
	       ((u64)a->rs_delivered << PAD_RATE_SHIFT) > mu * snd_us;
}

/* Passive: what was held goes with this ACK, as if straight from the stack. */
static inline void pad_flush(struct pad_core *c, const struct pad_ack *a,
			     struct pad_out *o, u64 depth)
{
	o->acked = c->held + a->acked;
	o->queued = 0;
	c->held = 0;
	c->tokens = depth;
}

/*
 * Never more than half an srtt of ACKs at mu held: the oldest go first.
 * Returns what stays held.
 */
static inline u32 pad_bound_held(u32 held, u64 mu, u32 srtt_us,
				 struct pad_out *o)
{
	u32 srtt = min(srtt_us, PAD_MAX_DT_US);
	u64 maxh = max_t(u64, (mu * (srtt / 2)) >> PAD_RATE_SHIFT,
			 PAD_DEPTH_PKTS);

	if (held <= maxh)
		return held;
	o->acked += held - (u32)maxh;
	o->queued = min_t(u32, o->queued, maxh);
	return (u32)maxh;
}

/*
 * Credit of the time since the last ACK goes to what is held first, then
 * to this ACK; only what is left over is capped at the depth, so an ACK
 * on the steady schedule always passes whole.
 */
static inline void pad_hold(struct pad_core *c, const struct pad_ack *a,
			    struct pad_out *o, u64 mu, u32 dt, u64 depth)
{
	u64 credit = c->tokens + mu * dt;
	u32 held, n;

	n = (u32)min_t(u64, credit >> PAD_RATE_SHIFT, c->held);
	credit -= (u64)n << PAD_RATE_SHIFT;
	held = c->held - n;
	o->acked = n;
	n = (u32)min_t(u64, credit >> PAD_RATE_SHIFT, a->acked);
	credit -= (u64)n << PAD_RATE_SHIFT;
	o->acked += n;
	o->queued = a->acked - n;
	held += o->queued;
	c->held = pad_bound_held(held, mu, a->srtt_us, o);
	c->tokens = min(credit, depth);
}

/*
 * The sample's delivered as the inner CCA sees it: less what is held now,
 * plus what was held when it began (its packet's send, about an srtt of
 * deliveries ago; taken as the average over those).  Only a cut is
 * applied, never a raise: BBR keeps the maximum of its samples, so one
 * raised above the stack's would stay for ten rounds.
 *
 * A sample at or below mu over its interval shows no compression, so it
 * is never cut below that: under steady ACK batches the cut falls on the
 * samples that end late in a batch, the only ones that span whole
 * batches, and BBR's maximum filter would drift down round after round.
 */
static inline s32 pad_delivered(const struct pad_core *c,
				const struct pad_ack *a, u64 mu)
{
	u32 avg, cut;
	u64 min_dlv = 0;
	s32 dlv;

	if (a->rs_delivered < 0)
		return a->rs_delivered;
	avg = pad_held_avg(c);
	cut = c->held > avg ? c->held - avg : 0;
	if (a->interval_us)
		min_dlv = (mu * min(a->interval_us, PAD_MAX_DT_US)) >>
			  PAD_RATE_SHIFT;
	min_dlv = min_t(u64, min_dlv, (u32)a->rs_delivered);
	dlv = (u32)a->rs_delivered > cut ? a->rs_delivered - (s32)cut : 0;
	return max_t(s32, dlv, (s32)min_dlv);
}

/*
 * The RTT sample as the inner CCA sees it; updates the jitter estimate.
 * With jitter_lift 0, or an RTT past PAD_MAX_DT_US, the sample passes as
 * it is; below it the raised sample stays under 2^29 us (jit < 2^24,
 * lift <= 16).
 */
static inline s32 pad_rtt(struct pad_core *c, const struct pad_params *p,
			  const struct pad_ack *a)
{
	u32 rtt = a->rtt_us, jit, floor;

	if (!p->lift || a->rtt_us < 0 || rtt > PAD_MAX_DT_US)
		return a->rtt_us;
	if (!a->ack_delayed) {
		if (c->rtt_prev)
			c->rtt_jit += (rtt > c->rtt_prev ? rtt - c->rtt_prev :
					c->rtt_prev - rtt) -
				      (c->rtt_jit >> PAD_JIT_SHIFT);
		c->rtt_prev = max(rtt, 1U);
	}
	jit = c->rtt_jit >> PAD_JIT_SHIFT;
	floor = a->srtt_us >> PAD_JIT_FLOOR_SHIFT;
	if (jit <= floor)
		return a->rtt_us;
	return a->rtt_us + (s32)(((u64)(jit - floor) * p->lift) >> FP_SHIFT);
}

/* |x - y| <= y / 8 */
static inline bool pad_near(u64 x, u64 y)
{
	return (x > y ? x - y : y - x) <= y / 8;
}

/*
 * The peer's TSval clock in microseconds per tick, from the span of the
 * lambda ring (w srtts, so the ACK path's jitter averages out): 1000
 * (Linux's default), 1 (usec timestamps), or 0 if it is neither or not
 * known yet.
 */
static inline u32 pad_rx_unit(const struct pad_core *c,
			      const struct pad_ack *a)
{
	const struct pad_cp *old = &c->cp[c->cp_count < PAD_RING ? 0 :
					   c->cp_head];
	u32 span = a->now_us - old->t_us;
	u64 ticks = a->tsv - old->tsv;

	if (c->no_tsv || !c->lambda || (s32)span <= 0)
		return 0;
	if (pad_near(ticks * 1000, span))
		return 1000;
	if (pad_near(ticks, span))
		return 1;
	return 0;
}

/* A receiver-clock checkpoint every srtt / PAD_RX_PER_RTT of its time. */
static inline void pad_rx_note(struct pad_core *c, const struct pad_ack *a,
			       u32 unit)
{
	const struct pad_rx *last;
	u32 gap = a->srtt_us / PAD_RX_PER_RTT;

	if (c->rx_count) {
		last = &c->rx[(c->rx_head + PAD_RX_RING - 1) % PAD_RX_RING];
		if ((u64)(a->tsv - last->tsv) * unit < max(gap, 1U))
			return;
	}
	c->rx[c->rx_head].dlv = a->delivered;
	c->rx[c->rx_head].tsv = a->tsv;
	c->rx_head = (c->rx_head + 1) % PAD_RX_RING;
	if (c->rx_count < PAD_RX_RING)
		c->rx_count++;
}

/*
 * The sample bounded by what the receiver got over it: its packets over
 * the receiver's time from its first packet to this ACK's stamp, one tick
 * less (the stamps are whole ticks).  The first packet's time is
 * interpolated between the checkpoints around the sample's start (@before
 * at or before it, @after at or after); with none before, or the two more
 * than twice the spacing apart (a gap in delivery leaves it anywhere
 * between them), it is @after's stamp, the latest it can be, so that the
 * bound stays an upper one.
 *
 * ACK-path jitter and ACK batching compress the ACKs, not the receiver's
 * stamps, so this bound removes what they add to a sample, probing or not,
 * and leaves a real rise (a probe into free capacity reaches the receiver
 * faster too).  A sample no faster than lambda, the ACK rate over w
 * srtts, cannot lift BBR's filter above the link and is left alone.
 * Returns the bounded delivered.
 */
static inline s32 pad_rx_bound(const struct pad_core *c,
			       const struct pad_ack *a, u32 unit, s32 dlv)
{
	u32 prior = a->delivered - (u32)a->rs_delivered;
	u32 interval = min(a->interval_us, PAD_MAX_DT_US);
	const struct pad_rx *before = NULL, *after = NULL, *r;
	u32 i, d = 1, gap = 0, tail;
	u64 ticks_d, rx_us;

	if (!unit || dlv <= 0 || !interval ||
	    ((u64)dlv << PAD_RATE_SHIFT) <= c->lambda * interval)
		return dlv;
	for (i = 1; i <= c->rx_count; i++) {
		r = &c->rx[(c->rx_head + PAD_RX_RING - i) % PAD_RX_RING];
		if ((s32)(r->dlv - prior) < 0) {
			before = r;
			break;
		}
		after = r;
	}
	if (!after)
		return dlv;
	tail = a->tsv - after->tsv;
	if (tail < 2 || (u64)tail * unit > PAD_MAX_DT_US)
		return dlv;
	if (before && after->dlv != before->dlv &&
	    (u64)(after->tsv - before->tsv) * unit <=
	    2 * (a->srtt_us / PAD_RX_PER_RTT)) {
		d = after->dlv - before->dlv;
		gap = after->tsv - before->tsv;
	}
	/* receiver ticks x d from the first packet to a tick before now */
	ticks_d = (u64)(tail - 1) * d + (u64)gap * (after->dlv - prior);
	rx_us = d > 1 ? div_u64(ticks_d * unit, d) : ticks_d * unit;
	if (rx_us < PAD_RX_MIN_US)
		return dlv;
	rx_us = min_t(u64, rx_us, PAD_MAX_DT_US);
	if ((u64)dlv * rx_us <= (u64)a->rs_delivered * interval)
		return dlv;
	return (s32)div64_u64((u64)a->rs_delivered * interval, rx_us);
}

/* The receiver's clock: bound this ACK's sample, then note the ACK. */
static inline void pad_rx(struct pad_core *c, const struct pad_ack *a,
			  struct pad_out *o)
{
	u32 unit = pad_rx_unit(c, a);
	s32 dlv = pad_rx_bound(c, a, unit, o->delivered);

	o->rx_bounded = dlv < o->delivered;
	o->delivered = dlv;
	/* before the clock is known, space the checkpoints as for ms */
	pad_rx_note(c, a, unit ? unit : 1000);
}

static inline enum pad_event pad_event_of(bool was, bool positive, bool pass,
					  const struct pad_ack *a)
{
	if (positive == was)
		return PAD_EV_NONE;
	if (positive)
		return PAD_EV_ENGAGE;
	if (!pass)
		return PAD_EV_RELEASE;
	return a->recovery || a->app_limited ? PAD_EV_FLUSH : PAD_EV_PROBE;
}

/*
 * One ACK through PAD: updates the estimator and the buffer, fills *o and
 * returns what changed (for tracing).  With a passing sample o is the
 * stack's sample plus whatever was held before.
 */
static inline enum pad_event pad_on_ack(struct pad_core *c,
					const struct pad_params *p,
					const struct pad_ack *a,
					struct pad_out *o)
{
	bool was = c->positive, pass;
	u64 mu, depth, win;
	u32 dt;

	pad_update_lambda(c, p, a);
	mu = pad_mu(c, p);
	depth = pad_depth(mu);
	dt = pad_clock(c, a->now_us);
	pass = pad_passes(mu, a);
	if (pass)
		pad_flush(c, a, o, depth);
	else
		pad_hold(c, a, o, mu, dt, depth);

	/* what lambda delivers in an srtt, < 2^37 */
	win = (mu * min(a->srtt_us, PAD_MAX_DT_US)) >> PAD_RATE_SHIFT;
	pad_average_held(c, c->held, a->acked, (u32)min_t(u64, win, U32_MAX));
	o->delivered = pad_delivered(c, a, mu);
	o->rx_bounded = false;
	if (!a->has_tsv)
		c->no_tsv = 1;
	else if (p->rx_clock)
		pad_rx(c, a, o);
	o->rtt_us = pad_rtt(c, p, a);

	c->positive = c->held > 0;
	return pad_event_of(was, c->positive, pass, a);
}

#endif /* _PAD_CORE_H */
