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
 * An RTO (and an idle restart) clears PAD's state: pad_reset().
 *
 * Bound: no more than half an srtt of ACKs at mu is held; beyond it
 * packets pass, so a lambda that lags a rate increase cannot starve the
 * inner CCA's view for long.
 */
#ifndef _PAD_CORE_H
#define _PAD_CORE_H

#include "cc_fixedpoint.h"

#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <stdbool.h>
#include <string.h>
#endif

#define PAD_RATE_SHIFT		24
/* checkpoints of the lambda window */
#define PAD_RING		8
/* smallest checkpoint spacing: tiny RTTs (loopback) still span time */
#define PAD_MIN_CP_US		50
/* bucket depth: a few packets, or 1 ms at mu, whichever is larger */
#define PAD_DEPTH_PKTS		4
#define PAD_DEPTH_US		1000
/* fraction bits of held_avg */
#define PAD_AVG_SHIFT		8
/* held_avg saturates here */
#define PAD_AVG_MAX		((u32)U32_MAX >> PAD_AVG_SHIFT)
/* lambda is capped here (about 50 Tbit/s at 1500 B): products fit u64 */
#define PAD_MAX_RATE		BIT_ULL(36)
/* time differences are capped at 16 s before they multiply a rate */
#define PAD_MAX_DT_US		16777216U	/* 2^24 */
/* k range and w range accepted by the module (and assumed here) */
#define PAD_W_MIN		1
#define PAD_W_MAX		64

struct pad_params {
	u32 k;		/* Q16, mu = k x lambda (Eq. 1) */
	u32 w;		/* window of the rate estimator, in RTTs (Eq. 2) */
};

struct pad_cp {
	u32 t_us;
	u32 dlv;
};

struct pad_core {
	struct pad_cp cp[PAD_RING];
	u64 lambda;	/* ACK arrival rate, packets/us << PAD_RATE_SHIFT; 0: unknown */
	u64 tokens;	/* release credit, packets << PAD_RATE_SHIFT */
	u32 last_us;	/* time of the previous ACK */
	u32 held;	/* packets ACKed but not yet shown to the inner CCA */
	u32 held_avg;	/* held, averaged over an srtt of deliveries,
			 * packets << PAD_AVG_SHIFT
			 */
	u8 cp_head;	/* next checkpoint to write */
	u8 cp_count;
	u8 positive;	/* ACK buffer non-empty */
	u8 started;	/* last_us is valid */
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
	bool app_limited;	/* rs->is_app_limited */
	bool recovery;		/* CWR, Recovery or Loss state, or losses */
};

