/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ABC router arithmetic (Goyal et al., NSDI 2020), shared by sch_abc.c and
 * the userspace unit test tests/unit/test_abc_mark.c.  Every division goes
 * through the <linux/math64.h> helpers, so it links on 32-bit routers too.
 *
 * Units: rates in bytes/s, times in ns or us as named.  The marking
 * fractions (f, the token) are Q16 (FP_ONE = 1.0); eta, the queue weights
 * and everything that scales them are parts per million (ppm).  Divisors
 * that are constants go through div_u64(), which 32-bit targets do
 * without a libgcc call.
 *
 *  abc_target_rate()	Eq. 1: tr = eta mu - (mu / delta) (x - d_t)+
 *  struct abc_law	Eq. 1 for a fixed mu: eta mu and mu / delta
 *			computed once, no division per packet
 *  abc_accel_frac()	Eq. 2: f = min(tr / (2 cr), 1)
 *  abc_token_mark()	Alg. 1: deterministic accelerate/brake marking
 *  struct abc_win	sliding-window byte counts: dequeue rate cr and
 *			the backlogged rate used to estimate mu
 *  struct abc_topk	Space-Saving top-K flows of one queue (sec. 4.3)
 *  abc_maxmin_weights()	max-min fair queue weights from two top-K
 *			tables (sec. 4.3, demand of a top-K flow X = 10 %
 *			above its rate), without a buffer on the stack
 *  struct abc_classic	classic-ECN flows found among the ABC queue's top-K
 *  struct abc_shaper	departure times at the configured bandwidth
 */
#ifndef _ABC_MARK_H
#define _ABC_MARK_H

#ifdef __KERNEL__
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/time64.h>
#endif
#include "cc_fixedpoint.h"
#include "uapi/abc_sched.h"

#define ABC_PPM			1000000U
/* 1 Tbit/s: keeps mu * delta_us (Eq. 1) and the window sums in a u64. */
#define ABC_RATE_MAX		125000000000ULL
/* delta, d_t and x are clamped here in Eq. 1 */
#define ABC_TIME_MAX_US		(10 * USEC_PER_SEC)
/* sub-windows of the sliding window T */
#define ABC_WIN_SLOTS		8
/* largest top-K table: fixed size, inside the qdisc's private data */
#define ABC_TOPK_MAX		32
/* X of sec. 4.3: a top-K flow's demand is its rate plus X (10 %) */
#define ABC_DEMAND_BOOST_PPM	100000U
/* no queue is starved while it has traffic: weights stay in [1 %, 99 %] */
#define ABC_WEIGHT_MIN_PPM	10000U

/**
 * abc_target_rate() - Target rate of Eq. 1.
 * @mu: link capacity (the ABC queue's share of it), bytes/s
 * @eta_ppm: eta in ppm (0 < eta <= 1)
 * @delta_us: delta in us, > 0
 * @dt_us: delay threshold d_t in us
 * @x_us: queuing delay x in us
 *
 * Return: max(eta mu - mu (x - d_t)+ / delta, 0) in bytes/s.  The drain
 * term only grows until it equals mu (x - d_t >= delta), where tr is 0
 * already, so clamping x - d_t at delta changes nothing and bounds the
 * product by ABC_RATE_MAX * ABC_TIME_MAX_US < 2^61.
 */
static inline u64 abc_target_rate(u64 mu, u32 eta_ppm, u32 delta_us,
				  u32 dt_us, u64 x_us)
{
	u64 tr, excess, drain;

	mu = min_t(u64, mu, ABC_RATE_MAX);
	eta_ppm = min_t(u32, eta_ppm, ABC_PPM);
	delta_us = clamp_t(u32, delta_us, 1, ABC_TIME_MAX_US);
	tr = div_u64(mu * eta_ppm, ABC_PPM);
	if (x_us <= dt_us)
		return tr;
	excess = x_us - dt_us;
	if (excess >= delta_us)
		return 0;
	drain = div_u64(mu * excess, delta_us);
	return tr > drain ? tr - drain : 0;
}

/*
 * mu / delta in fixed point, bytes/s per us in Q24: the drain term
 * mu (x - d_t) / delta is then a product.  2^24 > ABC_TIME_MAX_US, the
 * largest x - d_t, which makes the product exact after one correction
 * (abc_law_drain); mu << 24 < 2^61.
 */
#define ABC_DRAIN_SHIFT		24

/*
 * Eq. 1 for one mu and one set of parameters: what depends on them alone
 * (eta mu, mu / delta, the delay below which nothing drains), computed
 * when they change rather than per packet.  abc_law_rate() returns
 * exactly abc_target_rate() for the same inputs.
 */
