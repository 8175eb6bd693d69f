/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The ABC sender's window arithmetic (Goyal et al., "ABC: A Simple
 * Explicit Congestion Controller for Wireless Networks", NSDI 2020).
 *
 * Pure integer code in the kernel's own names: the module (tcp_abc.c)
 * and the userspace unit tests (tests/unit/test_abc_window.c, through
 * include/cc_user.h) compile the same text.
 *
 * Units: windows in bytes (u32), so that ACKs of any size count exactly
 * ("byte counting", sec. 3.1.1); the glue converts to packets of one MSS.
 *
 * Two windows (sec. 4.1), the sender uses the smaller one:
 *  - w_abc follows the router's feedback, Eq. 3 with byte counting: an
 *    accelerate ACK (no ECE) adds the bytes it newly acknowledges, a brake
 *    ACK (ECE) takes them off, and every ACK adds acked x MSS / w_abc,
 *    i.e. one MSS per window of acknowledged data (additive increase).
 *  - w_nonabc tracks non-ABC bottlenecks with CUBIC's rules (RFC 9438,
 *    as the paper's implementation): slow start, then the cubic
 *    W(t) = C (t - K)^3 + W_max with its Reno-friendly estimate; cut to
 *    beta = 0.7 of the window on loss (and on CE in legacy-ECN mode,
 *    below), with fast convergence; restarted from the floor after an
 *    RTO.
 *  - both are capped at 2 x the bytes in flight (but never below the
 *    initial window), so the window that does not limit cannot run away.
 *
 * Legacy ECN.  On stock kernels the brake is CE (see "The encoding on
 * stock kernels" in Documentation/tcp_abc.rst), the codepoint a classic
 * ECN router also uses, so a single mark cannot tell them apart.  Their
 * patterns differ: Algorithm 1's token bucket interleaves brakes and
 * accelerates (the minority feedback comes in runs of about one ACK,
 * whatever f is), whereas a threshold AQM marks every packet while its
 * queue is above the threshold, so its marks come in long runs.  Each
 * round (one RTT of ACKs) with at least ABC_DETECT_MIN ACKs of the
 * minority kind scores +1 when the ECE changes at least once per
 * minority ACK (interleaved) and -1 when it changes less than once per
 * four (runs).  A score of -ABC_LEGACY_ON or less turns on legacy-ECN
 * mode, in which w_nonabc is also cut, once per round, on a round with
 * CE, as RFC 3168 asks; a score back at 0 or above turns it off.  w_abc
 * always follows ECE.
 */
#ifndef _ABC_WINDOW_H
#define _ABC_WINDOW_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/types.h>
#else
#include "cc_user.h"
#endif

/* Windows are kept at or below 1 GiB: sums of two stay within a u32. */
#define ABC_WIN_MAX		0x40000000U
/* Neither window goes below two packets (as DCTCP and Reno). */
#define ABC_MIN_PKTS		2U
/* The 2 x in-flight cap never goes below the initial window. */
#define ABC_CAP_MIN_PKTS	10U
/* w_nonabc in slow start: its threshold is "infinite". */
#define ABC_SSTHRESH_INF	ABC_WIN_MAX
/* Legacy-ECN detector: rounds need this many minority ACKs to count. */
#define ABC_DETECT_MIN		4U
#define ABC_SCORE_MAX		4
#define ABC_LEGACY_ON		2

/*
 * CUBIC (RFC 9438) in fixed point.  Time is counted in ticks of 1024 us.
 * beta = 0.7, fast convergence to (1 + beta) / 2 = 0.85 and the
 * Reno-friendly alpha = 3 (1 - beta) / (1 + beta) = 0.529 are in 1/1024;
 * C = 0.4 packets/s^3 is 0.4 x 1.024^3 x 1e-9 x 2^40 = 472 in
 * packets/tick^3 scaled by 2^40.
 */
#define ABC_CUBIC_SCALE		1024U
#define ABC_CUBIC_BETA		717U
#define ABC_CUBIC_FC		870U
#define ABC_CUBIC_ALPHA		542U
#define ABC_CUBIC_C		472U
#define ABC_CUBIC_TICK_SHIFT	10
/* |t - K| is taken no further than 2^21 ticks (35 min): d^3 < 2^63. */
#define ABC_CUBIC_T_MAX		((1U << 21) - 1)
/* K is found for W_max - W of at most 2^23 packets (Q10 below). */
#define ABC_CUBIC_DW_MAX	BIT_ULL(33)
/* MSS used by the cubic arithmetic, so products stay within 64 bits. */
#define ABC_CUBIC_MSS_MAX	65535U

/* What one ACK did, for the tracepoint. */
enum abc_event {
	ABC_EV_NONE,		/* nothing acknowledged */
	ABC_EV_ACCEL,		/* accelerate ACK (ECN peer, no ECE) */
	ABC_EV_BRAKE,		/* brake ACK (ECE) */
	ABC_EV_ACK,		/* ACK of a non-ECN connection */
	ABC_EV_LEGACY_CUT,	/* brake ACK that also cut w_nonabc */
	ABC_EV_LOSS,		/* fast recovery: w_nonabc cut */
	ABC_EV_RTO,		/* retransmission timeout */
	ABC_EV_UNDO,		/* spurious loss: w_nonabc restored */
};

/* What one ACK tells the window. */
struct abc_ack {
	u32 acked;		/* bytes newly acknowledged or SACKed */
	u32 pkts;		/* the same, in packets (for the counters) */
	u32 mss;		/* bytes per packet, > 0 */
	u32 inflight;		/* bytes in flight before this ACK */
	u32 now_us;		/* clock of this ACK, microseconds (wraps) */
	u32 rtt_us;		/* smoothed RTT, microseconds */
	u32 ce;			/* bytes of acked that were brakes (CE) */
	u32 ce_pkts;		/* the same, in packets */
	bool ecn;		/* ECN negotiated: ACKs carry ABC feedback */
	bool round_start;	/* first ACK of a new round trip */
	bool recovery;		/* in fast recovery: w_nonabc does not grow */
};

/* Per-connection state; 88 bytes. */
struct abc_window {
	u64 cubic_acc;		/* CUBIC: sum of acked x (target - cwnd), */
	u64 est_acc;		/* and of acked x alpha: see abc_cubic_ca() */
	u32 w_abc;		/* bytes, Eq. 3 */
	u32 w_nonabc;		/* bytes, CUBIC */
	u32 ssthresh;		/* w_nonabc's slow-start threshold, bytes */
	u32 abc_acc;		/* bytes acked toward w_abc's next +1 MSS */
	u32 w_max;		/* CUBIC: w_nonabc before the last cut, bytes */
	u32 origin;		/* CUBIC: the plateau of this epoch, bytes */
	u32 k;			/* CUBIC: ticks from epoch start to origin */
	u32 epoch;		/* CUBIC: now_us at epoch start */
	u32 w_est;		/* CUBIC: Reno-friendly estimate, bytes */
	u32 prior_w_nonabc;	/* before the last loss cut, for undo; 0: none */
	u32 prior_ssthresh;
	u32 prior_w_max;
	u32 accel;		/* packets acknowledged by accelerates (wraps) */
	u32 brake;		/* packets acknowledged by brakes (wraps) */
	u16 rnd_accel;		/* this round: accelerate and brake ACKs, */
	u16 rnd_brake;		/* and ECE changes between ACKs (saturating) */
	u16 rnd_trans;
	u16 pad;
	s32 score;		/* legacy-ECN detector, see above */
	u8 last_ece;		/* the previous ACK had a brake */
	u8 legacy;		/* legacy-ECN mode */
	u8 rnd_cut;		/* w_nonabc already cut for CE this round */
	u8 epoch_on;		/* CUBIC: an epoch is running */
};

static inline u32 abc_floor(u32 mss)
{
	return ABC_MIN_PKTS * mss;
}

/* a + b, no higher than ABC_WIN_MAX. */
static inline u32 abc_add(u32 a, u32 b)
{
	a = min(a, ABC_WIN_MAX);
	b = min(b, ABC_WIN_MAX);
	return min(a + b, ABC_WIN_MAX);	/* a + b <= 2^31 */
}

/* a - b, no lower than lo. */
static inline u32 abc_sub(u32 a, u32 b, u32 lo)
{
	return a > b && a - b > lo ? a - b : lo;
}

/* n MSS in bytes, n at most ABC_WIN_MAX / mss; n == 1 takes no division. */
static inline u32 abc_mss_times(u64 n, u32 mss)
{
	if (n == 1)
		return mss <= ABC_WIN_MAX ? mss : 0;
	return (u32)min_t(u64, n, ABC_WIN_MAX / mss) * mss;
}

/*
 * One MSS per window of acknowledged bytes: acc collects acked bytes and
 * pays w for each MSS added, as the stack's tcp_cong_avoid_ai() does in
 * packets.  Exact for any mix of ACK sizes; only an ACK that completes
 * two windows or more divides.
 */
static inline u32 abc_ai(u32 w, u32 *acc, u32 acked, u32 mss)
{
	u32 n = 1;

	*acc = abc_add(*acc, acked);
	if (*acc < w)
		return w;
	if (*acc - w >= w)
		n = *acc / w;
	*acc -= n * w;
	return abc_add(w, abc_mss_times(n, mss));
}

/* Start with both windows at the initial window, w_nonabc in slow start. */
static inline void abc_window_init(struct abc_window *w, u32 init_pkts,
				   u32 mss)
{
	u32 init = min(max(init_pkts, ABC_MIN_PKTS), ABC_WIN_MAX / mss) * mss;

	*w = (struct abc_window){
		.w_abc = init,
		.w_nonabc = init,
		.ssthresh = ABC_SSTHRESH_INF,
	};
}

/* The window the sender uses, in bytes. */
static inline u32 abc_window_bytes(const struct abc_window *w, bool ecn)
{
	return ecn ? min(w->w_abc, w->w_nonabc) : w->w_nonabc;
}

/* The legacy-ECN detector at the end of a round. */
static inline void abc_round_end(struct abc_window *w)
{
	u32 m = min(w->rnd_accel, w->rnd_brake);

	if (m >= ABC_DETECT_MIN) {
		if (w->rnd_trans >= m && w->score < ABC_SCORE_MAX)
			w->score++;
		else if (w->rnd_trans * 4U < m && w->score > -ABC_SCORE_MAX)
			w->score--;
	}
	if (w->score <= -ABC_LEGACY_ON)
		w->legacy = 1;
	else if (w->score >= 0)
		w->legacy = 0;
	w->rnd_accel = 0;
	w->rnd_brake = 0;
	w->rnd_trans = 0;
	w->rnd_cut = 0;
}

static inline u16 abc_inc16(u16 v)
{
	return v < U16_MAX ? v + 1 : v;
}

/* v x num / ABC_CUBIC_SCALE for v a window (< 2^31) and num <= 1024. */
static inline u32 abc_scale(u32 v, u32 num)
{
	return (u32)(((u64)v * num) >> 10);
}

/* floor(cbrt(x)), digit by digit (three bits of x per bit of the root). */
static inline u32 abc_cbrt(u64 x)
{
	u64 y = 0, b;
	int s;

	for (s = 63; s >= 0; s -= 3) {
		y <<= 1;
		b = 3 * y * (y + 1) + 1;
		if ((x >> s) >= b) {
			x -= b << s;
			y++;
		}
	}
	return (u32)y;
}

/* K: the ticks the cubic takes to climb dw bytes, cbrt(dw / mss / C). */
static inline u32 abc_cubic_k(u32 dw, u32 mss)
{
	u64 q = div_u64((u64)dw << 10, mss);	/* packets, Q10 */

	q = min_t(u64, q, ABC_CUBIC_DW_MAX);
	return abc_cbrt(div_u64(q << 30, ABC_CUBIC_C));
}

/* C d^3 in bytes, d in ticks. */
static inline u32 abc_cubic_delta(u32 d, u32 mss)
{
	u64 p;

	d = min(d, ABC_CUBIC_T_MAX);
	p = (((u64)d * d * d) >> 11) * ABC_CUBIC_C;	/* packets, Q29 */
	p = ((p >> 19) * min(mss, ABC_CUBIC_MSS_MAX)) >> 10;
	return (u32)min_t(u64, p, ABC_WIN_MAX);
}

/*
 * CUBIC's multiplicative decrease of w_nonabc to beta x cwnd.  Fast
 * convergence: a cut below the last W_max lowers the plateau further,
 * so that a flow releases bandwidth to newcomers.
 */
static inline void abc_nonabc_cut(struct abc_window *w, u32 cwnd, u32 mss)
{
	w->prior_w_nonabc = w->w_nonabc;
	w->prior_ssthresh = w->ssthresh;
	w->prior_w_max = w->w_max;
	cwnd = min(cwnd, ABC_WIN_MAX);
	w->w_max = cwnd < w->w_max ? abc_scale(cwnd, ABC_CUBIC_FC) : cwnd;
	w->ssthresh = max(abc_scale(cwnd, ABC_CUBIC_BETA), abc_floor(mss));
	w->w_nonabc = w->ssthresh;
	w->epoch_on = 0;
}

/*
 * Pay one MSS into *w for each @unit in *acc (units of whatever *acc
 * sums), as tcp_cong_avoid_ai() does: most ACKs pay none or one, which
 * takes no division.
 */
static inline void abc_pay_mss(u32 *w, u64 *acc, u64 unit, u32 mss)
{
	u64 n = 1;

	if (*acc < unit)
		return;
	if (*acc - unit >= unit)
		n = div64_u64(*acc, unit);
	*acc -= n * unit;
	*w = abc_add(*w, abc_mss_times(n, mss));
}

/*
 * CUBIC congestion avoidance on w_nonabc for acked bytes (RFC 9438
 * sec. 4.2-4.4): grow toward W(t + RTT), by at most half the window per
 * window acknowledged, and never below the Reno-friendly estimate.
 *
 * Both grow in steps of one MSS, as tcp_cubic's cnt: the cubic by
 * (target - cwnd) / cwnd per acked byte, so one MSS per cwnd x MSS of
 * acked x (target - cwnd) summed in cubic_acc; W_est by alpha x MSS /
 * cwnd per acked byte, so one MSS per cwnd x 1024 of acked x alpha
 * summed in est_acc.  The sums carry their remainders: no growth is
 * lost to rounding, and an ACK takes no division unless it pays more
 * than one MSS into a window.
 */
static inline void abc_cubic_ca(struct abc_window *w, const struct abc_ack *a,
				u32 acked)
{
	u32 mss = min(a->mss, ABC_CUBIC_MSS_MAX);
	u32 cwnd = w->w_nonabc;
	u32 t, d, delta, target, alpha;

	if (!w->epoch_on) {
		w->epoch_on = 1;
		w->epoch = a->now_us;
		w->w_est = cwnd;
		w->cubic_acc = 0;
		w->est_acc = 0;
		if (w->w_max > cwnd) {
			w->k = abc_cubic_k(w->w_max - cwnd, mss);
			w->origin = w->w_max;
		} else {
			w->k = 0;
			w->origin = cwnd;
		}
	}
	/* t + RTT in ticks (now_us - epoch is wrap-safe, as the clock). */
	t = (u32)(((u64)(u32)(a->now_us - w->epoch) + a->rtt_us) >>
		  ABC_CUBIC_TICK_SHIFT);
	d = t > w->k ? t - w->k : w->k - t;
	delta = abc_cubic_delta(d, mss);
	target = t > w->k ? abc_add(w->origin, delta) :
			    abc_sub(w->origin, delta, 0);
	target = max(target, cwnd);
	target = min(target, abc_add(cwnd, cwnd / 2));
	/* < 2^29 x 2^30 on top of a sum below cwnd x mss < 2^46 */
	w->cubic_acc += (u64)(target - cwnd) * acked;
	abc_pay_mss(&cwnd, &w->cubic_acc, (u64)w->w_nonabc * mss, mss);

	/* Reno-friendly: W_est += alpha x acked x mss / cwnd (sec. 4.3). */
	alpha = w->w_est >= w->w_max ? ABC_CUBIC_SCALE : ABC_CUBIC_ALPHA;
	w->est_acc += (u64)acked * alpha;
	abc_pay_mss(&w->w_est, &w->est_acc, (u64)w->w_nonabc << 10, mss);

	w->w_nonabc = max(cwnd, w->w_est);
}

/*
 * Eq. 3 on w_abc, w <- w +- 1 + 1/w per packet: the additive part from
 * the window before this ACK, then + the accelerated bytes - the braked
 * ones, then the floor lo.  An ACK with any brake counts as a brake for
 * the legacy-ECN detector and, in legacy mode, cuts w_nonabc on the
 * round's first brake.
 */
static inline enum abc_event abc_feedback(struct abc_window *w,
					  const struct abc_ack *a, u32 lo)
{
	bool brake = a->ce > 0;
	enum abc_event ev;

	w->w_abc = abc_ai(w->w_abc, &w->abc_acc, a->acked, a->mss);
	if (brake) {
		u32 ce = min(a->ce, a->acked);
		u32 ce_pkts = min(a->ce_pkts, a->pkts);

		if (ce < a->acked)
			w->w_abc = abc_add(w->w_abc, a->acked - ce);
		w->w_abc = abc_sub(w->w_abc, ce, lo);
		w->accel += a->pkts - ce_pkts;
		w->brake += ce_pkts;
		w->rnd_brake = abc_inc16(w->rnd_brake);
		ev = ABC_EV_BRAKE;
	} else {
		w->w_abc = abc_add(w->w_abc, a->acked);
		w->accel += a->pkts;
		w->rnd_accel = abc_inc16(w->rnd_accel);
		ev = ABC_EV_ACCEL;
	}
	if (brake != !!w->last_ece)
		w->rnd_trans = abc_inc16(w->rnd_trans);
	w->last_ece = brake;

	if (brake && w->legacy && !w->rnd_cut) {
		abc_nonabc_cut(w, abc_window_bytes(w, true), a->mss);
		w->prior_w_nonabc = 0;	/* CE is not undone */
		w->rnd_cut = 1;
		ev = ABC_EV_LEGACY_CUT;
	}
	return ev;
}

/* w_nonabc: slow start up to ssthresh, then CUBIC; held in recovery. */
static inline void abc_nonabc_grow(struct abc_window *w,
				   const struct abc_ack *a)
{
	u32 acked = a->acked;

	if (a->recovery)
		return;
	if (w->w_nonabc < w->ssthresh) {
		u32 ss = min(acked, w->ssthresh - w->w_nonabc);

		w->w_nonabc = abc_add(w->w_nonabc, ss);
		acked -= ss;
	}
	if (acked && w->w_nonabc >= w->ssthresh)
		abc_cubic_ca(w, a, acked);
}

/*
 * The initial window below which the cap does not go, at most
 * ABC_WIN_MAX: no division for any real MSS (ABC_WIN_MAX / 10 bytes).
 */
static inline u32 abc_cap_min(u32 mss)
{
	if (mss <= ABC_WIN_MAX / ABC_CAP_MIN_PKTS)
		return ABC_CAP_MIN_PKTS * mss;
	return ABC_WIN_MAX / mss * mss;
}

/* Per ACK: Eq. 3 on w_abc, CUBIC on w_nonabc, then the 2 x in-flight cap. */
static inline enum abc_event abc_on_ack(struct abc_window *w,
					const struct abc_ack *a)
{
	u32 lo = abc_floor(a->mss);
	enum abc_event ev = ABC_EV_ACK;
	u32 cap;

	if (a->round_start)
		abc_round_end(w);
	if (!a->acked || !a->mss)
		return ABC_EV_NONE;
	/* Never divide by a window below the floor (zeroed state, MSS up). */
	w->w_abc = max(w->w_abc, lo);
	w->w_nonabc = max(w->w_nonabc, lo);

	if (a->ecn)
		ev = abc_feedback(w, a, lo);
	abc_nonabc_grow(w, a);

	/* sec. 4.1: neither window may exceed twice what is in flight. */
	cap = abc_add(a->inflight, a->inflight);
	cap = max(cap, abc_cap_min(a->mss));
	w->w_abc = max(min(w->w_abc, cap), lo);
	w->w_nonabc = max(min(w->w_nonabc, cap), lo);
	w->w_est = min(w->w_est, cap);
	return ev;
}

/*
 * Loss: fast recovery (rto false) cuts w_nonabc to beta x the window in
 * use, cwnd bytes; an RTO also restarts it from the floor in slow start.
 * cut false: already reduced for this episode (RTO during recovery).
 */
static inline enum abc_event abc_on_loss(struct abc_window *w, u32 cwnd,
					 u32 mss, bool rto, bool cut)
{
	if (!mss)
		return ABC_EV_NONE;
	if (cut)
		abc_nonabc_cut(w, cwnd, mss);
	if (rto) {
		w->w_nonabc = abc_floor(mss);
		w->epoch_on = 0;
		return ABC_EV_RTO;
	}
	return ABC_EV_LOSS;
}

/*
 * Sending restarts after an idle period: start a new CUBIC epoch, so
 * the idle time does not count as time spent growing toward W_max.
 */
static inline void abc_on_idle_restart(struct abc_window *w)
{
	w->epoch_on = 0;
}

/* The loss was spurious: restore w_nonabc, its threshold and W_max. */
static inline enum abc_event abc_on_undo(struct abc_window *w)
{
	if (!w->prior_w_nonabc)
		return ABC_EV_NONE;
	w->w_nonabc = max(w->w_nonabc, w->prior_w_nonabc);
	w->ssthresh = max(w->ssthresh, w->prior_ssthresh);
	w->w_max = w->prior_w_max;
	w->prior_w_nonabc = 0;
	w->epoch_on = 0;
	return ABC_EV_UNDO;
}

/*
 * The brakes among the @acked units (packets or bytes) one ACK delivers,
 * taken from a receiver's running count of brakes (AccECN's CE packet
 * counter, or its ECT(0) + CE byte counters): what the count says beyond
 * *@counted, up to @acked.  A count that runs ahead of the ACKs (an
 * update on an ACK that delivers less) is carried to the next ACKs, but
 * never more than @bound (what is in flight); a count behind *@counted
 * (data sent before the encoding changed, still to be reported) gives
 * none until it catches up.
 */
static inline u32 abc_brake_take(u32 *counted, u32 total, u32 acked,
				 u32 bound)
{
	s32 pending = (s32)(total - *counted);
	u32 take;

	if (pending <= 0)
		return 0;
	take = min_t(u32, pending, acked);
	if ((u32)pending - take > bound)
		*counted = total;
	else
		*counted += take;
	return take;
}

#endif /* _ABC_WINDOW_H */