/* What the inner CCA is shown for this ACK. */
struct pad_out {
	u32 acked;		/* replaces rs->acked_sacked */
	s32 delivered;		/* replaces rs->delivered */
	u32 queued;		/* packets of this ACK that entered the buffer */
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

static inline u64 pad_mu(const struct pad_core *c, const struct pad_params *p)
{
	return fp_mul(c->lambda, p->k);
}

/* Eq. 2 over the checkpoint ring; updates c->lambda. */
static inline void pad_update_lambda(struct pad_core *c,
				     const struct pad_params *p,
				     const struct pad_ack *a)
{
	const struct pad_cp *old;
	u32 gap, span, srtt = a->srtt_us;
	u64 l;

	if (srtt > PAD_MAX_DT_US)
		srtt = PAD_MAX_DT_US;
	gap = (u32)div64_u64((u64)p->w * srtt, PAD_RING);
	if (gap < PAD_MIN_CP_US)
		gap = PAD_MIN_CP_US;
	if (!c->cp_count ||
	    a->now_us - c->cp[(c->cp_head + PAD_RING - 1) % PAD_RING].t_us >= gap) {
		c->cp[c->cp_head].t_us = a->now_us;
		c->cp[c->cp_head].dlv = a->delivered;
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
	c->lambda = l < PAD_MAX_RATE ? l : PAD_MAX_RATE;
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
	u32 h = (held < PAD_AVG_MAX ? held : PAD_AVG_MAX) << PAD_AVG_SHIFT;
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
	u64 mu, depth, credit, n, maxh;
	u32 dt, was = c->positive, held, srtt, snd_us;
	bool pass;

	pad_update_lambda(c, p, a);
	mu = pad_mu(c, p);
	depth = mu * PAD_DEPTH_US;
	if (depth < ((u64)PAD_DEPTH_PKTS << PAD_RATE_SHIFT))
		depth = (u64)PAD_DEPTH_PKTS << PAD_RATE_SHIFT;

	dt = c->started ? a->now_us - c->last_us : 0;
	if ((s32)dt < 0)
		dt = 0;
	if (dt > PAD_MAX_DT_US)
		dt = PAD_MAX_DT_US;
	c->last_us = a->now_us;
	c->started = 1;

	pass = !mu || a->recovery || a->app_limited;
	/* probing: the ACKed packets were sent faster than mu */
	snd_us = a->snd_interval_us < PAD_MAX_DT_US ?
		 a->snd_interval_us : PAD_MAX_DT_US;
	if (!pass && a->rs_delivered > 0 && snd_us &&
	    ((u64)a->rs_delivered << PAD_RATE_SHIFT) > mu * snd_us)
		pass = true;

	if (pass) {
		o->acked = c->held + a->acked;
		o->queued = 0;
		c->held = 0;
		c->tokens = depth;	/* passive: as if straight from the stack */
	} else {
		/*
		 * Credit of the time since the last ACK goes to what is held
		 * first, then to this ACK; only what is left over is capped
		 * at the depth, so an ACK on the steady schedule always
		 * passes whole.
		 */
		credit = c->tokens + mu * dt;
		n = credit >> PAD_RATE_SHIFT;
		if (n > c->held)
			n = c->held;
		credit -= n << PAD_RATE_SHIFT;
		held = c->held - (u32)n;
		o->acked = (u32)n;
		n = credit >> PAD_RATE_SHIFT;
		if (n > a->acked)
			n = a->acked;
		credit -= n << PAD_RATE_SHIFT;
		o->acked += (u32)n;
		o->queued = a->acked - (u32)n;
		held += o->queued;
		/* never more than half an srtt of ACKs at mu */
		srtt = a->srtt_us < PAD_MAX_DT_US ? a->srtt_us : PAD_MAX_DT_US;
		maxh = (mu * (srtt / 2)) >> PAD_RATE_SHIFT;
		if (maxh < PAD_DEPTH_PKTS)
			maxh = PAD_DEPTH_PKTS;
		if (held > maxh) {	/* the oldest go first */
			o->acked += held - (u32)maxh;
			held = (u32)maxh;
			if (o->queued > held)
				o->queued = held;
		}
		c->held = held;
		c->tokens = credit < depth ? credit : depth;
	}

	srtt = a->srtt_us < PAD_MAX_DT_US ? a->srtt_us : PAD_MAX_DT_US;
	n = (mu * srtt) >> PAD_RATE_SHIFT;	/* < 2^37 */
	pad_average_held(c, c->held, a->acked, n < U32_MAX ? (u32)n : U32_MAX);
	if (a->rs_delivered < 0) {
		o->delivered = a->rs_delivered;
	} else {
		/*
		 * Over the sample the inner CCA saw delivered less what is
		 * held now, plus what was held when it began (its packet's
		 * send, about an srtt of deliveries ago; taken as the
		 * average over those).  Only a cut is applied, never a
		 * raise: BBR keeps the maximum of its samples, so one
		 * raised above the stack's would stay for ten rounds.
		 */
		u32 avg = pad_held_avg(c);
		u32 cut = c->held > avg ? c->held - avg : 0;
		u64 min_dlv = 0;

		/*
		 * A sample at or below mu over its interval shows no
		 * compression, so it is never cut below that: under steady
		 * ACK batches the cut fell on the samples that end late in a
		 * batch, the only ones that span whole batches, and BBR's
		 * maximum filter could drift down round after round.
		 */
		if (a->interval_us)
			min_dlv = (mu * (a->interval_us < PAD_MAX_DT_US ?
				       a->interval_us : PAD_MAX_DT_US)) >>
				PAD_RATE_SHIFT;
		if (min_dlv > (u32)a->rs_delivered)
			min_dlv = (u32)a->rs_delivered;
		o->delivered = (u32)a->rs_delivered > cut ?
			       a->rs_delivered - (s32)cut : 0;
		if (o->delivered < (s32)min_dlv)
			o->delivered = (s32)min_dlv;
	}

	c->positive = c->held > 0;
	if (c->positive == was)
		return PAD_EV_NONE;
	if (c->positive)
		return PAD_EV_ENGAGE;
	if (!pass)
		return PAD_EV_RELEASE;
	return a->recovery || a->app_limited ? PAD_EV_FLUSH : PAD_EV_PROBE;
}

#endif /* _PAD_CORE_H */