struct abc_law {
	u64 mu;			/* bytes/s, at most ABC_RATE_MAX */
	u64 tr0;		/* eta mu: the target while x <= d_t */
	u64 drain_q24;		/* floor(mu 2^24 / delta) */
	u64 x0_ns;		/* x_ns below this is x_us <= d_t */
	u32 delta_us;		/* clamped as in abc_target_rate() */
	u32 dt_us;
};

/**
 * abc_law_set() - Precompute Eq. 1 for @mu and the parameters.
 * @l: the law
 * @mu: link capacity (the ABC queue's share of it), bytes/s
 * @eta_ppm: eta in ppm
 * @delta_us: delta in us
 * @dt_us: delay threshold d_t in us
 *
 * Two divisions, by constants or parameters: to be called when the rate,
 * the weights or the parameters change, not per packet.
 */
static inline void abc_law_set(struct abc_law *l, u64 mu, u32 eta_ppm,
			       u32 delta_us, u32 dt_us)
{
	l->mu = min_t(u64, mu, ABC_RATE_MAX);
	l->delta_us = clamp_t(u32, delta_us, 1, ABC_TIME_MAX_US);
	l->dt_us = dt_us;
	l->tr0 = div_u64(l->mu * min_t(u32, eta_ppm, ABC_PPM), ABC_PPM);
	l->drain_q24 = div_u64(l->mu << ABC_DRAIN_SHIFT, l->delta_us);
	l->x0_ns = ((u64)dt_us + 1) * NSEC_PER_USEC;
}

/*
 * floor(mu e / delta) for 0 < e < delta, without a division: drain_q24
 * is at most 1 below mu 2^24 / delta, so drain_q24 e / 2^24 is less than
 * e / 2^24 < 1 below the exact quotient, and its floor at most 1 below
 * the exact floor.  One multiply-and-compare corrects that.
 */
static inline u64 abc_law_drain(const struct abc_law *l, u64 e)
{
	u64 d = (l->drain_q24 * e) >> ABC_DRAIN_SHIFT;

	if ((d + 1) * l->delta_us <= l->mu * e)
		d++;
	return d;
}

/**
 * abc_law_rate() - Target rate of Eq. 1 for a queuing delay in ns.
 * @l: the law, from abc_law_set()
 * @x_ns: queuing delay x in ns
 *
 * Return: abc_target_rate() of the law's inputs and x_us = x_ns / 1000
 * (floor), to the byte/s.  Below d_t (a queue that is not too long)
 * this is a comparison; above, one division by a constant and a product.
 */
static inline u64 abc_law_rate(const struct abc_law *l, u64 x_ns)
{
	u64 excess, drain;

	if (x_ns < l->x0_ns)
		return l->tr0;
	excess = div_u64(x_ns, NSEC_PER_USEC) - l->dt_us;
	if (excess >= l->delta_us)
		return 0;
	drain = abc_law_drain(l, excess);
	return l->tr0 > drain ? l->tr0 - drain : 0;
}

/**
 * abc_accel_frac() - Accelerate fraction of Eq. 2.
 * @tr: target rate, bytes/s
 * @cr: dequeue rate, bytes/s
 *
 * Return: min(tr / (2 cr), 1) in Q16 (floor).  With nothing dequeued yet
 * (cr == 0) there is no rate to hold the senders to: 1.
 */
static inline u32 abc_accel_frac(u64 tr, u64 cr)
{
	if (!cr || tr >= 2 * cr)
		return FP_ONE;
	return (u32)fp_div(tr, 2 * cr);
}

/**
 * abc_token_mark() - Alg. 1 for one outgoing packet.
 * @token: the bucket, Q16; starts at 0
 * @f: accelerate fraction, Q16, at most FP_ONE
 * @limit: tokenLimit in Q16 (more than FP_ONE, or nothing accelerates)
 * @accel: the packet arrived marked accelerate (ECT, not CE)
 *
 * token = min(token + f, limit) on every packet; an accelerate packet
 * stays accelerate only if token > 1 (the paper's strict "exceed"), and
 * then takes one token; otherwise it becomes a brake.  A brake is never
 * turned back: packets that arrive as brakes only add f.
 *
 * Return: true to keep accelerate, false to mark brake (or leave a brake).
 */
