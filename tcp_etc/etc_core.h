/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The ETC control law (Han et al., "ETC: An Elastic Transmission Control
 * Using End-to-End Available Bandwidth Perception", USENIX ATC 2024).
 *
 * Pure integer and Q16 fixed-point code with no kernel dependency beyond
 * integer types and cc_fixedpoint.h: the module (tcp_etc.c) and the
 * userspace unit tests (tests/unit/test_etc_core.c) compile the same text.
 *
 * Units: rates in bytes per second (u64, so 100 Gbit/s and beyond fit),
 * times in microseconds (u32, compared with wrap-safe differences),
 * packet counts as the stack's tp->delivered (u32, wrap-safe).
 *
 * One call per ACK, etc_on_ack(), does all the bookkeeping of the paper:
 *  - micro-burst receipt rate (the pulling rate Rp, sec. 3.2): a burst is
 *    one TSO skb of N segments; the first ACK of a burst gives its RTT
 *    sample and opens it, the last ACK closes it; Rp over a round is the
 *    packets acknowledged after the first ACK of each burst over the time
 *    those ACKs took (Eq. 5's (N - 1) L / dt2, summed over the round's
 *    bursts so a single squeezed ACK pair cannot dominate);
 *  - the receiving rate r, an average over about 8 RTTs, and r_max with
 *    the 1.1x rules of the bandwidth-detection and stable stages;
 *  - once per RTT the rate update of Algorithm 1: increase by Eq. 1 when
 *    the RTT holds or falls or 8 RTTs passed, decrease to (s + r) / 2 and
 *    drain at eta x s for t_d (Eq. 2) when the RTT gradient passes the
 *    threshold, then hold for one RTT (sec. 3.4);
 *  - not in the paper: a round that loses heavily decreases the same way
 *    and caps in-flight data (ETC_HEAVY_LOSS_SHIFT); bursts that a
 *    shallow buffer cannot hold make N smaller (ETC_BURST_MIN).
 *
 * Times are u32 microseconds and wrap every 71.6 minutes, so a stored
 * time is only ever compared as an unsigned elapsed time against a
 * bounded length (a drain, a hold, the min RTT window): after an idle
 * period of any length such a test is at worst late by that length,
 * never by a wrap.  The glue calls etc_on_restart() when sending resumes
 * after idle: it ends a drain or hold and cuts the idle period out of
 * the round's time, so no round spans it either.
 *
 * App-limited rounds (the stack's rs->is_app_limited) measure the
 * application, not the path: as in tcp_bbr.c they may raise the model
 * of the path (r, r_max and through them the cwnd cap and the rate a
 * decrease moves towards) but never lower it.
 */
#ifndef _ETC_CORE_H
#define _ETC_CORE_H

#ifdef __KERNEL__
#include <linux/time64.h>
#include <net/tcp.h>
#endif

#include "cc_fixedpoint.h"

/* r is an EWMA over rounds with gain 1/2^3: about 8 RTTs of memory. */
#define ETC_RCV_EWMA_SHIFT	3
/* Force an increase after this many RTTs without a rate change (Alg. 1). */
#define ETC_FORCE_INC_ROUNDS	8
/*
 * A round of fewer than this many bursts has as few RTT samples (one per
 * burst): it decreases only on the second such round in a row above the
 * gradient threshold, or a single delayed first packet at a low rate
 * (start-up) would halve the rate.
 */
#define ETC_FEW_BURSTS		4
#define ETC_GRAD_CONFIRM_ROUNDS	2
/*
 * etc_queue_not_ours(): at most ETC_KEEP_MAX gradient trips in a row keep
 * the rate, and only while the last round received at least s less
 * s >> ETC_KEEP_RCV_SHIFT.  A lone flow whose drain fell short, still
 * sending above the bottleneck after the decrease, thus lets its queue
 * rise by a few thresholds at most.
 */
#define ETC_KEEP_MAX		3
#define ETC_KEEP_RCV_SHIFT	3
/* Detection -> stable after this many RTTs without a 1.1x rise in r. */
#define ETC_STABLE_ROUNDS	8
/* idle_rounds and stall_rounds saturate here (4 bits); both limits fit. */
#define ETC_ROUNDS_SAT		15
/*
 * Micro-bursts that the path cannot hold.  A burst of N reaches the
 * bottleneck at the sender's line rate; a drop-tail buffer of B packets
 * then loses about N - B - 1 of every burst, whatever the rate, and
 * without a queue that the RTT gradient can see.  A round that lost at
 * least a packet per two bursts (and ETC_HEAVY_LOSS_MIN) with no queue
 * seen halves N, down to ETC_BURST_MIN; 1 % random loss is far below
 * that.  ETC_BURST_GROW_ROUNDS rounds later N doubles again, up to the
 * burst parameter.  If the two rounds after that lose as much, the probe
 * failed: N halves again and their losses do not count as heavy (they
 * came from the probe, not the rate).  N >= 2 keeps Eq. 5's
 * (N - 1) L / dt: every burst still has a dispersion.
 */
#define ETC_BURST_MIN		2
#define ETC_BURST_SHIFT_MAX	4	/* 32 >> 4 = 2 */
#define ETC_BURST_GROW_ROUNDS	15
/*
 * The drain of Eq. 2 lasts at most this many min RTTs.  At eta = 0.3
 * four min RTTs drain 2.8 BDPs, more than the 1-2 BDP buffers a flow
 * fills in the rounds the gradient takes to trip, so the bound does
 * not cut a drain the paper would run.  It stops one driven by an
 * in-flight count that says nothing about the queue (lost packets not
 * yet marked, a rate near the floor): paced at eta x s, a longer drain
 * starves the ACK clock and the flow's own measurements.  A deeper
 * queue is drained in steps: the next round's gradient trips again.
 * The min RTT, not srtt: srtt includes the very queue being drained.
 */
#define ETC_DRAIN_MAX_RTTS	4
/* min RTT expires after 10 s, so a standing queue of others is learnt. */
#define ETC_MIN_RTT_WIN_US	(10 * USEC_PER_SEC)
/* The most Eq. 1's base is while detecting: e (sec. 3.2, A.5). */
#define ETC_ALPHA_DETECT	FP_E
/* 1.1 in Q16: "significant increase" of the receiving rate (sec. 3.2). */
#define ETC_RISE_Q16		72090U
/* r below 3/4 of r_max is "far from r_max": sample r_max again. */
#define ETC_FAR_NUM		3
#define ETC_FAR_DEN		4
/* Rp when bursts give a single ACK each: at least 1.25 x r_max (sec. 4.3). */
#define ETC_RP_FALLBACK_NUM	5
#define ETC_RP_FALLBACK_DEN	4
/*
 * At most doubling per round, slow start's pace.  Eq. 1 exceeds it only
 * while s < 18 % of Rp; a token-bucket shaper (tbf, HTB, a provider's
 * policer) passes whole bursts at line rate while its bucket is full, so
 * Rp can be 50x the shaped rate and an uncapped step overshoots by ln(50).
 */
#define ETC_MAX_STEP		2
/*
 * Heavy loss: a round that lost at least 3 packets and 1/32 of its
 * packets.  The paper has no loss rule; its RTT gradient sees a queue
 * grow but not one that a full drop-tail buffer pins (every round then
 * "holds" and Eq. 1 goes on raising s), nor a buffer shorter than the
 * threshold that the bursts overflow.  Such a round decreases and drains
 * as a gradient trip does, and caps in-flight data at 7/8 of what was in
 * flight.  While the cap limits the flow it grows by a packet per round
 * with loss or a queue, by an eighth without either.  With 1 % random
 * loss at most about 7 % of rounds are heavy (rounds near 100 packets);
 * the count of 3 keeps small rounds (a slowed flow) from tripping on one
 * random loss.
 */
#define ETC_HEAVY_LOSS_SHIFT	5
#define ETC_HEAVY_LOSS_MIN	3
#define ETC_HI_MD_SHIFT		3
/*
 * After a heavy round, this many rounds without an increase (Eq. 1 or
 * the periodic one); decreases still apply.  After the drain the RTT
 * holds, and Eq. 1 took s back over the rate that lost within a round
 * or two: over a shallow buffer that repeats the loss, and beside a
 * loss-based flow (CUBIC over half a BDP) each repeat costs that flow
 * its multiplicative decrease and ETC nothing.
 */
#define ETC_LOSS_QUIET_ROUNDS	8
/*
 * No handshake RTT (srtt_us still 0): assume a wide-area 100 ms, so the
 * initial rate of 10 packets per RTT errs low on a short path.
 */
#define ETC_RTT_DEFAULT_US	(100 * USEC_PER_MSEC)
/* Rates are kept below 2^44 bytes/s (~140 Tbit/s): products stay in u64. */
#define ETC_MAX_RATE		BIT_ULL(44)

/*
 * The window law (tcp_etc.rst, "The window law and the switch"; not in
 * the paper).  Once a round, w += (w x min RTT / RTT + alpha - w) / 2,
 * RTT the round's lowest (its mean counts delay noise as queue): at
 * equilibrium each flow keeps ETC_FAST_ALPHA packets queued, whatever
 * the number of flows, and flows with one min RTT get one share.  s is
 * 5/4 x w / min RTT and cwnd at most w plus ETC_FAST_CWND_EXTRA
 * packets, so the ACK clock, not the pacer, sets what is in flight.
 */
#define ETC_FAST_ALPHA		4
#define ETC_FAST_PACE_Q2	5	/* 5/4 */
#define ETC_FAST_CWND_EXTRA	8
/*
 * Probe drains: halve w for 5/2 min RTTs when the min RTT has not been
 * renewed for ETC_PROBE_EVERY_US (a sample within ETC_MIN_RTT_EPS_US of
 * it renews it), or join a drain that others started: the round's mean
 * RTT fell by ETC_PROBE_JOIN_US and the last probe is half that old.
 * Flows that drain together empty the queue, so a flow that joined
 * behind a standing queue learns the true min RTT (as BBR's ProbeRTT).
 * The margin spares a lone flow on 20 Mbit/s and more, whose alpha
 * packets queue for 2.4 ms or less, a probe every 4 s.
 */
#define ETC_MIN_RTT_EPS_US	2500
#define ETC_PROBE_EVERY_US	(4 * USEC_PER_SEC)
#define ETC_PROBE_JOIN_US	2000
#define ETC_PROBE_RTTS_Q1	5	/* 5/2 min RTTs */
/*
 * A queue the window law cannot drain is a loss-based flow's: a probe
 * whose lowest RTT stays above the base (the lowest min RTT over
 * ETC_BASE_WIN_US) by two gradient thresholds, or a round that loses
 * with its RTT there, switches the flow to the rate law above, put back
 * into its detection stage at the rate of the last probe periods.  It
 * comes back after ETC_BACK_ROUNDS rounds near the base in the stable
 * stage or on a drain of others; the count doubles with each return
 * within ETC_FLAP_US of the last, up to 2^ETC_FLAPS_MAX times.
 */
#define ETC_BASE_WIN_US		(60 * USEC_PER_SEC)
#define ETC_BACK_ROUNDS		2
#define ETC_FLAP_US		(10 * USEC_PER_SEC)
#define ETC_FLAPS_MAX		5
/*
 * The rate law's RTT mean must fall by ETC_BACK_FALL_US for "the flows
 * around it drained": start-up's noise, at a few ms, must not pass.
 */
#define ETC_BACK_FALL_US	3000
/*
 * Delay noise is not a queue the window law can hold: while the mean
 * RTT of a round stands above its lowest by more than ETC_NOISE_US
 * (1/8 EWMA), the rate law runs.  An equilibrium queue is flat over a
 * round; 12 ms of ACK-path jitter puts 10 ms between the two, 3 ms
 * about 7 ms on a 160 ms path, which the noise base below handles.
 */
#define ETC_NOISE_US		8500
#define ETC_NOISE_SHIFT		3
/*
 * Milder noise puts a round's lowest RTT above the min RTT (the noise's
 * extreme) by more than alpha packets queue for, so the law would read
 * it as queue and shrink w below the path's BDP.  A probe that halves w
 * takes the flow's own queue out of the RTT, not the noise: when the
 * lowest RTT of ETC_NOISE_PROBES probes in a row falls by less than half
 * its height above the min RTT (at least ETC_NOISE_QMIN_US), the law
 * takes the probe's lowest RTT for the min RTT; a later probe that comes
 * back within ETC_NOISE_TOL_US of it keeps that base, any other ends it.
 * Other flows' standing queue, which a probe may leave, seldom passes
 * twice in a row (tcp_etc.rst, "A noise base from the probes").
 */
#define ETC_NOISE_PROBES	2
#define ETC_NOISE_QMIN_US	500
#define ETC_NOISE_TOL_US	1000

enum etc_phase {
	ETC_CRUISE,	/* normal rate control */
	ETC_DRAIN,	/* pacing at eta x s for phase_us (Eq. 2) */
	ETC_HOLD,	/* rate unchanged for phase_us (one RTT) */
};

enum etc_stage {
	ETC_DETECT,	/* bandwidth-detection stage: Rp from the bursts */
	ETC_STABLE,	/* stable-convergence stage: Rp <= k x r_max */
};

/* What etc_on_ack() did, for tracing. */
enum etc_event {
	ETC_EV_NONE,
	ETC_EV_INCREASE,
	ETC_EV_DECREASE,	/* decrease without drain (in flight <= BDP) */
	ETC_EV_DRAIN,		/* decrease and drain started */
	ETC_EV_HOLD,		/* drain over, holding one RTT */
	ETC_EV_CRUISE,		/* hold over */
	ETC_EV_RTO,
	ETC_EV_LOSS,		/* heavy loss: decrease, cap in-flight data */
	ETC_EV_RESTART,		/* sending after idle ended a drain or hold */
	ETC_EV_KEEP,		/* RTT rose on a queue not ours: rate kept */
	ETC_EV_WINDOW,		/* the window law set the rate */
	ETC_EV_PROBE,		/* the window law drains to renew the min RTT */
	ETC_EV_COMPETE,		/* a loss-based flow's queue: the rate law */
};

/* Tunables, all validated by the module before they get here. */
struct etc_params {
	u32 alpha;	/* Q16, log base of Eq. 1, > 1 (default e) */
	u32 eta;	/* Q16, drain rate factor, 0 < eta < 1 (default 0.3) */
	u32 k;		/* Q16, stable stage Rp cap k x r_max, >= 1 */
	u32 grad;	/* Q16, RTT-gradient threshold as a fraction of min RTT */
	u32 grad_floor_us; /* the threshold's least value, us */
	u32 burst;	/* N, packets per micro-burst, >= 2 */
};

/* What one ACK tells the control law. */
struct etc_ack {
	u32 now_us;
	u32 burst_id;		/* identifies the newest acked burst (TSO skb) */
	u32 delivered;		/* packets delivered so far, after this ACK */
	u32 prior_delivered;	/* delivered when the newest acked packet left */
	u32 rtt_us;		/* RTT of the newest acked packet, 0 if none */
	u32 lost;		/* packets newly marked lost by this ACK */
	u64 inflight;		/* bytes in flight */
	u32 mss;
	bool valid;		/* newly delivered data, not a retransmission */
	bool app_limited;	/* acked data was sent while app-limited */
	bool cwnd_limited;	/* the stack's last window was cwnd-limited */
};

/*
 * The window law's state, allocated by the glue (no room is left in
 * ICSK_CA_PRIV_SIZE); a connection without it runs the rate law alone.
 */
struct etc_fast {
	u64 rtt_sum;		/* this round's first-packet RTTs, us */
	u64 peak[2];		/* highest r of the last and this probe period */
	u32 rtt_cnt;
	u32 w;			/* window, bytes; 0: take it from s */
	u32 cwnd;		/* w's cwnd cap, packets, per round, < 2^24 */
	u32 mean_us;		/* this round's mean RTT, 0: none */
	u32 prev_mean_us;	/* the last round's */
	u32 law_mean_us;	/* the last window-law round's */
	u32 base_us;		/* lowest min RTT over ETC_BASE_WIN_US, 0: none */
	u32 base_stamp;
	u32 probe_start;	/* start of the last probe */
	u32 probe_us;		/* its length */
	u32 probe_min_us;	/* lowest round RTT in it */
	u32 back_stamp;		/* last return to the window law */
	u32 spread_us;		/* EWMA of mean minus lowest round RTT */
	u32 pre_probe_us;	/* lowest RTT of the round before the probe */
	u32 noise_base_us;	/* the law's min RTT under noise, 0: none */
	u8 back_rounds;		/* rate-law rounds near the base, saturating */
	u8 flaps:3,		/* returns within ETC_FLAP_US of the last */
	   compete:1,		/* the rate law runs */
	   probing:1,
	   noisy:2;		/* probes in a row that left the RTT, <= 2 */
};

/* Per-connection state; must fit in ICSK_CA_PRIV_SIZE with the glue. */
struct etc_core {
	u64 rate;		/* s, bytes/s */
	u64 rcv;		/* receiving rate r (about 8 RTTs), bytes/s */
	u64 rcv_max;		/* r_max, bytes/s */
	struct etc_fast *fast;	/* the window law's state, NULL: none */
	u32 rp32;		/* pulling rate Rp, etc_rate32_pack()ed */
	u32 rcv_now32;		/* receiving rate of the last round, packed */
	u32 min_rtt_us;		/* min of first-packet RTTs, ETC_NO_RTT if none */
	u32 min_rtt_stamp;	/* when min_rtt_us was taken */
	u32 rtt_round_us;	/* min first-packet RTT this round */
	/*
	 * CRUISE: the reference for the RTT gradient, 0: unset.  DRAIN and
	 * HOLD use none (the RTT after them becomes the new one) and keep
	 * the length of the phase here instead.
	 */
	union {
		u32 rtt_ref_us;
		u32 phase_us;
	};
	u32 round_start_us;
	u32 round_dlv;		/* delivered when this round started */
	u32 burst_id;
	/*
	 * First and last ACK time of the open burst; burst_t1 is also the
	 * round's last activity (the last valid ACK, etc_core_init() or
	 * etc_on_restart()).
	 */
	u32 burst_t0;
	u32 burst_t1;
	u32 burst_d0;		/* delivered at its first ACK */
	u16 rp_pkts;		/* this round: packets and time of closed bursts */
	u16 rp_queue;		/* Rp of the last round behind a queue, packed */
	u32 rp_us;
	u32 phase_start_us;	/* DRAIN, HOLD: when the phase began */
	u32 inflight_hi;	/* in-flight cap after heavy loss, packets, 0: none */
	u16 burst_pkts:9,	/* delivered since its first ACK, saturating */
	    loss_quiet:4,	/* rounds left without increase, heavy loss */
	    raised:1,		/* the rate rose since the last decrease */
	    keeps:2;		/* ETC_EV_KEEPs since the last decrease */
	u16 round_lost;		/* packets marked lost this round, saturating */
	u8 idle_rounds:4,	/* rounds without a rate change, saturating */
	   stall_rounds:4;	/* rounds without a 1.1x rise in r, saturating */
	u8 burst_shift:3,	/* N is p->burst >> this, see etc_burst_size() */
	   burst_probe:1,	/* the last round doubled the burst size */
	   burst_rounds:4;	/* rounds since the burst size last changed */
	u8 single_bursts;	/* bursts closed with one ACK this round */
	u8 phase:2,		/* enum etc_phase */
	   stage:1,		/* enum etc_stage */
	   grad_rounds:2,	/* rounds in a row above the gradient threshold */
	   burst_acks:2,	/* ACKs of the open burst, saturating; 0: none */
	   round_app_limited:1; /* an ACK of this round was app-limited */
};

#define ETC_BURST_ACKS_MAX	3
#define ETC_BURST_PKTS_MAX	0x1ff

#define ETC_NO_RTT	U32_MAX

/*
 * A rate as a mantissa of @bits bits under a 5-bit shift: exact below
 * 2^@bits bytes/s, 2^-(@bits - 1) apart above; all ones when it does not
 * fit.
 */
#define ETC_PACK_SHIFT_BITS	5
#define ETC_PACK_SHIFT_MAX	31

static inline u32 etc_pack(u64 r, u32 bits)
{
	u32 n = fls64(r), sh = n > bits ? n - bits : 0;

	if (sh > ETC_PACK_SHIFT_MAX)
		return (u32)(BIT_ULL(bits + ETC_PACK_SHIFT_BITS) - 1);
	return sh << bits | (u32)(r >> sh);
}

static inline u64 etc_unpack(u32 v, u32 bits)
{
	return (u64)(v & (BIT(bits) - 1)) << (v >> bits);
}

/*
 * Rp and the last round's r in 32 bits each, so the window law's pointer
 * fits: a 27-bit mantissa, exact below 2^27 bytes/s (1 Gbit/s), up to
 * 2^58 bytes/s.
 */
#define ETC_R32_MANT_BITS	27

static inline u32 etc_rate32_pack(u64 r)
{
	return etc_pack(r, ETC_R32_MANT_BITS);
}

static inline u64 etc_rate32_unpack(u32 v)
{
	return etc_unpack(v, ETC_R32_MANT_BITS);
}

static inline u64 etc_rp(const struct etc_core *e)
{
	return etc_rate32_unpack(e->rp32);
}

static inline u64 etc_rcv_now(const struct etc_core *e)
{
	return etc_rate32_unpack(e->rcv_now32);
}

static inline void etc_set_rp(struct etc_core *e, u64 r)
{
	e->rp32 = etc_rate32_pack(r);
}

static inline void etc_set_rcv_now(struct etc_core *e, u64 r)
{
	e->rcv_now32 = etc_rate32_pack(r);
}

/* bytes * 10^6 / us, saturating; 0 when us is 0. */
static inline u64 etc_bytes_per_sec(u64 bytes, u32 us)
{
	if (!us)
		return 0;
	if (bytes > U64_MAX / USEC_PER_SEC)
		return ETC_MAX_RATE;
	bytes = div_u64(bytes * USEC_PER_SEC, us);
	return bytes > ETC_MAX_RATE ? ETC_MAX_RATE : bytes;
}

/* rate x us / 10^6: bytes sent at @rate in @us. */
static inline u64 etc_rate_bytes(u64 rate, u32 us)
{
	return div_u64(rate * us, USEC_PER_SEC);
}

/**
 * etc_gain() - The elastic multiplier of Eq. 1.
 * @rp: pulling rate
 * @s: sending rate, > 0
 * @alpha: log base, Q16, > FP_ONE
 *
 * Return: f(Rp, s) = log_alpha(Rp / s + alpha - 1) in Q16, never below
 * FP_ONE: Eq. 1 only ever increases (a rate above Rp is left alone; the
 * RTT gradient, not Eq. 1, brings it down).
 */
static inline u64 etc_gain(u64 rp, u64 s, u32 alpha)
{
	u64 x;
	s64 f;

	if (!s || rp <= s)
		return FP_ONE;
	x = fp_div(rp, s);
	if (x > FP_DIV_SAT - alpha)
		x = FP_DIV_SAT - alpha;
	x += alpha - FP_ONE;
	f = fp_log_base(x, alpha);
	return f > (s64)FP_ONE ? (u64)f : FP_ONE;
}

/* Eq. 1: s x f(Rp, s), capped at Rp (f is concave, but rounding is not). */
static inline u64 etc_increase(u64 s, u64 rp, u32 alpha)
{
	u64 n = fp_mul(s, etc_gain(rp, s, alpha));

	if (n > rp)
		n = rp > s ? rp : s;
	return n > ETC_MAX_RATE ? ETC_MAX_RATE : n;
}

/* Sec. 3.4: s = r + (s - r) / 2; never an increase. */
static inline u64 etc_decrease(u64 s, u64 r)
{
	if (r >= s)
		return s;
	return r + ((s - r) >> 1);
}

/**
 * etc_drain_us() - Queue drain time t_d of Eq. 2.
 * @inflight: bytes in flight
 * @s: new sending rate, bytes/s
 * @min_rtt_us: minimum RTT
 * @eta: drain rate factor, Q16, below FP_ONE
 *
 * Return: (inflight - s x RTT_min) / ((1 - eta) x s) in microseconds, 0
 * when nothing exceeds the BDP or there is no min RTT yet, at most
 * ETC_DRAIN_MAX_RTTS min RTTs.
 */
static inline u32 etc_drain_us(u64 inflight, u64 s, u32 min_rtt_us, u32 eta)
{
	u64 max = (u64)min_rtt_us * ETC_DRAIN_MAX_RTTS;
	u64 bdp, den, t;

	if (min_rtt_us == ETC_NO_RTT || !s || eta >= FP_ONE)
		return 0;
	if (max > U32_MAX)
		max = U32_MAX;
	bdp = etc_rate_bytes(s, min_rtt_us);
	if (inflight <= bdp)
		return 0;
	den = fp_mul(s, FP_ONE - eta);	/* bytes/s drained */
	inflight -= bdp;
	if (!den || inflight > U64_MAX / USEC_PER_SEC)
		return (u32)max;
	t = div64_u64(inflight * USEC_PER_SEC, den);
	return t > max ? (u32)max : (u32)t;
}

/*
 * Eq. 5, the pulling rate a micro-burst sent at @rb sees on a link of
 * capacity @cl carrying cross traffic @rc: C_L / (R_c / R_b + 1).  Not used
 * by the control law (which measures Rp); the unit tests check the model's
 * bounds, ABW <= Rp <= C_L.
 */
static inline u64 etc_model_rp(u64 cl, u64 rc, u64 rb)
{
	if (!rb && !rc)
		return cl;
	/* C_L x R_b / (R_c + R_b), via Q16 to stay in 64 bits */
	return fp_mul(cl, fp_div(rb, rb + rc));
}

/**
 * etc_burst_size() - Packets per micro-burst now.
 * @e: state
 * @p: parameters (p->burst >= ETC_BURST_MIN)
 *
 * Return: p->burst halved burst_shift times, at least ETC_BURST_MIN.
 * The glue's min_tso_segs; on every ACK, mostly with no shift.
 */
static inline u32 etc_burst_size(const struct etc_core *e,
				 const struct etc_params *p)
{
	u32 n;

	if (likely(!e->burst_shift))
		return p->burst;
	n = p->burst >> e->burst_shift;
	return n > ETC_BURST_MIN ? n : ETC_BURST_MIN;
}

/* The time etc_floor_rate() sends a burst in: the min RTT, or a second. */
static inline u32 etc_floor_us(const struct etc_core *e)
{
	if (e->min_rtt_us == ETC_NO_RTT)
		return USEC_PER_SEC;
	return e->min_rtt_us ? e->min_rtt_us : 1;
}

/*
 * Lowest rate: one burst per min RTT, so ACKs keep coming; one per second
 * until an RTT is known.
 */
static inline u64 etc_floor_rate(const struct etc_core *e,
				 const struct etc_params *p, u32 mss)
{
	return etc_bytes_per_sec((u64)etc_burst_size(e, p) * mss,
				 etc_floor_us(e));
}

/*
 * Keep s at or above etc_floor_rate().  This runs on every ACK, and s is
 * mostly far above the floor: (s + 1) x us > bytes x 10^6 says so without
 * dividing.  A product that wraps can only fail that test (had it been
 * <= bytes x 10^6, it would not have wrapped), so it never lets a rate
 * below the floor through.
 */
static inline void etc_apply_floor(struct etc_core *e,
				   const struct etc_params *p, u32 mss)
{
	u64 bytes = (u64)etc_burst_size(e, p) * mss, floor;

	if (bytes <= U64_MAX / USEC_PER_SEC &&
	    (e->rate + 1) * etc_floor_us(e) > bytes * USEC_PER_SEC)
		return;
	floor = etc_floor_rate(e, p, mss);
	if (e->rate < floor)
		e->rate = floor;
}

/**
 * etc_core_init() - Start a connection at 10 packets per RTT (sec. 6.1).
 * @e: state
 * @f: the window law's state, or NULL to run the rate law alone
 * @mss: segment size
 * @rtt_us: handshake RTT, 0 if unknown (then ETC_RTT_DEFAULT_US)
 * @now_us: current time
 *
 * With @f the connection starts under the rate law and turns to the
 * window law after ETC_BACK_ROUNDS rounds near the base, in the stable
 * stage or on a fall of the mean RTT (see etc_fast_back()).
 */
static inline void etc_core_init(struct etc_core *e, struct etc_fast *f,
				 u32 mss, u32 rtt_us, u32 now_us)
{
	*e = (struct etc_core){ 0 };
	if (f) {
		*f = (struct etc_fast){ 0 };
		f->compete = 1;
		f->cwnd = 0xffffff;
		/* no probe and no return yet: both long ago */
		f->probe_start = now_us - ETC_PROBE_EVERY_US;
		f->back_stamp = now_us - ETC_FLAP_US;
		e->fast = f;
	}
	e->min_rtt_us = ETC_NO_RTT;
	e->rtt_round_us = ETC_NO_RTT;
	e->rate = etc_bytes_per_sec(10ULL * mss,
				    rtt_us ? rtt_us : ETC_RTT_DEFAULT_US);
	e->min_rtt_stamp = now_us;
	e->round_start_us = now_us;
	e->burst_t1 = now_us;
	e->phase = ETC_CRUISE;
	e->stage = ETC_DETECT;
}

/* Pacing rate the glue should use now. */
static inline u64 etc_pacing_rate(const struct etc_core *e,
				  const struct etc_params *p)
{
	if (e->phase == ETC_DRAIN)
		return fp_mul(e->rate, p->eta);
	return e->rate;
}

/* The glue frees what etc_core_init() was given, once. */
static inline struct etc_fast *etc_core_detach(struct etc_core *e)
{
	struct etc_fast *f = e->fast;

	e->fast = NULL;
	return f;
}

/*
 * Upper bound of etc_cwnd(): the in-flight cap of heavy loss and the
 * window law's, 2^24 - 1.
 */
static inline u32 etc_cwnd_cap(const struct etc_core *e)
{
	u32 cap = e->fast ? e->fast->cwnd : 0xffffff;

	if (e->inflight_hi && e->inflight_hi < cap)
		cap = e->inflight_hi;
	return cap;
}

/*
 * cwnd cap in packets: 2 x s x min RTT plus two bursts (sec. 4).  In the
 * detection stage s is also bounded by what the path delivered: Rp may
 * come from bursts a shaper's bucket let through at line rate, and a
 * round's RTT samples are of packets sent a round earlier, so a doubling
 * past the bottleneck is seen a round late.  Twice the delivery rate
 * still lets s double per round (r lags s by one round) but keeps the
 * overshoot's queue within about one BDP.
 *
 * The glue calls this on every ACK, but the cap only changes with s, the
 * RTT, r, the stage, the in-flight cap, the MSS or N: mostly once a
 * round.  @prev, the cwnd set on the previous ACK, is taken as a guess
 * and checked by two products: the packets from the BDP are
 * q = @prev - 2N exactly when
 *	ceil(q x mss / 2) x 10^6 <= s x rtt < ceil((q + 1) x mss / 2) x 10^6,
 * and above q when only the first holds, which settles the cwnd without
 * dividing when @prev was already at a cap.  There is no room for a
 * cache: struct etc_core fills ICSK_CA_PRIV_SIZE.  The result does not
 * depend on @prev (0: no guess); etc_cwnd() passes none.
 */
static inline u32 etc_cwnd_prev(const struct etc_core *e,
				const struct etc_params *p, u32 mss,
				u32 srtt_us, u32 prev)
{
	u32 rtt = e->min_rtt_us != ETC_NO_RTT ? e->min_rtt_us : srtt_us;
	u64 rate = e->rate, bdp, pkts, qm, dlv;
	u32 n = etc_burst_size(e, p);
	u32 cap = etc_cwnd_cap(e), q = prev - 2 * n;

	if (!mss)
		return 2 * n;
	if (!rtt)	/* no RTT yet: the initial window */
		return 10 + n;
	if (e->stage == ETC_DETECT) {
		dlv = max(e->rcv, etc_rcv_now(e));
		if (dlv && dlv < rate)
			rate = dlv;
	}
	bdp = rate * rtt;	/* 10^6 x etc_rate_bytes(rate, rtt) */
	/* no guess if it wrapped; q < 2^24, mss < 2^16: the products fit */
	if (q <= 0xffffff && mss <= U16_MAX) {
		qm = (u64)q * mss;
		if (((qm + 1) >> 1) * USEC_PER_SEC <= bdp) {
			if (bdp < ((qm + mss + 1) >> 1) * USEC_PER_SEC)
				return prev < cap ? prev : cap;
			if (prev >= cap)
				return cap;
		}
	}
	pkts = div_u64(2 * etc_rate_bytes(rate, rtt), mss) + 2 * n;
	return pkts < cap ? (u32)pkts : cap;
}

/* etc_cwnd_prev() without a guess. */
static inline u32 etc_cwnd(const struct etc_core *e,
			   const struct etc_params *p, u32 mss, u32 srtt_us)
{
	return etc_cwnd_prev(e, p, mss, srtt_us, 0);
}

/* Close the open burst: add its dispersion to the round's Rp sample. */
static inline void etc_close_burst(struct etc_core *e)
{
	u32 pkts = e->burst_pkts;
	u32 us = e->burst_t1 - e->burst_t0;

	if (e->burst_acks < 2 || !pkts || !us) {
		if (e->single_bursts < 255)
			e->single_bursts++;
		return;
	}
	/*
	 * Not a micro-burst any more if its ACKs span more than a min RTT
	 * (a stall or loss recovery in between): not a receipt rate.
	 */
	if (e->min_rtt_us != ETC_NO_RTT && us > e->min_rtt_us)
		return;
	if (e->rp_pkts > U16_MAX - pkts || e->rp_us > U32_MAX - us)
		return;		/* enough of a sample for one round */
	e->rp_pkts += pkts;
	e->rp_us += us;
}

/* Track the micro-burst the ACK belongs to; true on its first ACK. */
static inline bool etc_track_burst(struct etc_core *e, const struct etc_ack *a)
{
	if (e->burst_acks && a->burst_id == e->burst_id) {
		u32 pkts = a->delivered - e->burst_d0;

		e->burst_t1 = a->now_us;
		e->burst_pkts = pkts > ETC_BURST_PKTS_MAX ? ETC_BURST_PKTS_MAX :
				pkts;
		if (e->burst_acks < ETC_BURST_ACKS_MAX)
			e->burst_acks++;
		return false;
	}
	if (e->burst_acks)
		etc_close_burst(e);
	e->burst_id = a->burst_id;
	e->burst_t0 = a->now_us;
	e->burst_t1 = a->now_us;
	e->burst_d0 = a->delivered;
	e->burst_pkts = 0;
	e->burst_acks = 1;
	return true;
}

/*
 * The min RTT expires after ETC_MIN_RTT_WIN_US; an unsigned elapsed time
 * keeps it at most one window longer after idle periods near a multiple
 * of the clock's 71.6 minutes.  Under the window law a sample within
 * ETC_MIN_RTT_EPS_US of it renews it: a few packets queued are the law's
 * equilibrium, not a reason to probe.  Each first-packet RTT also goes
 * into the round's mean, the window law's queue estimate.
 */
static inline void etc_rtt_sample(struct etc_core *e, u32 rtt, u32 now)
{
	struct etc_fast *f = e->fast;

	if (!rtt)
		return;
	if (rtt < e->rtt_round_us)
		e->rtt_round_us = rtt;
	if (f) {
		f->rtt_sum += rtt;
		f->rtt_cnt++;
		if (e->min_rtt_us != ETC_NO_RTT && rtt > e->min_rtt_us &&
		    rtt - e->min_rtt_us <= ETC_MIN_RTT_EPS_US)
			e->min_rtt_stamp = now;
	}
	if (rtt <= e->min_rtt_us ||
	    now - e->min_rtt_stamp > ETC_MIN_RTT_WIN_US) {
		e->min_rtt_us = rtt;
		e->min_rtt_stamp = now;
	}
}

/*
 * Did the round show spare bandwidth in the stable stage?  There Rp, and
 * so s, stays below k x r_max, and r, an average over 8 rounds, creeps
 * up to it: with k at or below the 1.1 of a "significant" rise, r never
 * passes the rise test, and a path whose capacity grew is left unused.
 * A round that delivered more than halfway from r_max to the cap without
 * a queue says the path took what the cap let through.
 */
static inline bool etc_round_rise(const struct etc_core *e,
				  const struct etc_params *p, bool queue)
{
	if (e->stage != ETC_STABLE || queue || e->round_app_limited)
		return false;
	return fp_mul(e->rcv_max, (p->k >> 1) + BIT(15)) < etc_rcv_now(e);
}

/*
 * r_max and the stage rules of sec. 3.2, once per round.  An app-limited
 * round only counts as a rise: its r says how much the application sent,
 * not that the path has less to give, nor that r has stopped rising
 * (tcp_bbr.c does not count such rounds towards its full bandwidth
 * either).
 */
static inline void etc_update_stage(struct etc_core *e,
				    const struct etc_params *p, bool queue)
{
	bool rise = etc_round_rise(e, p, queue);

	if (!e->rcv_max || fp_mul(e->rcv_max, ETC_RISE_Q16) < e->rcv || rise) {
		/*
		 * sharp rise: spare bandwidth, back to detection.  A round's
		 * rise is what the path carries now, and r_max takes it: r
		 * lags it, and an r_max of r stays below the link, where any
		 * round a little above it passes the test again.
		 */
		e->rcv_max = rise ? max(etc_rcv_now(e), e->rcv) : e->rcv;
		e->stage = ETC_DETECT;
		e->stall_rounds = 0;
		return;
	}
	if (e->round_app_limited)
		return;
	if (e->rcv * ETC_FAR_DEN < e->rcv_max * ETC_FAR_NUM) {
		/* far below r_max: fewer resources now, sample it again */
		e->rcv_max = e->rcv;
		e->stall_rounds = 0;
		return;
	}
	if (e->stall_rounds < ETC_ROUNDS_SAT)
		e->stall_rounds++;
	if (e->stall_rounds >= ETC_STABLE_ROUNDS)
		e->stage = ETC_STABLE;
}

/*
 * The gradient threshold in us: grad x min RTT, but not below the floor.
 * On a path of a few ms, a tenth of the min RTT is within what the
 * hosts' own queueing (interrupt coalescing, softirq and GRO batching)
 * adds at no congestion, and each such rise would cost a decrease.
 */
static inline u32 etc_thresh_us(const struct etc_core *e,
				const struct etc_params *p)
{
	u32 t;

	if (e->min_rtt_us == ETC_NO_RTT)
		return U32_MAX;		/* no queue can be judged yet */
	t = fp_mul(e->min_rtt_us, p->grad);
	return max3(t, p->grad_floor_us, 1U);
}

/*
 * Is @rtt_us more than a gradient threshold above the min RTT?  It can be
 * below it: a min RTT that expired mid-round is the newest sample, not
 * the round's lowest, and a reference may predate the min RTT.
 */
static inline bool etc_above_thresh(const struct etc_core *e,
				    const struct etc_params *p, u32 rtt_us)
{
	if (rtt_us == ETC_NO_RTT || e->min_rtt_us == ETC_NO_RTT ||
	    rtt_us <= e->min_rtt_us)
		return false;
	return rtt_us - e->min_rtt_us > etc_thresh_us(e, p);
}

/* Is the round's RTT more than a gradient threshold above the min RTT? */
static inline bool etc_queue_seen(const struct etc_core *e,
				  const struct etc_params *p)
{
	return etc_above_thresh(e, p, e->rtt_round_us);
}

/*
 * Rp of a round of @pkts packets whose bursts each came back in one ACK.
 * The paper takes 1.25 x r_max; its receiver acks every burst's first
 * packet, a stock receiver does not.  Linux acks a burst once when it
 * arrives back to back, as a token bucket with tokens to spare passes it
 * while the path has no queue, so there one ACK is a sign of a fast pull,
 * not a slow one.  The ACK's RTT bounds it: a burst's packets left
 * together, so their spread at the receiver is at most that RTT's excess
 * over the min RTT, and Rp at least a burst less one packet over that
 * excess.  Only without a queue (an excess below the gradient threshold)
 * is the larger of the two taken: behind a queue the ACK may merge a
 * burst the queue has spread, and the bound is not about Rp any more.
 */
static inline u64 etc_single_ack_rp(const struct etc_core *e,
				    const struct etc_params *p, u32 mss,
				    u32 pkts)
{
	u64 rp = div64_u64(e->rcv_max * ETC_RP_FALLBACK_NUM,
			   ETC_RP_FALLBACK_DEN);
	u32 per_burst = pkts / e->single_bursts, spread;
	u64 bound;

	/*
	 * One-segment skbs (no GSO) are paced apart, not sent together; a
	 * delayed ACK covers two of them.  Their rounds say nothing about a
	 * spread.
	 */
	if (per_burst < 3 || e->rtt_round_us == ETC_NO_RTT ||
	    e->min_rtt_us == ETC_NO_RTT)
		return rp;
	spread = e->rtt_round_us > e->min_rtt_us ?
		 e->rtt_round_us - e->min_rtt_us : 1;
	if (spread > etc_thresh_us(e, p))
		return rp;
	bound = etc_bytes_per_sec((u64)(per_burst - 1) * mss, spread);
	return bound > rp ? bound : rp;
}

/*
 * A rate in 16 bits: an 11-bit mantissa, 0.1 % apart, up to 2^42
 * bytes/s.  The state is at ICSK_CA_PRIV_SIZE; a bound on a cap needs no
 * more precision.
 */
#define ETC_PACK_MANT_BITS	11

static inline u16 etc_rate_pack(u64 r)
{
	return (u16)etc_pack(r, ETC_PACK_MANT_BITS);
}

static inline u64 etc_rate_unpack(u16 v)
{
	return etc_unpack(v, ETC_PACK_MANT_BITS);
}

/* The round's pulling rate: burst dispersion, corrected by r_max. */
static inline void etc_update_rp(struct etc_core *e,
				 const struct etc_params *p, u32 mss, u32 pkts)
{
	bool queue = etc_queue_seen(e, p);
	u64 rp = 0;

	if (e->rp_us)
		rp = etc_bytes_per_sec((u64)e->rp_pkts * mss, e->rp_us);
	else if (e->single_bursts)
		rp = etc_single_ack_rp(e, p, mss, pkts);
	else
		return;		/* nothing measured: keep the last Rp */
	if (rp < e->rcv_max)
		rp = e->rcv_max;
	/*
	 * Behind a queue the bottleneck spaced the bursts, so Rp is the
	 * pulling rate of Eq. 5, alike for every flow there, and Eq. 1 then
	 * gives the smaller flow the larger step (sec. 5.3).  Capped at
	 * k x r_max each flow would step by the same f(k) and an unfair
	 * split would stay.  Without a queue a token bucket with tokens to
	 * spare may pass a burst at line rate, and the cap stands; but
	 * flows that drain in turn see a queue only in the rounds that
	 * decrease, so 3/4 of the last pulling rate behind a queue still
	 * bounds the cap from below and the smaller flow keeps its larger
	 * step between queues.
	 */
	if (queue)
		e->rp_queue = etc_rate_pack(rp);
	if (e->stage == ETC_STABLE && !queue) {
		u64 cap = fp_mul(e->rcv_max, p->k);
		u64 q = etc_rate_unpack(e->rp_queue);

		q -= q >> 2;
		if (cap < q)
			cap = q;

		if (rp > cap)
			rp = cap;
	}
	etc_set_rp(e, rp);
}

/*
 * RTT gradient: how far the round's RTT rose above the reference, in us,
 * for etc_thresh_us().  The reference is the RTT after the last decrease
 * (or the lowest since), so a queue that creeps up by less than the
 * threshold per round still trips it once it has grown by the threshold
 * in all.
 */
static inline s64 etc_gradient(const struct etc_core *e)
{
	if (!e->rtt_ref_us || e->rtt_round_us == ETC_NO_RTT)
		return 0;
	return (s64)e->rtt_round_us - (s64)e->rtt_ref_us;
}

/*
 * Would s x min RTT put more in flight than the cap of heavy loss?  By
 * products, once a round.
 */
static inline bool etc_rate_over_cap(const struct etc_core *e, u32 mss)
{
	u64 cap;

	if (e->min_rtt_us == ETC_NO_RTT || !e->inflight_hi ||
	    e->inflight_hi >= 0xffffff || mss > U16_MAX)
		return false;
	/* < 2^24 x 2^16 x 2^20: no wrap */
	cap = (u64)e->inflight_hi * mss * USEC_PER_SEC;
	/* a product of more than 64 bits is above it */
	if (fls64(e->rate) + fls64(e->min_rtt_us) > 64)
		return true;
	return e->rate * e->min_rtt_us >= cap;
}

/*
 * The in-flight cap of heavy loss, once per round: cut to 7/8 of what is
 * in flight; while in flight is within a burst of it, a packet more per
 * round with loss or a queue (several flows overflowing one buffer thus
 * back off and probe as AIMD does, which evens out their shares), an
 * eighth more without.  A round without either also grows it by a
 * packet when the stack says cwnd limited the flow (tp->is_cwnd_limited,
 * as BBRv2 grows inflight_hi) and s x min RTT is above the cap: a sender
 * that holds skbs back for TSO (tcp_tso_should_defer()) keeps in flight
 * up to a third of cwnd below it at every ACK, and a cap it never came
 * within a burst of held a lone flow at 40 % of the link.  Otherwise a
 * cap the flow does not reach stays, so a later overshoot (s far above r
 * after a stage change) is held to it.
 * An app-limited round has less in flight than the path holds, so, as
 * for BBRv2's inflight_hi, it cuts nothing, but it still counts as heavy.
 * Returns true on a heavy round.
 */
static inline bool etc_update_inflight_hi(struct etc_core *e,
					  const struct etc_params *p,
					  const struct etc_ack *a, u32 pkts)
{
	u64 sent = (u64)pkts + e->round_lost;
	u64 in = a->mss ? div_u64(a->inflight, a->mss) : 0;
	u32 inflight = in > U32_MAX ? U32_MAX : (u32)in;
	u32 n = etc_burst_size(e, p), floor = 2 * n, step;

	if (e->round_lost < ETC_HEAVY_LOSS_MIN ||
	    (u64)e->round_lost << ETC_HEAVY_LOSS_SHIFT < sent) {
		bool quiet = !e->round_lost && !etc_queue_seen(e, p);
		bool reached = (u64)inflight + n >= e->inflight_hi;

		if (!e->inflight_hi ||
		    !(reached || (quiet && a->cwnd_limited &&
				  etc_rate_over_cap(e, a->mss))))
			return false;
		step = 1;
		if (quiet && reached && e->inflight_hi >> ETC_HI_MD_SHIFT)
			step = e->inflight_hi >> ETC_HI_MD_SHIFT;
		e->inflight_hi = e->inflight_hi > U32_MAX - step ?
				 U32_MAX : e->inflight_hi + step;
		return false;
	}
	if (e->round_app_limited)
		return true;
	if (e->inflight_hi && e->inflight_hi < inflight)
		inflight = e->inflight_hi;
	inflight -= inflight >> ETC_HI_MD_SHIFT;
	e->inflight_hi = inflight > floor ? inflight : floor;
	return true;
}

/*
 * The burst size, once per round (see ETC_BURST_MIN).  Losses are noticed
 * a round after the packets left, so the two rounds after a change are
 * of bursts of the old size: after a halving they change nothing, after
 * a doubling they are the probe.  Returns true when the round's losses
 * are those of a failed probe.
 */
static inline bool etc_update_burst(struct etc_core *e,
				    const struct etc_params *p, u32 pkts)
{
	u64 sent = (u64)pkts + e->round_lost;
	u32 n = etc_burst_size(e, p);
	bool overflow = e->round_lost >= ETC_HEAVY_LOSS_MIN &&
			(u64)e->round_lost * n * 2 >= sent &&
			!etc_queue_seen(e, p);
	bool probe = e->burst_probe;

	if (e->burst_rounds < ETC_BURST_GROW_ROUNDS)
		e->burst_rounds++;
	if (overflow && e->burst_rounds <= 2 && !probe)
		return true;	/* bursts of before the last halving */
	if (e->burst_rounds >= 2)
		e->burst_probe = 0;
	if (overflow) {
		if (n > ETC_BURST_MIN && e->burst_shift < ETC_BURST_SHIFT_MAX)
			e->burst_shift++;
		e->burst_probe = 0;
		e->burst_rounds = 0;
		return probe;
	}
	if (e->burst_rounds >= ETC_BURST_GROW_ROUNDS && e->burst_shift) {
		e->burst_shift--;
		e->burst_probe = 1;
		e->burst_rounds = 0;
	}
	return false;
}

/*
 * Enter DRAIN or HOLD for @us from @now.  The gradient reference is unset
 * (the RTT after the phase becomes the new one), and its room holds the
 * phase's length.
 */
static inline void etc_start_phase(struct etc_core *e, enum etc_phase phase,
				   u32 now, u32 us)
{
	e->phase = phase;
	e->phase_start_us = now;
	e->phase_us = us;
}

/* Back to CRUISE: measure the gradient from here. */
static inline void etc_end_phase(struct etc_core *e)
{
	e->phase = ETC_CRUISE;
	e->rtt_ref_us = 0;
}

/* A round without a rate change. */
static inline void etc_count_idle(struct etc_core *e)
{
	if (e->idle_rounds < ETC_ROUNDS_SAT)
		e->idle_rounds++;
}

/*
 * Eq. 1, at most ETC_MAX_STEP times s.  Detection climbs to a measured
 * pulling rate with a base of at most e, the paper's, so a start-up is
 * as fast whatever alpha; alpha applies in the stable stage, where Rp is
 * k x r_max near the link and a larger one steps less into the queue.
 */
static inline enum etc_event etc_rate_increase(struct etc_core *e,
					       const struct etc_params *p)
{
	u32 alpha = e->stage == ETC_STABLE ? p->alpha :
		    min_t(u32, p->alpha, ETC_ALPHA_DETECT);
	u64 n = etc_increase(e->rate, etc_rp(e), alpha);

	if (n > e->rate * ETC_MAX_STEP)
		n = e->rate * ETC_MAX_STEP;
	e->idle_rounds = 0;
	e->grad_rounds = 0;
	if (n == e->rate)
		return ETC_EV_NONE;
	e->rate = n;
	e->raised = 1;
	return ETC_EV_INCREASE;
}

/*
 * Sec. 3.4: decrease to (s + r) / 2, then drain at eta x s for t_d
 * (Eq. 2), or hold one RTT when nothing exceeds the BDP.
 */
static inline enum etc_event etc_rate_decrease(struct etc_core *e,
					       const struct etc_params *p,
					       const struct etc_ack *a)
{
	u64 drain_base;
	u32 td;

	e->grad_rounds = 0;
	e->idle_rounds = 0;
	e->raised = 0;
	e->keeps = 0;
	/*
	 * "the current receiving rate": the last round's, not the 8-RTT
	 * average, which lags a capacity drop by several RTTs.
	 */
	e->rate = etc_decrease(e->rate, etc_rcv_now(e));
	etc_apply_floor(e, p, a->mss);
	/*
	 * Eq. 2 assumes the bottleneck drains at s; right after a capacity
	 * drop s is still above what it delivers, so use min(s, r) for both
	 * the BDP and the drain rate, or the drain stops too early.
	 */
	drain_base = etc_rcv_now(e);
	if (!drain_base || drain_base > e->rate)
		drain_base = e->rate;
	td = etc_drain_us(a->inflight, drain_base, e->min_rtt_us, p->eta);
	if (td) {
		etc_start_phase(e, ETC_DRAIN, a->now_us, td);
		return ETC_EV_DRAIN;
	}
	etc_start_phase(e, ETC_HOLD, a->now_us,
			e->min_rtt_us == ETC_NO_RTT ? 0 : e->min_rtt_us);
	return ETC_EV_DECREASE;
}

/*
 * Did another sender build the queue that tripped the gradient?  Yes when
 * this flow has not raised its rate since its last decrease, it receives
 * about what it sends (so it adds little to the queue), and the lowest RTT
 * since its last drain (the reference) stayed above the min RTT by more
 * than the threshold: its own drain did not empty the queue.  A
 * buffer-filling flow (CUBIC) grows such a queue by itself; decreasing
 * and draining on every rise of it hands that flow the bandwidth round
 * after round.  A lone flow's drain empties its queue, and a flow that raised its rate
 * may have caused the rise: both decrease as the paper does.
 */
static inline bool etc_queue_not_ours(const struct etc_core *e,
				      const struct etc_params *p)
{
	return !e->raised && e->keeps < ETC_KEEP_MAX &&
	       etc_rcv_now(e) >= e->rate - (e->rate >> ETC_KEEP_RCV_SHIFT) &&
	       etc_above_thresh(e, p, e->rtt_ref_us);
}

/*
 * The RTT gradient's verdict: increase while the RTT holds (within a
 * quarter of the threshold) or after ETC_FORCE_INC_ROUNDS without a
 * change, decrease above the threshold (confirmed by a second round when
 * the round had few bursts), else wait.  Above the threshold on a queue
 * that is not the flow's own, keep the rate and measure the gradient
 * from this round's RTT: the periodic increase and the heavy-loss rule
 * still apply, so the flow neither yields nor pushes the queue up.
 */
static inline enum etc_event etc_rate_gradient(struct etc_core *e,
					       const struct etc_params *p,
					       const struct etc_ack *a)
{
	s64 g = etc_gradient(e), t = etc_thresh_us(e, p);

	if (e->loss_quiet && g < t) {
		e->grad_rounds = 0;
		return ETC_EV_NONE;
	}
	if (4 * g < t || e->idle_rounds >= ETC_FORCE_INC_ROUNDS)
		return etc_rate_increase(e, p);
	if (g < t) {
		e->grad_rounds = 0;
		etc_count_idle(e);
		return ETC_EV_NONE;
	}
	if (etc_queue_not_ours(e, p)) {
		e->rtt_ref_us = e->rtt_round_us;
		e->grad_rounds = 0;
		e->keeps++;
		etc_count_idle(e);
		return ETC_EV_KEEP;
	}
	if (a->delivered - e->round_dlv < ETC_FEW_BURSTS * etc_burst_size(e, p) &&
	    ++e->grad_rounds < ETC_GRAD_CONFIRM_ROUNDS) {
		etc_count_idle(e);
		return ETC_EV_NONE;
	}
	return etc_rate_decrease(e, p, a);
}

/* Two gradient thresholds: how far above the base a queue is standing. */
static inline u64 etc_fast_eps(const struct etc_core *e,
			       const struct etc_params *p)
{
	return 2 * (u64)etc_thresh_us(e, p);
}

/* Is @rtt_us more than etc_fast_eps() above the base? */
static inline bool etc_above_base(const struct etc_core *e,
				  const struct etc_params *p, u32 rtt_us)
{
	return rtt_us > e->fast->base_us + etc_fast_eps(e, p);
}

/*
 * Pace @w bytes per min RTT (times 5/4), at least etc_floor_rate().  The
 * 5/4 leaves the ACK clock in charge, which takes a queue: on a path
 * whose RTT stays at the base while the heavy-loss cap holds in flight
 * below @w (a buffer of a packet or two), pace for the cap plus two
 * bursts instead, or every burst overflows the buffer.
 */
static inline void etc_fast_pace(struct etc_core *e,
				 const struct etc_params *p, u32 mss, u32 w)
{
	u64 r, hi = ((u64)e->inflight_hi + 2 * etc_burst_size(e, p)) * mss;

	if (e->inflight_hi && hi < w && e->rtt_round_us != ETC_NO_RTT &&
	    !etc_above_base(e, p, e->rtt_round_us))
		w = (u32)hi;
	r = div_u64((u64)w * USEC_PER_SEC, e->min_rtt_us);

	r = (r * ETC_FAST_PACE_Q2) >> 2;
	e->rate = r > ETC_MAX_RATE ? ETC_MAX_RATE : r;
	etc_apply_floor(e, p, mss);
}

/*
 * A loss-based flow holds the queue: switch to the rate law, back in its
 * detection stage from the highest r of the last two probe periods (the
 * window law may have shrunk s far below the flow's share while the
 * queue built), so it climbs with Eq. 1 and competes on loss.
 */
static inline enum etc_event etc_fast_compete(struct etc_core *e,
					      const struct etc_params *p,
					      const struct etc_ack *a)
{
	struct etc_fast *f = e->fast;
	u64 peak = max(f->peak[0], f->peak[1]);

	f->compete = 1;
	f->back_rounds = 0;
	f->w = 0;
	if (peak > e->rate)
		e->rate = peak;
	e->stage = ETC_DETECT;
	e->rcv_max = 0;
	e->keeps = 0;
	etc_rate_gradient(e, p, a);
	return ETC_EV_COMPETE;
}

/*
 * At the end of a probe: did halving w lower the round's lowest RTT, or
 * is its height above the min RTT @mn noise?  (See ETC_NOISE_PROBES.)
 */
static inline void etc_fast_noise(struct etc_fast *f, u32 mn)
{
	u32 old = f->noise_base_us, pre = f->pre_probe_us, low = f->probe_min_us;
	u32 fall;

	f->noise_base_us = 0;
	if (pre == ETC_NO_RTT || low == ETC_NO_RTT ||
	    pre <= mn + ETC_NOISE_QMIN_US)
		return;
	fall = pre > low ? pre - low : 0;
	if (2 * (u64)fall < pre - mn) {
		if (f->noisy < ETC_NOISE_PROBES)
			f->noisy++;
		if (f->noisy >= ETC_NOISE_PROBES)
			f->noise_base_us = max(low, mn);
	} else if (old && low <= old + ETC_NOISE_TOL_US) {
		f->noise_base_us = max(low, mn);
	} else {
		f->noisy = 0;
	}
}

/*
 * A round of the window law: FAST's update, a probe drain when one is
 * due, and the tests for a queue that is not the flows' equilibrium.
 * Only while the round's RTT is at or above the min RTT (see
 * etc_rate_update()).  Two divisions, once a round.
 */
static inline enum etc_event etc_fast_round(struct etc_core *e,
					    const struct etc_params *p,
					    const struct etc_ack *a)
{
	struct etc_fast *f = e->fast;
	u32 now = a->now_us, mn = e->min_rtt_us;
	u32 rtt = f->mean_us ? f->mean_us : e->rtt_round_us;
	u32 last = f->law_mean_us;
	u64 w, tw;

	if (unlikely(!rtt || !e->rtt_round_us))
		return etc_rate_gradient(e, p, a);
	if (!f->w) {
		w = fls64(e->rate) + fls64(rtt) > 64 ? U32_MAX :
		    etc_rate_bytes(e->rate, rtt);
		f->w = w > U32_MAX ? U32_MAX : (u32)w;
	}
	f->law_mean_us = rtt;
	if (f->probing) {
		if (e->rtt_round_us < f->probe_min_us)
			f->probe_min_us = e->rtt_round_us;
		if (now - f->probe_start < f->probe_us) {
			etc_fast_pace(e, p, a->mss, f->w >> 1);
			return ETC_EV_PROBE;
		}
		f->probing = 0;
		etc_fast_noise(f, mn);
		if (etc_above_base(e, p, f->probe_min_us))
			return etc_fast_compete(e, p, a);
	} else if (now - e->min_rtt_stamp > ETC_PROBE_EVERY_US ||
		   (last && rtt + ETC_PROBE_JOIN_US < last &&
		    now - f->probe_start > ETC_PROBE_EVERY_US / 2)) {
		f->probing = 1;
		f->peak[0] = f->peak[1];
		f->peak[1] = 0;
		f->probe_min_us = ETC_NO_RTT;
		f->pre_probe_us = e->rtt_round_us;
		f->probe_start = now;
		f->probe_us = (u32)(((u64)mn * ETC_PROBE_RTTS_Q1) >> 1);
		e->min_rtt_stamp = now;
		etc_fast_pace(e, p, a->mss, f->w >> 1);
		return ETC_EV_PROBE;
	}
	if ((e->round_lost && etc_above_base(e, p, e->rtt_round_us)) ||
	    f->spread_us > ETC_NOISE_US)
		return etc_fast_compete(e, p, a);
	w = f->w;
	if (f->noise_base_us > mn)
		mn = f->noise_base_us;
	tw = div_u64(w * mn, e->rtt_round_us) + (u64)ETC_FAST_ALPHA * a->mss;
	/* an app-limited round's RTTs say nothing of a larger window */
	if (tw > w && e->round_app_limited)
		tw = w;
	w = tw >= w ? w + ((tw - w) >> 1) : w - ((w - tw) >> 1);
	f->w = w > U32_MAX ? U32_MAX : (u32)w;
	etc_fast_pace(e, p, a->mss, f->w);
	return ETC_EV_WINDOW;
}

/*
 * Under the rate law, count the rounds near the base; return to the
 * window law after enough of them, once the rate law is stable (its
 * competitor left) or the flows around it drained (their window law
 * probes).
 */
static inline void etc_fast_back(struct etc_core *e,
				 const struct etc_params *p, u32 now)
{
	struct etc_fast *f = e->fast;
	bool drained;

	if (e->rtt_round_us != ETC_NO_RTT && e->min_rtt_us != ETC_NO_RTT &&
	    !etc_above_base(e, p, e->rtt_round_us) &&
	    f->spread_us <= ETC_NOISE_US) {
		if (f->back_rounds < U8_MAX)
			f->back_rounds++;
	} else {
		f->back_rounds = 0;
	}
	if (f->back_rounds < ETC_BACK_ROUNDS << min_t(u32, f->flaps,
						      ETC_FLAPS_MAX))
		return;
	drained = f->prev_mean_us && f->mean_us &&
		  f->mean_us + ETC_BACK_FALL_US < f->prev_mean_us;
	if (e->stage != ETC_STABLE && !drained)
		return;
	if (now - f->back_stamp < ETC_FLAP_US)
		f->flaps = min_t(u32, f->flaps + 1, ETC_FLAPS_MAX);
	else
		f->flaps = 0;
	f->back_stamp = now;
	f->compete = 0;
}

/*
 * The window law's round start: the mean RTT, the base and the peak r;
 * under the rate law, the test for a return.
 */
static inline void etc_fast_round_start(struct etc_core *e,
					const struct etc_params *p, u32 now)
{
	struct etc_fast *f = e->fast;

	f->mean_us = f->rtt_cnt ? (u32)div_u64(f->rtt_sum, f->rtt_cnt) : 0;
	if (f->mean_us && e->rtt_round_us != ETC_NO_RTT &&
	    f->mean_us >= e->rtt_round_us) {
		u32 d = f->mean_us - e->rtt_round_us;

		if (d >= f->spread_us)
			f->spread_us += (d - f->spread_us) >> ETC_NOISE_SHIFT;
		else
			f->spread_us -= (f->spread_us - d) >> ETC_NOISE_SHIFT;
	}
	if (e->min_rtt_us != ETC_NO_RTT &&
	    (!f->base_us || e->min_rtt_us <= f->base_us ||
	     now - f->base_stamp > ETC_BASE_WIN_US)) {
		f->base_us = e->min_rtt_us;
		f->base_stamp = now;
	}
	if (etc_rcv_now(e) > f->peak[1])
		f->peak[1] = etc_rcv_now(e);
	if (f->compete)
		etc_fast_back(e, p, now);
}

/* The window law's round end: w stays only while the law runs. */
static inline void etc_fast_round_end(struct etc_core *e, enum etc_event ev,
				      u32 mss)
{
	struct etc_fast *f = e->fast;
	u32 w;

	if (ev != ETC_EV_WINDOW && ev != ETC_EV_PROBE)
		f->w = 0;
	w = f->probing ? f->w >> 1 : f->w;
	f->cwnd = 0xffffff;
	if (f->w && mss && w / mss < 0xffffff - ETC_FAST_CWND_EXTRA)
		f->cwnd = w / mss + ETC_FAST_CWND_EXTRA;
	f->prev_mean_us = f->mean_us;
	f->rtt_sum = 0;
	f->rtt_cnt = 0;
}

/*
 * Algorithm 1, RateUpdate(), at the end of a round; @heavy: the round
 * lost heavily, which decreases and drains as a gradient trip does.
 * With the window law's state the law runs instead of the RTT gradient
 * (see etc_fast_round()).
 */
static inline enum etc_event etc_rate_update(struct etc_core *e,
					     const struct etc_params *p,
					     const struct etc_ack *a,
					     bool heavy)
{
	if (e->phase != ETC_CRUISE)
		return ETC_EV_NONE;
	if (!e->rtt_ref_us) {
		/* first round after a drain: only take the reference */
		if (e->rtt_round_us != ETC_NO_RTT)
			e->rtt_ref_us = e->rtt_round_us;
		return ETC_EV_NONE;
	}
	if (e->rtt_round_us < e->rtt_ref_us)
		e->rtt_ref_us = e->rtt_round_us;
	if (heavy)
		return etc_rate_decrease(e, p, a);
	if (e->fast && !e->fast->compete && e->rtt_round_us != ETC_NO_RTT &&
	    e->min_rtt_us != ETC_NO_RTT && e->rtt_round_us >= e->min_rtt_us)
		return etc_fast_round(e, p, a);
	return etc_rate_gradient(e, p, a);
}

/*
 * Drain and hold end on time, not on round boundaries.  The elapsed time
 * is unsigned: an ACK after any idle period ends the phase, or (had the
 * clock wrapped almost exactly) lets it run at most its length more.
 */
static inline enum etc_event etc_phase_timer(struct etc_core *e,
					     const struct etc_ack *a)
{
	if (e->phase == ETC_CRUISE ||
	    a->now_us - e->phase_start_us < e->phase_us)
		return ETC_EV_NONE;
	if (e->phase == ETC_DRAIN) {
		u32 rtt = e->rtt_round_us != ETC_NO_RTT ? e->rtt_round_us :
			  e->min_rtt_us;

		etc_start_phase(e, ETC_HOLD, a->now_us,
				rtt == ETC_NO_RTT ? 0 : rtt);
		return ETC_EV_HOLD;
	}
	etc_end_phase(e);
	return ETC_EV_CRUISE;
}

/* End of a round: receiving rate, stage, Rp, then the rate update. */
static inline enum etc_event etc_end_round(struct etc_core *e,
					   const struct etc_params *p,
					   const struct etc_ack *a)
{
	u32 us = a->now_us - e->round_start_us;
	u32 pkts = a->delivered - e->round_dlv;
	bool app = e->round_app_limited;
	enum etc_event ev;
	bool heavy;

	if (us && pkts) {
		u64 rr = etc_bytes_per_sec((u64)pkts * a->mss, us);

		if (!app || rr > etc_rcv_now(e))
			etc_set_rcv_now(e, rr);
		if (!e->rcv)
			e->rcv = rr;
		else if (rr >= e->rcv)
			e->rcv += (rr - e->rcv) >> ETC_RCV_EWMA_SHIFT;
		else if (!app)
			e->rcv -= (e->rcv - rr) >> ETC_RCV_EWMA_SHIFT;
		etc_update_stage(e, p, etc_queue_seen(e, p));
	}
	etc_update_rp(e, p, a->mss, pkts);
	heavy = !etc_update_burst(e, p, pkts) &&
		etc_update_inflight_hi(e, p, a, pkts);
	if (heavy)
		e->loss_quiet = ETC_LOSS_QUIET_ROUNDS;
	if (e->fast)
		etc_fast_round_start(e, p, a->now_us);
	ev = etc_rate_update(e, p, a, heavy);
	if (e->fast)
		etc_fast_round_end(e, ev, a->mss);
	if (heavy)
		ev = ETC_EV_LOSS;
	else if (e->loss_quiet)
		e->loss_quiet--;

	e->round_start_us = a->now_us;
	e->round_dlv = a->delivered;
	e->rtt_round_us = ETC_NO_RTT;
	e->rp_pkts = 0;
	e->rp_us = 0;
	e->single_bursts = 0;
	e->round_lost = 0;
	e->round_app_limited = 0;
	return ev;
}

/**
 * etc_on_ack() - Feed one ACK to the control law.
 * @e: state
 * @p: parameters
 * @a: what the ACK says
 *
 * Return: what changed, for tracing; the glue then reads
 * etc_pacing_rate() and etc_cwnd_prev().
 */
static inline enum etc_event etc_on_ack(struct etc_core *e,
					const struct etc_params *p,
					const struct etc_ack *a)
{
	enum etc_event ev = etc_phase_timer(e, a);

	if (a->lost > (u32)(U16_MAX - e->round_lost))
		e->round_lost = U16_MAX;
	else
		e->round_lost += a->lost;
	if (a->app_limited)
		e->round_app_limited = 1;
	if (!a->valid)
		return ev;
	/* RTT of the first packet of each micro-burst only (sec. 3.2) */
	if (etc_track_burst(e, a))
		etc_rtt_sample(e, a->rtt_us, a->now_us);

	/* A round ends when a packet sent after it began is delivered. */
	if (!after(e->round_dlv, a->prior_delivered) &&
	    after(a->delivered, e->round_dlv)) {
		enum etc_event r = etc_end_round(e, p, a);

		if (r != ETC_EV_NONE)
			ev = r;
	}
	etc_apply_floor(e, p, a->mss);
	return ev;
}

/**
 * etc_on_rto() - Retransmission timeout: the path is in trouble or changed.
 * @e: state
 * @p: parameters
 * @mss: segment size
 *
 * Halve the rate and the window law's w (not a collapse to a tiny
 * rate, nor below etc_floor_rate()), restart detection and let the
 * next round re-learn r_max and Rp.  The glue then reads
 * etc_pacing_rate().
 */
static inline void etc_on_rto(struct etc_core *e, const struct etc_params *p,
			      u32 mss)
{
	e->rate >>= 1;
	if (e->fast)
		e->fast->w >>= 1;
	e->raised = 0;
	e->keeps = 0;
	e->rcv_max = 0;
	e->rp_queue = 0;
	e->stage = ETC_DETECT;
	e->stall_rounds = 0;
	etc_end_phase(e);
	e->idle_rounds = 0;
	e->grad_rounds = 0;
	etc_apply_floor(e, p, mss);
}

/**
 * etc_on_restart() - Sending resumes after idle, with nothing in flight.
 * @e: state
 * @now_us: current time
 *
 * The glue calls this when the stack sends with nothing in flight after
 * the application ran out of data, and at an RTO's retransmission.  The
 * queue a drain or hold was for is gone: end the phase.  The open
 * micro-burst spans the gap: drop it.  The round goes on, but without
 * the gap (CUBIC shifts its epoch the same way): its time up to its last
 * ACK of new data is kept and the rest, which may have wrapped the
 * clock, is cut out, so its receiving rate is that of the data it sent.
 *
 * The rate, Rp, r, r_max and the min RTT stay, as BBR keeps its model
 * across idle: an idle sender learns nothing new about the path.  (The
 * paper has no idle periods.)  The data sent now is app-limited in the
 * stack's accounting, so it cannot lower that model either.
 *
 * Return: ETC_EV_RESTART if a drain or hold ended, else ETC_EV_NONE.
 */
static inline enum etc_event etc_on_restart(struct etc_core *e, u32 now_us)
{
	enum etc_event ev = ETC_EV_NONE;

	e->round_start_us = now_us - (e->burst_t1 - e->round_start_us);
	e->burst_t1 = now_us;
	e->burst_acks = 0;
	if (e->phase != ETC_CRUISE) {
		etc_end_phase(e);
		ev = ETC_EV_RESTART;
	}
	return ev;
}

#endif /* _ETC_CORE_H */