static inline bool abc_token_mark(u32 *token, u32 f, u32 limit, bool accel)
{
	u64 t = min_t(u64, (u64)*token + f, limit);

	if (accel && t > FP_ONE) {
		*token = (u32)(t - FP_ONE);
		return true;
	}
	*token = (u32)t;
	return false;
}

/* A GSO packet of more segments than this is split to be marked. */
#define ABC_GSO_SEGS_MAX	64

/**
 * abc_split_gso() - whether GSO packets are split to be marked
 * @mode: TC_ABC_SPLIT_GSO_OFF, _ON or _AUTO
 * @bandwidth: the configured bandwidth in bytes/s, 0 when estimated
 *
 * Per-segment marks are the paper's, and what a low rate needs: there a
 * 64 KB packet is milliseconds of the link.  Above 1 Gbit/s it is less
 * than half a millisecond, and splitting costs the router and the
 * receiver about twice the CPU per byte, so AUTO keeps packets whole.
 * An estimated capacity is taken as slow (ABC's wireless links).
 */
static inline bool abc_split_gso(u32 mode, u64 bandwidth)
{
	if (mode == TC_ABC_SPLIT_GSO_AUTO)
		return !bandwidth || bandwidth <= TC_ABC_SPLIT_GSO_AUTO_RATE;
	return mode == TC_ABC_SPLIT_GSO_ON;
}

/* Longest run of one mark abc_token_mark_segs() may hold, in segments. */
#define ABC_RUN_SEGS_MAX	64

/**
 * abc_token_mark_segs() - Alg. 1 for a packet of @segs segments marked whole.
 * @token: the bucket, as for abc_token_mark()
 * @owed: accelerates owed (> 0) or given ahead (< 0), in segments; starts
 *	at 0, and stays within +-(ABC_GSO_SEGS_MAX / 2 + @run)
 * @last: the last mark given was accelerate
 * @f: accelerate fraction, Q16
 * @limit: tokenLimit in Q16
 * @accel: the packet arrived marked accelerate
 * @segs: segments in the packet, 1..ABC_GSO_SEGS_MAX
 * @run: segments by which the carry may pass the even split before the
 *	mark changes, 0..ABC_RUN_SEGS_MAX; 0 alternates as Alg. 1 does
 *
 * The bucket runs Alg. 1 for every segment, so it moves exactly as if the
 * packet had been split.  The packet stays accelerate when the accelerates
 * owed (carried over plus this packet's) reach half its segments, less
 * @run after an accelerate and plus @run after a brake; the difference is
 * carried, so over many packets the accelerated segments follow Alg. 1 to
 * within half a packet plus @run, and marks come in runs instead of
 * alternating: at f = 1/2, of 4 x @run segments plus a packet.  With
 * @segs = 1, @run = 0 and @owed = 0 this is abc_token_mark(), and @owed
 * stays 0.
 *
 * Return: true to keep accelerate, false to mark brake (or leave a brake).
 */
static inline bool abc_token_mark_segs(u32 *token, s32 *owed, bool *last,
				       u32 f, u32 limit, bool accel,
				       u32 segs, u32 run)
{
	s32 due = *owed, need = (s32)segs;
	u32 i;

	for (i = 0; i < segs; i++)
		due += abc_token_mark(token, f, limit, accel);
	*owed = due;
	if (!accel)
		return false;
	need += *last ? -2 * (s32)run : 2 * (s32)run;
	*last = 2 * due >= need;
	if (*last)
		*owed = due - (s32)segs;
	return *last;
}

/* ns per byte of the shaper in Q20: exact enough from 8 kbit/s to 1 Tbit/s */
#define ABC_NS_SHIFT		20
/*
 * While backlogged, departures late by up to this much (timer slack, a
 * busy CPU) are caught up, so lateness costs no rate; a longer stall is
 * forgotten rather than paid back as a burst.
 */
#define ABC_SHAPER_SLACK_NS	(10ULL * NSEC_PER_MSEC)

/*
 * The shaper of a configured bandwidth: a packet leaves no earlier than
 * t_next, and each departure moves t_next on by that packet's time at
 * the rate.  Times are ns; comparisons are wrap-safe.
 */
struct abc_shaper {
	u64 rate;		/* bytes/s, 0 = not shaping */
	u64 ns_per_byte;	/* Q20 */
	u64 t_next;		/* earliest departure of the next packet */
};

/**
 * abc_shaper_set_rate() - Start shaping, change the rate, or stop (0).
 * @s: the shaper
 * @rate: new rate, bytes/s, at most ABC_RATE_MAX; 0 stops shaping
 * @now: ns
 *
 * Shaping starts with a departure at @now.  On a change, a departure
 * still pending is the rest of the last packet's time at the old rate:
 * that rest is retimed at the new rate (t_next - now scaled by old / new),
 * so the new rate holds from the next packet on.  Kept as it was, a change
 * from 8 kbit/s up would first wait out a whole packet time at 8 kbit/s;
 * a change down would let the next packet out too early.
 */
static inline void abc_shaper_set_rate(struct abc_shaper *s, u64 rate, u64 now)
{
	if (rate && !s->rate) {
		s->t_next = now;
	} else if (rate && rate != s->rate && (s64)(s->t_next - now) > 0) {
		/* rem <= one packet time, so rem * rate <= len * 1e9 < 2^62 */
		u64 rem = min(s->t_next - now, div64_u64(U64_MAX, s->rate));

		s->t_next = now + div64_u64(rem * s->rate, rate);
	}
	s->rate = rate;
	if (rate)
		s->ns_per_byte = div64_u64((u64)NSEC_PER_SEC << ABC_NS_SHIFT, rate);
}

/* The queue was empty until @now: idle time is no credit for a burst. */
static inline void abc_shaper_wake(struct abc_shaper *s, u64 now)
{
	if ((s64)(now - s->t_next) > 0)
		s->t_next = now;
}

/* Whether a packet may leave at @now (if not, wait until s->t_next). */
static inline bool abc_shaper_ready(const struct abc_shaper *s, u64 now)
{
	return !s->rate || (s64)(s->t_next - now) <= 0;
}

/* Account the departure at @now of a packet of @len bytes. */
static inline void abc_shaper_sent(struct abc_shaper *s, u64 now, u32 len)
{
	u64 t = s->t_next;

	if (!s->rate)
		return;
	if ((s64)(now - ABC_SHAPER_SLACK_NS - t) > 0)
		t = now - ABC_SHAPER_SLACK_NS;
	s->t_next = t + ((len * s->ns_per_byte) >> ABC_NS_SHIFT);
}

/*
 * abc_bytes_rate() - bytes / ns in bytes/s, without overflow: while
 * bytes < 2^34 the product bytes * 1e9 fits a u64; larger counts need a
 * span of at least bytes / ABC_RATE_MAX seconds (> 100 ms), so a span in
 * us loses at most 1e-5 of precision.  Capped at ABC_RATE_MAX.
 */
static inline u64 abc_bytes_rate(u64 bytes, u64 ns)
{
	u64 r;

	if (!ns)
		return bytes ? ABC_RATE_MAX : 0;
	if (bytes < (1ULL << 34)) {
		r = div64_u64(bytes * NSEC_PER_SEC, ns);
	} else {
		u64 us = div_u64(ns, NSEC_PER_USEC);

		if (!us || bytes >= (1ULL << 44))
			return ABC_RATE_MAX;
		r = div64_u64(bytes * USEC_PER_SEC, us);
	}
	return min_t(u64, r, ABC_RATE_MAX);
}

/*
 * Sliding window of length T in ABC_WIN_SLOTS sub-windows.  Per slot: bytes
 * dequeued from each of the two queues, and the bytes and time of
 * "backlogged" dequeue intervals (the previous dequeue left packets
 * behind, so the link was busy the whole interval): their ratio is the
 * link rate when the qdisc does not know it (estimate mode).
 */
struct abc_win {
	u64 slot_start;			/* ns */
	u64 slot_ns;
	u32 cur;			/* slot being filled */
	u64 bytes[2][ABC_WIN_SLOTS];
	u64 busy_bytes[ABC_WIN_SLOTS];
	u64 busy_ns[ABC_WIN_SLOTS];
};

static inline void abc_win_clear(struct abc_win *w, u64 now)
{
	u32 i;

	for (i = 0; i < ABC_WIN_SLOTS; i++) {
		w->bytes[0][i] = 0;
		w->bytes[1][i] = 0;
		w->busy_bytes[i] = 0;
		w->busy_ns[i] = 0;
	}
	w->cur = 0;
	w->slot_start = now;
}

static inline void abc_win_init(struct abc_win *w, u64 now, u64 window_ns)
{
	w->slot_ns = div64_u64(window_ns, ABC_WIN_SLOTS);
	if (!w->slot_ns)
		w->slot_ns = 1;
	abc_win_clear(w, now);
}

/* Move the window to @now; time never runs backwards for us. */
static inline void abc_win_advance(struct abc_win *w, u64 now)
{
	if (now < w->slot_start + w->slot_ns)
		return;
	if (now - w->slot_start >= ABC_WIN_SLOTS * w->slot_ns) {
		abc_win_clear(w, now);
		return;
	}
	while (now >= w->slot_start + w->slot_ns) {
		w->cur = (w->cur + 1) % ABC_WIN_SLOTS;
		w->bytes[0][w->cur] = 0;
		w->bytes[1][w->cur] = 0;
		w->busy_bytes[w->cur] = 0;
		w->busy_ns[w->cur] = 0;
		w->slot_start += w->slot_ns;
	}
}

/* Account one dequeue of @len bytes from queue @q at @now. */
static inline void abc_win_add(struct abc_win *w, u64 now, u32 q, u32 len,
			       u64 busy_ns)
{
	abc_win_advance(w, now);
	w->bytes[q & 1][w->cur] += len;
	if (busy_ns) {
		w->busy_bytes[w->cur] += len;
		w->busy_ns[w->cur] += busy_ns;
	}
}

/*
 * The span the window covers now: the full T (the slot being filled
 * counts for its elapsed part).  Slots with nothing dequeued, after idle
 * or at the start, count as zero bytes, so a burst after idle is not
 * mistaken for a high rate.
 */
static inline u64 abc_win_span(const struct abc_win *w, u64 now)
{
	return (ABC_WIN_SLOTS - 1) * w->slot_ns + (now - w->slot_start);
}

/*
 * Bytes dequeued from queue @q in the window.  Not zero exactly when
 * abc_win_rate() is not, if the window was advanced to @now and T is at
 * most 1 s: the span is then below 1 s, so one byte is at least 1 byte/s.
 */
static inline u64 abc_win_bytes(const struct abc_win *w, u32 q)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < ABC_WIN_SLOTS; i++)
		sum += w->bytes[q & 1][i];
	return sum;
}

/* Dequeue rate of queue @q over the window, bytes/s. */
static inline u64 abc_win_rate(const struct abc_win *w, u64 now, u32 q)
{
	return abc_bytes_rate(abc_win_bytes(w, q), abc_win_span(w, now));
}

/*
 * Link rate seen while backlogged, bytes/s, or 0 when the window holds
 * less than one slot's worth of backlogged time (too little to tell).
 */
static inline u64 abc_win_busy_rate(const struct abc_win *w)
{
	u64 bytes = 0, ns = 0;
	u32 i;

	for (i = 0; i < ABC_WIN_SLOTS; i++) {
		bytes += w->busy_bytes[i];
		ns += w->busy_ns[i];
	}
	if (ns < w->slot_ns)
		return 0;
	return abc_bytes_rate(bytes, ns);
}

/**
 * abc_estimate_mu() - Link capacity without a configured bandwidth.
 * @busy_rate: abc_win_busy_rate(), 0 if unknown
 * @cr: total dequeue rate over the window
 *
 * The backlogged rate, kept within [cr, 2 cr]: the link carried cr, and,
 * as in the paper's estimator (sec. 5.1), the prediction is capped at
 * double the current rate since ABC cannot more than double per RTT.
 * With no backlogged sample the link had spare capacity: 2 cr.
 *
 * Return: mu in bytes/s, at most ABC_RATE_MAX.
 */
static inline u64 abc_estimate_mu(u64 busy_rate, u64 cr)
{
	u64 cap = min_t(u64, 2 * cr, ABC_RATE_MAX);

	if (!busy_rate || busy_rate > cap)
		return cap;
	return max(busy_rate, cr);
}

/*
 * Space-Saving (Metwally et al.) over the bytes of one queue: at most k
 * counters; a flow not in a full table replaces the smallest counter and
 * inherits its count as error.  count >= true bytes >= count - err, every
 * flow with more than total / k bytes is in the table, and the counts
 * sum to total.
 */
struct abc_ss_entry {
	u32 key;
	u64 count;
	u64 err;
};

struct abc_topk {
	u32 k;
	u32 used;
	u64 total;
	struct abc_ss_entry e[ABC_TOPK_MAX];
};

static inline void abc_topk_reset(struct abc_topk *t, u32 k)
{
	t->k = min_t(u32, k, ABC_TOPK_MAX);
	t->used = 0;
	t->total = 0;
}

static inline void abc_topk_add(struct abc_topk *t, u32 key, u32 bytes)
{
	u32 i, min = 0;

	if (!t->k)
		return;
	t->total += bytes;
	for (i = 0; i < t->used; i++) {
		if (t->e[i].key == key) {
			t->e[i].count += bytes;
			return;
		}
		if (t->e[i].count < t->e[min].count)
			min = i;
	}
	if (t->used < t->k) {
		i = t->used++;
		t->e[i].key = key;
		t->e[i].count = bytes;
		t->e[i].err = 0;
		return;
	}
	t->e[min].key = key;
	t->e[min].err = t->e[min].count;
	t->e[min].count += bytes;
}

/* Bytes a top-K flow surely sent: Space-Saving's lower bound. */
static inline u64 abc_ss_bytes(const struct abc_ss_entry *e)
{
	return e->count - e->err;
}

/* Demand of a top-K flow that sent @bytes (< 2^44, so the product fits). */
static inline u64 abc_demand(u64 bytes)
{
	return bytes + div64_u64(bytes * ABC_DEMAND_BOOST_PPM, ABC_PPM);
}

/*
 * Classic-ECN flows.  On stock kernels a brake is CE, and an ECN-capable
 * flow that does not run ABC (CUBIC or BBR with ECN, DCTCP, macOS and iOS
 * clients) sends ECT as ABC senders do.  It takes each brake for
 * congestion and cuts its window once per RTT whatever the accelerates
 * say, so in the ABC queue, beside ABC flows, it starves.  ABC flows do
 * not: each follows its accelerates and the additive increase brings
 * them to equal shares (sec. 3.1.3).  A flow of the ABC queue's top-K that
 * sends less than 1 / ABC_CLASSIC_RATIO of the largest top-K flow's bytes
 * in ABC_CLASSIC_STRIKES periods with brakes in a row (3 s at 100 ms) is
 * taken for classic ECN: from then on its packets go to the other queue,
 * unmarked, as Not-ECT traffic does, and compete there for the max-min
 * share of sec. 4.3.  It is forgotten once it has not been among the
 * other queue's top-K flows for ABC_CLASSIC_IDLE periods.
 *
 * The table is 4-way set-associative by flow hash, and a mask of its
 * classic slots keeps the per-packet test to one load and a shift while
 * the flow's set holds no classic flow.  A classic flow keeps its way for
 * as long as it runs, so with one way per hash a second classic flow on
 * it would starve for all that time; it now needs five flows on one set
 * of eight.
 */
#define ABC_CLASSIC_SLOTS	32	/* at most 32: a u32 has a bit per slot */
#define ABC_CLASSIC_WAYS	4
#define ABC_CLASSIC_SETS	(ABC_CLASSIC_SLOTS / ABC_CLASSIC_WAYS)
#define ABC_CLASSIC_RATIO	8
#define ABC_CLASSIC_STRIKES	30
#define ABC_CLASSIC_IDLE	100
/* a suspect not seen in the ABC queue's top-K for this long is dropped */
#define ABC_SUSPECT_IDLE	10

struct abc_flowmark {
	u32 key;		/* flow hash; 0: free */
	u16 strikes;		/* periods in a row starved under brakes */
	u16 idle;		/* periods not seen in its queue's top-K */
};

struct abc_classic {
	struct abc_flowmark s[ABC_CLASSIC_SLOTS];
	u32 classic;		/* bit i: slot i holds a classic flow */
	u32 found;		/* classic flows found since init */
};

static inline void abc_classic_clear(struct abc_classic *c)
{
	memset(c->s, 0, sizeof(c->s));
	c->classic = 0;
}

/* Whether slot @i holds a classic flow (a suspect otherwise, or free) */
static inline bool abc_classic_slot(const struct abc_classic *c, u32 i)
{
	return c->classic & (1U << i);
}

/* Classic flows in the table now (for the statistics). */
static inline u32 abc_classic_flows(const struct abc_classic *c)
{
	u32 i, n = 0;

	for (i = 0; i < ABC_CLASSIC_SLOTS; i++)
		n += abc_classic_slot(c, i);
	return n;
}

/* First way of the set of flow @key */
static inline u32 abc_classic_set(u32 key)
{
	return (key % ABC_CLASSIC_SETS) * ABC_CLASSIC_WAYS;
}

/*
 * Whether the flow with hash @key is a classic-ECN flow: per packet, so
 * only the ways holding classic flows are compared, none in the usual
 * case of a set without one.
 */
static inline bool abc_classic_has(const struct abc_classic *c, u32 key)
{
	u32 set = abc_classic_set(key), i;
	u32 ways = (c->classic >> set) & ((1U << ABC_CLASSIC_WAYS) - 1);

	/* key 0 never enters the table */
	for (i = set; ways; i++, ways >>= 1)
		if ((ways & 1) && c->s[i].key == key)
			return true;
	return false;
}

/* The top-K entry of flow @key, or NULL. */
static inline const struct abc_ss_entry *
abc_topk_find(const struct abc_topk *t, u32 key)
{
	u32 i;

	for (i = 0; i < t->used; i++)
		if (t->e[i].key == key)
			return &t->e[i];
	return NULL;
}

/* Largest guaranteed byte count of a top-K table. */
static inline u64 abc_topk_max(const struct abc_topk *t)
{
	u64 max = 0;
	u32 i;

	for (i = 0; i < t->used; i++)
		max = max_t(u64, max, abc_ss_bytes(&t->e[i]));
	return max;
}

/* Whether a top-K flow of @bytes is starved beside the largest, @max. */
static inline bool abc_starved(u64 bytes, u64 max)
{
	return bytes && bytes < div_u64(max, ABC_CLASSIC_RATIO);
}

/* Age slot @i over a period: classic flows live in @other, suspects in @abc. */
static inline void abc_classic_age(struct abc_classic *c, u32 i,
				   const struct abc_topk *abc,
				   const struct abc_topk *other, u64 max,
				   bool braked)
{
	struct abc_flowmark *m = &c->s[i];
	const struct abc_ss_entry *e;

	if (abc_classic_slot(c, i)) {
		if (abc_topk_find(other, m->key))
			m->idle = 0;
		else if (++m->idle > ABC_CLASSIC_IDLE)
			goto forget;
		return;
	}
	e = abc_topk_find(abc, m->key);
	if (!e) {
		if (++m->idle > ABC_SUSPECT_IDLE)
			goto forget;
		return;
	}
	m->idle = 0;
	if (!braked)
		return;
	if (!abc_starved(abc_ss_bytes(e), max))
		goto forget;
	if (++m->strikes >= ABC_CLASSIC_STRIKES) {
		c->classic |= 1U << i;
		c->found++;
	}
	return;
forget:
	memset(m, 0, sizeof(*m));
	c->classic &= ~(1U << i);
}

/**
 * abc_classic_period() - Classic-ECN detection at the end of a period.
 * @c: the table
 * @abc: top-K of the ABC queue over the period
 * @other: top-K of the other queue over the period
 * @braked: the ABC queue marked brakes in the period
 *
 * Ages every slot, then starts a suspect for each starved ABC top-K flow
 * not tracked yet that has a free way in its set.  A period without
 * brakes starves nobody: it neither adds nor clears strikes.  With fewer
 * than two top-K flows in the ABC queue nobody is starved beside
 * another.  O(slots x K) compares, once per weight period.
 */
static inline void abc_classic_period(struct abc_classic *c,
				      const struct abc_topk *abc,
				      const struct abc_topk *other, bool braked)
{
	u64 max = abc->used >= 2 ? abc_topk_max(abc) : 0;
	u32 i;

	for (i = 0; i < ABC_CLASSIC_SLOTS; i++)
		if (c->s[i].key)
			abc_classic_age(c, i, abc, other, max, braked);
	if (!braked)
		return;
	for (i = 0; i < abc->used; i++) {
		const struct abc_ss_entry *e = &abc->e[i];
		struct abc_flowmark *m = &c->s[abc_classic_set(e->key)], *free = NULL;
		u32 w;

		if (!e->key || !abc_starved(abc_ss_bytes(e), max))
			continue;
		for (w = 0; w < ABC_CLASSIC_WAYS; w++) {
			if (m[w].key == e->key)
				break;
			if (!m[w].key && !free)
				free = &m[w];
		}
		/* tracked already (aged above), or its set is full */
		if (w < ABC_CLASSIC_WAYS || !free)
			continue;
		free->key = e->key;
		free->strikes = 1;
	}
}

/*
 * Max-min allocation in progress: bytes given to each queue, capacity
 * left, and the top-K flows of each queue not served yet.
 */
struct abc_maxmin {
	u64 alloc[2];
	u64 left;
	u32 todo[2];
};

/* Short flows (a queue's bytes outside its top-K) are served first. */
static inline void abc_maxmin_short(struct abc_maxmin *m,
				    const struct abc_topk *t[2], u64 cap)
{
	u32 i, q;

	m->left = cap;
	for (q = 0; q < 2; q++) {
		u64 top = 0, s;

		for (i = 0; i < t[q]->used; i++)
			top += abc_ss_bytes(&t[q]->e[i]);
		s = min(t[q]->total - top, m->left);
		m->alloc[q] = s;
		m->left -= s;
		m->todo[q] = t[q]->used;
	}
}

/*
 * The smallest byte count of at least @lo among the top-K flows, and in
 * @n how many flows of each queue sent it.  Demand grows strictly with
 * the byte count, so this is the smallest demand not served yet.
 */
static inline u64 abc_maxmin_level(const struct abc_topk *t[2], u64 lo,
				   u32 n[2])
{
	u64 lvl = U64_MAX;
	u32 i, q;

	n[0] = 0;
	n[1] = 0;
	for (q = 0; q < 2; q++) {
		for (i = 0; i < t[q]->used; i++) {
			u64 b = abc_ss_bytes(&t[q]->e[i]);

			if (b < lo)
				continue;
			if (b < lvl) {
				lvl = b;
				n[0] = 0;
				n[1] = 0;
			}
			if (b == lvl)
				n[q]++;
		}
	}
	return lvl;
}

/*
 * Serve one top-K flow of queue @q demanding @v: in full if that is no
 * more than an equal share of what is left; otherwise every flow left
 * gets that share, and the allocation is done (false).
 */
static inline bool abc_maxmin_serve(struct abc_maxmin *m, u32 q, u64 v)
{
	u64 share = div64_u64(m->left, m->todo[0] + m->todo[1]);

	if (v > share) {
		m->alloc[0] += share * m->todo[0];
		m->alloc[1] += share * m->todo[1];
		m->left = 0;
		m->todo[0] = 0;
		m->todo[1] = 0;
		return false;
	}
	m->alloc[q] += v;
	m->left -= v;
	m->todo[q]--;
	return true;
}

/*
 * Water-filling over the top-K demands of both queues, smallest first (at
 * equal demands the ABC queue's first).  The tables are scanned once per
 * distinct demand, O(K^2) with K <= 2 * ABC_TOPK_MAX, once per weight
 * period: no sorted copy of the demands on the stack.
 */
static inline void abc_maxmin_fill(struct abc_maxmin *m,
				   const struct abc_topk *t[2])
{
	u64 lo = 0;

	while (m->todo[0] + m->todo[1]) {
		u32 n[2], i, q;
		u64 lvl = abc_maxmin_level(t, lo, n), v = abc_demand(lvl);

		for (q = 0; q < 2; q++)
			for (i = 0; i < n[q]; i++)
				if (!abc_maxmin_serve(m, q, v))
					return;
		/* every flow up to lvl is served, so lvl < U64_MAX here */
		lo = lvl + 1;
	}
}

/* The ABC queue's weight, ppm: its share of the allocation, bounded. */
static inline u32 abc_maxmin_ppm(const struct abc_maxmin *m)
{
	u64 tot = m->alloc[0] + m->alloc[1];
	u32 sh = 0, w;

	if (!tot)
		return ABC_PPM / 2;
	/* alloc <= cap + total bytes of a period: far below 2^44 */
	while ((tot >> sh) >= (1ULL << 40))
		sh++;
	w = (u32)div64_u64((m->alloc[0] >> sh) * ABC_PPM, tot >> sh);
	return clamp_t(u32, w, ABC_WEIGHT_MIN_PPM, ABC_PPM - ABC_WEIGHT_MIN_PPM);
}

/**
 * abc_maxmin_weights() - Queue weights from max-min fair allocation (4.3).
 * @t: top-K tables of the ABC and the non-ABC queue over one period
 * @cap: bytes the link could carry in that period
 * @w_ppm: out: weight of each queue, ppm, summing to ABC_PPM
 *
 * A top-K flow demands its guaranteed count (count - err) plus X; the
 * rest of a queue's bytes are short flows, each far below a fair share,
 * whose demand is what they sent: served first.  The capacity left is
 * water-filled over the top-K demands, and each queue's weight is the
 * sum of its flows' allocations.  A queue that sent nothing keeps a
 * neutral half (the scheduler is work-conserving, so the other queue
 * loses nothing); weights stay within [1 %, 99 %] so a queue with
 * traffic is never starved.
 */
static inline void abc_maxmin_weights(const struct abc_topk *t[2], u64 cap,
				      u32 w_ppm[2])
{
	struct abc_maxmin m;

	if (!t[0]->total || !t[1]->total) {
		w_ppm[0] = ABC_PPM / 2;
	} else {
		abc_maxmin_short(&m, t, cap);
		abc_maxmin_fill(&m, t);
		w_ppm[0] = abc_maxmin_ppm(&m);
	}
	w_ppm[1] = ABC_PPM - w_ppm[0];
}

#endif /* _ABC_MARK_H */
