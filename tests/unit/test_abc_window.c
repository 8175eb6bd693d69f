// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of tcp_abc/abc_window.h, the ABC sender's windows, in TAP.
 *
 *  - Eq. 3 sequences: all accelerates double the window per RTT, all
 *    brakes take one packet per ACK, f = 0.5 leaves only the +1 MSS per
 *    RTT, and a constant f < 0.5 settles at w = 1 / (1 - 2f) (sec. 3.1.3)
 *    with Algorithm 1's deterministic marking.
 *  - byte counting: stretch ACKs and odd byte counts count exactly.
 *  - the two windows: min(w_abc, w_nonabc), slow start on w_nonabc, the
 *    cut to 0.7 on loss, RTO restart, undo, brakes never touching
 *    w_nonabc, and the 2 x in-flight cap on both (sec. 4.1).
 *  - CUBIC on w_nonabc against RFC 9438's formulas in double: the cubic
 *    W(t) = C (t - K)^3 + W_max over time, the Reno-friendly region, fast
 *    convergence, the 1.5 x per RTT bound, K and C d^3 at the extremes.
 *  - the steps that replace per-ACK divisions (abc_pay_mss, abc_ai's
 *    single payment, abc_cap_min) against plain division, and growth of
 *    less than a byte per ACK summed rather than lost.
 *  - the legacy-ECN detector: interleaved marks never trip it, runs of
 *    marks do, once per round, and it recovers.
 *  - the non-ECN fallback, floors, overflow, and random ACKs (fuzz).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../tcp_abc/abc_window.h"
#include "unit_tap.h"

#define MSS	1448U
#define PK(n)	((u32)(n) * MSS)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The clock and RTT the ACKs carry (CUBIC's time). */
static u32 now_us;
static u32 rtt_us = 40000;

/* One ACK of pkts packets; inflight is the window in use (cwnd-limited). */
static enum abc_event ack(struct abc_window *w, u32 pkts, bool ece,
			  bool round_start)
{
	struct abc_ack a = {
		.acked = pkts * MSS,
		.pkts = pkts,
		.mss = MSS,
		.inflight = abc_window_bytes(w, true),
		.now_us = now_us,
		.rtt_us = rtt_us,
		.ce = ece ? pkts * MSS : 0,
		.ce_pkts = ece ? pkts : 0,
		.ecn = true,
		.round_start = round_start,
	};

	return abc_on_ack(w, &a);
}

/* A window whose w_nonabc never limits (slow start, no cap below w_abc). */
static void init_at(struct abc_window *w, u32 pkts)
{
	abc_window_init(w, pkts, MSS);
	w->w_nonabc = ABC_WIN_MAX;
}

/* One RTT of single-packet ACKs with ece[i] from fn, cwnd-limited. */
static void rtt_of(struct abc_window *w, bool (*fn)(u32 i, void *arg),
		   void *arg)
{
	u32 n = w->w_abc / MSS;
	u32 i;

	for (i = 0; i < n; i++)
		ack(w, 1, fn(i, arg), i == 0);
}

static bool all_accel(u32 i, void *arg)
{
	(void)i; (void)arg;
	return false;
}

/* Brake every other ACK, across round boundaries: f = 0.5 exactly. */
static bool alternate(u32 i, void *arg)
{
	static bool brake;

	(void)i; (void)arg;
	brake = !brake;
	return brake;
}

/* Algorithm 1: token += f; accelerate if token > 1 (then token -= 1). */
struct tb {
	double f, token, limit;
};

static bool tb_brake(u32 i, void *arg)
{
	struct tb *t = arg;

	(void)i;
	t->token += t->f;
	if (t->token > t->limit)
		t->token = t->limit;
	if (t->token > 1) {
		t->token -= 1;
		return false;
	}
	return true;
}

static void test_eq3(void)
{
	struct abc_window w;
	u32 i, start;

	abc_window_init(&w, 10, MSS);
	tap(w.w_abc == PK(10) && w.w_nonabc == PK(10) &&
	    w.ssthresh == ABC_SSTHRESH_INF, "init: both windows at the initial window, slow start",
	    "w_abc %u w_nonabc %u", w.w_abc, w.w_nonabc);

	/* All accelerates: +1 packet per ACK, the window doubles per RTT. */
	init_at(&w, 10);
	for (i = 0; i < 5; i++) {
		start = w.w_abc;
		rtt_of(&w, all_accel, NULL);
		if (w.w_abc < 2 * start || w.w_abc > 2 * start + MSS)
			break;
	}
	tap(i == 5 && w.w_abc >= PK(320),
	    "all accelerates: window doubles every RTT (+ at most 1 MSS of AI)",
	    "after %u RTTs: %u packets (from 10)", i, w.w_abc / MSS);

	/* All brakes: one packet less per ACK. */
	init_at(&w, 100);
	for (i = 0; i < 10; i++)
		ack(&w, 1, true, false);
	tap(w.w_abc == PK(90), "all brakes: -1 packet per brake ACK",
	    "100 -> %.2f packets after 10 brakes", (double)w.w_abc / MSS);
	for (i = 0; i < 200; i++)
		ack(&w, 1, true, false);
	tap(w.w_abc == PK(ABC_MIN_PKTS), "all brakes: floor of 2 packets",
	    "%u bytes", w.w_abc);

	/* f = 0.5: accelerates and brakes cancel, +1 MSS per RTT remains. */
	init_at(&w, 100);
	for (i = 0; i < 10; i++)
		rtt_of(&w, alternate, NULL);
	/* the AI's last MSS may fall just past the tenth round */
	tap(w.w_abc >= PK(109) && w.w_abc <= PK(110),
	    "f = 0.5: only the additive increase, +1 MSS per RTT",
	    "100 -> %.2f packets in 10 RTTs", (double)w.w_abc / MSS);
}

/* Steady state of Eq. 3 under Algorithm 1 marking: w = 1 / (1 - 2f). */
static void test_steady_state(void)
{
	static const double fs[] = { 0.3, 0.45, 0.475 };
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(fs); k++) {
		struct tb t = { .f = fs[k], .token = 0, .limit = 2 };
		double want = 1.0 / (1.0 - 2.0 * fs[k]), sum = 0;
		struct abc_window w;
		int r, n = 0;

		init_at(&w, 50);
		for (r = 0; r < 400; r++) {
			rtt_of(&w, tb_brake, &t);
			if (r >= 200) {
				sum += (double)w.w_abc / MSS;
				n++;
			}
		}
		sum /= n;
		/* the 2-packet floor lifts small windows; allow 1.5 packets */
		tap(sum > want - 1.5 && sum < want * 1.25 + 1.5,
		    "Eq. 3 steady state under Alg. 1 marking: w = 1/(1-2f)",
		    "f %.3f: mean w %.2f packets, 1/(1-2f) = %.2f", fs[k], sum, want);
	}
}

static void test_bytes(void)
{
	struct abc_window a, b;
	struct abc_ack x = { .mss = MSS, .ecn = true, .inflight = PK(1000) };
	u32 i;

	/* A stretch ACK of 4 packets counts as 4. */
	init_at(&a, 100);
	ack(&a, 4, false, false);
	tap(a.w_abc == PK(104), "stretch ACK: accelerate of 4 packets adds 4 MSS",
	    "%.2f packets", (double)a.w_abc / MSS);
	ack(&a, 4, true, false);
	tap(a.w_abc == PK(100), "stretch ACK: brake of 4 packets takes 4 MSS",
	    "%.2f packets", (double)a.w_abc / MSS);

	/* 25 stretch ACKs of 4 == 100 single ACKs (AI included). */
	init_at(&a, 100);
	init_at(&b, 100);
	for (i = 0; i < 100; i++)
		ack(&a, 1, i % 4 == 3, false);
	for (i = 0; i < 25; i++) {
		ack(&b, 3, false, false);
		ack(&b, 1, true, false);
	}
	tap(a.w_abc == b.w_abc, "byte counting: stretch and single ACKs give the same window",
	    "single %u, stretch %u bytes", a.w_abc, b.w_abc);

	/* Odd byte counts are exact: 3 x 500 bytes == 1500 bytes. */
	init_at(&a, 100);
	x.acked = 500;
	x.pkts = 1;
	for (i = 0; i < 3; i++)
		abc_on_ack(&a, &x);
	tap(a.w_abc == PK(100) + 1500, "byte counting: partial ACKs add their bytes",
	    "+%u bytes", a.w_abc - PK(100));

	/* AI is exact over many windows: 1 MSS per w_abc bytes acked. */
	init_at(&a, 50);
	x.acked = 100;
	x.pkts = 1;
	for (i = 0; i < 50 * MSS / 100 * 2; i++) {
		abc_on_ack(&a, &x);
		x.ce = x.ce ? 0 : x.acked;
	}
	tap(a.w_abc == PK(51), "additive increase with sub-MSS ACKs: 1 MSS per window acked",
	    "50 -> %.3f packets", (double)a.w_abc / MSS);
}

static void test_two_windows(void)
{
	struct abc_window w;
	struct abc_ack a = { .mss = MSS, .ecn = true };
	u32 i, th, cut;
	enum abc_event ev;

	/* w_nonabc: Reno slow start doubles per RTT, in bytes. */
	abc_window_init(&w, 10, MSS);
	w.w_abc = PK(1000);
	for (i = 0; i < 10; i++)
		ack(&w, 1, false, false);
	tap(w.w_nonabc == PK(20), "w_nonabc slow start: +1 packet per packet acked",
	    "10 -> %u packets", w.w_nonabc / MSS);

	/* Brakes never move w_nonabc or its threshold (not legacy). */
	th = w.ssthresh;
	w.w_abc = PK(200);
	w.w_nonabc = PK(20);
	for (i = 0; i < 100; i++)
		ack(&w, 1, i % 3 != 0, i % 20 == 0);
	tap(w.ssthresh == th && w.w_nonabc >= PK(20) && !w.legacy,
	    "brakes leave w_nonabc and ssthresh alone (ABC feedback is not loss)",
	    "w_nonabc %u packets, ssthresh %s", w.w_nonabc / MSS,
	    w.ssthresh == ABC_SSTHRESH_INF ? "inf" : "finite");
	tap(abc_window_bytes(&w, true) == (w.w_abc < w.w_nonabc ? w.w_abc : w.w_nonabc),
	    "the sender uses min(w_abc, w_nonabc)", "w_abc %u w_nonabc %u",
	    w.w_abc / MSS, w.w_nonabc / MSS);

	/* Loss: w_nonabc = 0.7 x cwnd (CUBIC's beta), W_max = cwnd. */
	abc_window_init(&w, 10, MSS);
	w.w_abc = PK(100);
	w.w_nonabc = PK(100);
	cut = PK(100) * 717ULL / 1024;
	ev = abc_on_loss(&w, PK(100), MSS, false, true);
	tap(ev == ABC_EV_LOSS && w.w_nonabc == cut && w.ssthresh == cut &&
	    w.w_max == PK(100) && abc_window_bytes(&w, true) == cut,
	    "loss cuts w_nonabc and the window in use to 0.7 x cwnd",
	    "w_nonabc %.2f packets", (double)w.w_nonabc / MSS);
	/* in MSS steps: the cubic's first comes after about 1.2 RTTs here */
	for (i = 0; i < 140; i++)
		ack(&w, 1, false, false);
	tap(w.w_nonabc >= cut + MSS, "w_nonabc grows again after the loss",
	    "70 -> %.2f packets in two RTTs", (double)w.w_nonabc / MSS);
	a.acked = MSS;
	a.pkts = 1;
	a.inflight = PK(71);
	a.recovery = true;
	th = w.w_nonabc;
	abc_on_ack(&w, &a);
	tap(w.w_nonabc == th, "w_nonabc does not grow in fast recovery", NULL);
	ev = abc_on_undo(&w);
	tap(ev == ABC_EV_UNDO && w.w_nonabc == PK(100) &&
	    w.ssthresh == ABC_SSTHRESH_INF && w.w_max == 0 && !w.epoch_on,
	    "undo restores w_nonabc, its threshold and W_max",
	    "w_nonabc %u packets, W_max %u", w.w_nonabc / MSS, w.w_max);
	tap(abc_on_undo(&w) == ABC_EV_NONE, "a second undo does nothing", NULL);

	/* RTO: cut once, restart from the floor in slow start. */
	abc_on_loss(&w, PK(100), MSS, true, true);
	tap(w.w_nonabc == PK(ABC_MIN_PKTS) && w.ssthresh == cut,
	    "RTO: w_nonabc restarts at the floor, ssthresh = 0.7 x cwnd",
	    "w_nonabc %u, ssthresh %.2f packets", w.w_nonabc / MSS,
	    (double)w.ssthresh / MSS);
	abc_on_loss(&w, PK(40), MSS, true, false);
	tap(w.ssthresh == cut, "RTO during recovery: no second cut",
	    "ssthresh %.2f packets", (double)w.ssthresh / MSS);
}

/*
 * Run w_nonabc alone (w_abc never limits) ACK-clocked for secs seconds:
 * one ACK per packet, a window's packets spread evenly over one RTT.
 * Stores the window in packets at the start of each round in win[],
 * with the time since the start in t[]; returns the number of rounds.
 */
static u32 run_cubic(struct abc_window *w, double secs, double *t, double *win,
		     u32 max)
{
	u32 start = now_us, r, i, n;

	for (r = 0; r < max && now_us - start < secs * 1e6; r++) {
		t[r] = (now_us - start) / 1e6;
		win[r] = (double)w->w_nonabc / MSS;
		n = w->w_nonabc / MSS;
		for (i = 0; i < n; i++) {
			w->w_abc = ABC_WIN_MAX;
			now_us += rtt_us / n;
			ack(w, 1, false, i == 0);
		}
	}
	return r;
}

/*
 * RFC 9438 in double, one RTT at a time: the cubic W(t) = C (t - K)^3 +
 * W_max and the Reno-friendly W_est (+alpha per RTT, +1 once it reaches
 * W_max); the window is the larger, bounded by 1.5 x per RTT.
 */
static void ref_cubic(double wmax, double w0, double rtt, u32 rounds,
		      double *win)
{
	double k = cbrt(wmax * 0.3 / 0.4), est = w0, w = w0, c;
	u32 r;

	for (r = 0; r < rounds; r++) {
		win[r] = w;
		c = 0.4 * pow((r + 1) * rtt - k, 3) + wmax;
		est += est >= wmax ? 1.0 : 3 * 0.3 / 1.7;
		if (c > 1.5 * w)
			c = 1.5 * w;
		w = c > est ? (c > w ? c : w) : est;
	}
}

/* A loss at wmax packets, then secs of run_cubic() and ref_cubic(). */
static u32 cubic_after_loss(u32 wmax, u32 rtt, double secs, double *t,
			    double *win, double *ref)
{
	struct abc_window w;
	u32 n;

	rtt_us = rtt;
	abc_window_init(&w, 10, MSS);
	w.w_nonabc = PK(wmax);
	abc_on_loss(&w, PK(wmax), MSS, false, true);
	n = run_cubic(&w, secs, t, win, 4096);
	ref_cubic(wmax, (double)w.ssthresh / MSS, rtt / 1e6, n, ref);
	return n;
}

static void test_cubic(void)
{
	static double t[4096], win[4096], ref[4096];
	double err, worst = 0, at = 0, k, dk, x;
	struct abc_window w;
	u32 n, r, i, th, bad;
	u64 v;

	/* From W_max = 100 packets, 100 ms RTT: concave, plateau, convex. */
	n = cubic_after_loss(100, 100000, 8.0, t, win, ref);
	for (r = 5; r < n; r++) {
		err = fabs(win[r] - ref[r]) / ref[r];
		if (err > worst) {
			worst = err;
			at = t[r];
		}
	}
	tap(n > 70 && worst < 0.03,
	    "CUBIC: w_nonabc follows RFC 9438's W(t) within 3% over 8 s after a loss",
	    "%u rounds, worst %.2f%% at %.1f s; 1 s: %.1f (ref %.1f), 4.2 s: %.1f, 8 s: %.1f (ref %.1f)",
	    n, 100 * worst, at, win[10], ref[10], win[42], win[n - 1], ref[n - 1]);
	k = cbrt(75.0);
	tap(win[(u32)(k * 10)] > 98 && win[(u32)(k * 10)] < 101.5 &&
	    win[10] - win[0] > win[(u32)(k * 10)] - win[(u32)(k * 10) - 10],
	    "CUBIC: concave up to the plateau at W_max = 100 at t = K = 4.2 s",
	    "first second +%.1f packets, the second before K +%.1f, at K %.1f",
	    win[10] - win[0], win[(u32)(k * 10)] - win[(u32)(k * 10) - 10],
	    win[(u32)(k * 10)]);

	/* Short RTT, small window: the Reno-friendly estimate governs. */
	n = cubic_after_loss(20, 10000, 1.0, t, win, ref);
	err = fabs(win[n - 1] - ref[n - 1]) / ref[n - 1];
	tap(err < 0.05 && win[n - 1] > 80,
	    "CUBIC: the Reno-friendly region at 10 ms RTT (cubic alone stays near 20)",
	    "after 1 s %.1f packets, reference %.1f", win[n - 1], ref[n - 1]);

	/* Fast convergence: a cut below the last W_max lowers the plateau. */
	abc_window_init(&w, 10, MSS);
	abc_on_loss(&w, PK(100), MSS, false, true);
	abc_on_loss(&w, PK(80), MSS, false, true);
	tap(w.w_max == PK(80) * 870ULL / 1024 && w.w_nonabc == PK(80) * 717ULL / 1024,
	    "CUBIC fast convergence: W_max = 0.85 x cwnd when cwnd < the last W_max",
	    "W_max %.1f, w_nonabc %.1f packets", (double)w.w_max / MSS,
	    (double)w.w_nonabc / MSS);

	/* After a long quiet time far past K, one RTT grows at most 1.5 x. */
	rtt_us = 40000;
	abc_window_init(&w, 10, MSS);
	abc_on_loss(&w, PK(100), MSS, false, true);
	run_cubic(&w, 0.1, t, win, 4096);
	now_us += 600000000;
	th = w.w_nonabc;
	run_cubic(&w, 0.04, t, win, 1);
	tap(w.w_nonabc <= th + th / 2 + MSS && w.w_nonabc > th + th / 4,
	    "CUBIC: far past K the window grows by at most 1.5 x per RTT",
	    "%.1f -> %.1f packets in one RTT", (double)th / MSS,
	    (double)w.w_nonabc / MSS);

	/* K and C d^3 against double over the whole range. */
	worst = 0;
	for (i = 0; i < 2000; i++) {
		u32 dw = (u32)(rnd64() % ABC_WIN_MAX) + 1;
		u32 mss = (u32)(rnd64() % 9000) + 500;

		k = cbrt(dw / (double)mss / 0.4) * 1e6 / 1024;
		dk = fabs(abc_cubic_k(dw, mss) - k);
		if (dk > 1 && dk / k > worst)
			worst = dk / k;
	}
	tap(worst < 0.001, "CUBIC: K = cbrt((W_max - W) / C) within 0.1% (or 1 tick)",
	    "worst %.2e", worst);
	worst = 0;
	for (i = 0; i < 2000; i++) {
		u32 d = (u32)(rnd64() % ABC_CUBIC_T_MAX) + 1;

		x = 0.4 * pow(d * 0.001024, 3) * MSS;
		if (x > ABC_WIN_MAX)
			x = ABC_WIN_MAX;
		err = fabs(abc_cubic_delta(d, MSS) - x);
		if (err > MSS && err / x > worst)
			worst = err / x;
	}
	tap(worst < 0.002, "CUBIC: C d^3 in bytes within 0.2% (or 1 MSS) up to 35 min",
	    "worst %.2e", worst);
	bad = 0;
	for (i = 0; i < 100000; i++) {
		u64 y;

		v = i < 64 ? 1ULL << i : rnd64() >> (rnd64() % 64);
		y = abc_cbrt(v);
		if (y * y * y > v || (y + 1 <= 2642245 && (y + 1) * (y + 1) * (y + 1) <= v))
			bad++;
	}
	v = U64_MAX;
	tap(!bad && abc_cbrt(v) == 2642245, "abc_cbrt is floor(cbrt(x)) for any u64",
	    "%u wrong", bad);

	/* A 1 GiB W_max at 1 s RTTs: no wrap, the window only grows. */
	rtt_us = 1000000;
	abc_window_init(&w, 10, MSS);
	abc_on_loss(&w, ABC_WIN_MAX, MSS, false, true);
	th = w.w_nonabc;
	bad = 0;
	for (i = 0; i < 200000; i++) {
		u32 before = w.w_nonabc;

		w.w_abc = ABC_WIN_MAX;
		now_us += 20000;
		ack(&w, 64, false, false);
		if (w.w_nonabc < before || w.w_nonabc > ABC_WIN_MAX)
			bad++;
	}
	tap(!bad && w.w_nonabc > th, "CUBIC at 1 GiB and 1 s RTT: monotone, bounded",
	    "%.0f -> %.0f packets", (double)th / MSS, (double)w.w_nonabc / MSS);
	rtt_us = 40000;
}

/* abc_ai() as it was with a division on every payment: the reference. */
static u32 ai_ref(u32 w, u32 *acc, u32 acked, u32 mss)
{
	u32 n;

	*acc = abc_add(*acc, acked);
	if (*acc < w)
		return w;
	n = *acc / w;
	*acc -= n * w;
	return abc_add(w, min(n, ABC_WIN_MAX / mss) * mss);
}

/*
 * The growth steps that replace the per-ACK divisions: exact against
 * plain division, and no growth lost to rounding.
 */
static void test_steps(void)
{
	struct abc_window w;
	u64 acc, sum, unit;
	u32 i, j, bad = 0, win, paid, cwnd, mss;

	/* abc_pay_mss: floor(sum / unit) MSS paid, the rest carried */
	for (i = 0; i < 20000; i++) {
		unit = rnd64() % 4 ? 1 + rnd64() % (1ULL << 46) : 1 + rnd64() % 5000;
		mss = 1 + (u32)(rnd64() % ABC_CUBIC_MSS_MAX);
		win = 0;
		acc = 0;
		sum = 0;
		for (j = 0; j < 50; j++) {
			u64 add = rnd64() % 8 ? rnd64() % (unit + unit / 2 + 1) :
				  rnd64() % (1ULL << 50);

			acc += add;
			sum += add;
			abc_pay_mss(&win, &acc, unit, mss);
		}
		paid = (u32)min_t(u64, sum / unit, ABC_WIN_MAX / mss) * mss;
		if (acc != sum % unit || (sum / unit < 2000 && win != paid) ||
		    win > ABC_WIN_MAX)
			bad++;
	}
	tap(!bad, "abc_pay_mss pays floor(sum / unit) MSS and carries the rest",
	    "%u of 20000 off", bad);

	/* abc_ai without its division on most payments: same as with it */
	bad = 0;
	for (i = 0; i < 1000000; i++) {
		u32 a1, a2, w0, acked, r1, r2;

		mss = i % 16 ? 1 + (u32)(rnd64() % 9000) : (u32)rnd64() | 1;
		w0 = 1 + (u32)(rnd64() % ABC_WIN_MAX);
		a1 = (u32)(rnd64() % (2ULL * w0 + 2));
		a2 = a1;
		acked = rnd64() % 4 ? (u32)(rnd64() % (w0 + 1)) : (u32)rnd64();
		r1 = abc_ai(w0, &a1, acked, mss);
		r2 = ai_ref(w0, &a2, acked, mss);
		bad += r1 != r2 || a1 != a2;
	}
	tap(!bad, "abc_ai: one window paid without a division, as with one",
	    "%u of 1000000 differ", bad);

	/* abc_cap_min: min(10, ABC_WIN_MAX / mss) MSS, for any MSS */
	bad = 0;
	for (i = 0; i < 1000000; i++) {
		mss = i < 65536 ? i + 1 : (u32)rnd64() | 1;
		if (i == 65536)
			mss = ABC_WIN_MAX / ABC_CAP_MIN_PKTS + 1;
		bad += abc_cap_min(mss) !=
		       min(ABC_CAP_MIN_PKTS, ABC_WIN_MAX / mss) * mss;
	}
	tap(!bad, "abc_cap_min: the initial window without a division", "%u differ",
	    bad);

	/*
	 * On the plateau, target - cwnd = 500 bytes at 1000 packets: 0.35
	 * bytes of growth per ACK.  Rounded per ACK that never grew; summed,
	 * one MSS comes after cwnd x MSS / 500 bytes acknowledged.
	 */
	cwnd = PK(1000);
	abc_window_init(&w, 10, MSS);
	w.w_nonabc = cwnd;
	w.ssthresh = cwnd;
	w.w_max = cwnd + 500;
	w.epoch_on = 1;
	w.epoch = now_us;
	w.k = rtt_us >> ABC_CUBIC_TICK_SHIFT;	/* t = K: target = origin */
	w.origin = cwnd + 500;
	w.w_est = PK(100);
	w.w_abc = ABC_WIN_MAX;
	j = (u32)((u64)cwnd * MSS / 500 / MSS);
	for (i = 0; i < j - 1; i++)
		ack(&w, 1, false, false);
	win = w.w_nonabc;
	ack(&w, 1, false, false);
	tap(win == cwnd && w.w_nonabc == cwnd + MSS,
	    "CUBIC: growth below a byte per ACK is summed, not lost to rounding",
	    "%u ACKs: +%u bytes, then +%u", j - 1, win - cwnd, w.w_nonabc - cwnd);
}

static void test_caps(void)
{
	struct abc_window w;
	struct abc_ack a = { .acked = MSS, .pkts = 1, .mss = MSS, .ecn = true };
	u32 i;

	/* Application-limited at 20 packets in flight: both capped at 40. */
	abc_window_init(&w, 10, MSS);
	a.inflight = PK(20);
	for (i = 0; i < 1000; i++)
		abc_on_ack(&w, &a);
	tap(w.w_abc == PK(40) && w.w_nonabc == PK(40),
	    "2 x in-flight caps both windows (sec. 4.1)",
	    "w_abc %u, w_nonabc %u packets at 20 in flight", w.w_abc / MSS,
	    w.w_nonabc / MSS);

	/* Nothing in flight: the cap does not go below the initial window. */
	a.inflight = 0;
	abc_on_ack(&w, &a);
	tap(w.w_abc == PK(ABC_CAP_MIN_PKTS) && w.w_nonabc == PK(ABC_CAP_MIN_PKTS),
	    "cap floor: the initial window", "w_abc %u packets", w.w_abc / MSS);

	/* Cap on the non-limiting window: it follows in-flight up at once. */
	abc_window_init(&w, 10, MSS);
	w.w_abc = PK(30);
	w.w_nonabc = PK(1000);
	ack(&w, 1, false, false);
	tap(w.w_nonabc == PK(60), "the larger window sits at 2 x in-flight",
	    "w_nonabc %u packets with 30 in flight", w.w_nonabc / MSS);
}

static void test_edges(void)
{
	struct abc_window w;
	struct abc_ack a = { .mss = MSS, .ecn = true, .inflight = ABC_WIN_MAX };
	u32 i;

	abc_window_init(&w, 10, MSS);
	tap(abc_on_ack(&w, &a) == ABC_EV_NONE && w.w_abc == PK(10),
	    "an ACK of nothing changes nothing", NULL);
	a.acked = MSS;
	a.mss = 0;
	tap(abc_on_ack(&w, &a) == ABC_EV_NONE && abc_on_loss(&w, 0, 0, true, true) ==
	    ABC_EV_NONE, "mss 0 is ignored, not a division by zero", NULL);

	/* Overflow: huge ACKs and windows saturate at ABC_WIN_MAX. */
	a.mss = 65535;
	a.acked = 0xffffffffU;
	a.pkts = 0xffffffffU;
	init_at(&w, 10);
	for (i = 0; i < 10; i++)
		abc_on_ack(&w, &a);
	tap(w.w_abc == ABC_WIN_MAX && w.w_nonabc == ABC_WIN_MAX,
	    "huge ACKs saturate at ABC_WIN_MAX, no wrap", "w_abc %u", w.w_abc);
	a.ce = a.acked;
	a.ce_pkts = a.pkts;
	abc_on_ack(&w, &a);
	tap(w.w_abc == 2U * 65535, "a huge brake floors at 2 packets", "w_abc %u", w.w_abc);

	/* Initial window larger than the maximum is clamped. */
	abc_window_init(&w, 0xffffffffU, 65535);
	tap(w.w_abc <= ABC_WIN_MAX && w.w_abc >= ABC_WIN_MAX - 65535,
	    "init with a huge window clamps", "w_abc %u", w.w_abc);
	abc_window_init(&w, 0, MSS);
	tap(w.w_abc == PK(ABC_MIN_PKTS), "init with a zero window uses the floor", NULL);
}

static void test_legacy(void)
{
	struct tb t = { .f = 0.5, .token = 0, .limit = 2 };
	struct abc_window w;
	u32 r, i, cuts = 0, max_legacy = 0;
	enum abc_event ev;

	/* Alg. 1 marking at f from 0.2 to 0.8: never legacy. */
	init_at(&w, 60);
	for (r = 0; r < 200; r++) {
		t.f = 0.2 + 0.6 * (r % 7) / 6.0;
		w.w_abc = PK(60);
		rtt_of(&w, tb_brake, &t);
		max_legacy |= w.legacy;
	}
	tap(!max_legacy && w.score == ABC_SCORE_MAX,
	    "legacy-ECN detector: interleaved (Alg. 1) marks are ABC", "score %d", w.score);

	/* A step marker: 40 accelerates then 20 brakes per round. */
	for (r = 0; r < 12; r++) {
		for (i = 0; i < 60; i++) {
			ev = ack(&w, 1, i >= 40, i == 0);
			cuts += ev == ABC_EV_LEGACY_CUT;
		}
	}
	tap(w.legacy && cuts >= 4 && cuts <= 12,
	    "runs of CE switch to legacy ECN: w_nonabc is cut at most once per round",
	    "legacy %u, %u cuts in 12 rounds, score %d", w.legacy, cuts, w.score);

	/* Back to interleaved marks: legacy mode ends. */
	for (r = 0; r < 12; r++) {
		w.w_abc = PK(60);
		rtt_of(&w, alternate, NULL);
	}
	tap(!w.legacy, "legacy mode ends when interleaved marks return", "score %d",
	    w.score);
}

/*
 * AccECN's counters split one ACK into braked and accelerated packets:
 * Eq. 3 per packet, so 4 packets with 1 brake are +3 - 1 = +2 MSS (plus
 * the additive part), the same as four ACKs of one packet each.
 */
static void test_partial(void)
{
	struct abc_window w, v;
	struct abc_ack a = { .acked = PK(4), .pkts = 4, .mss = MSS, .ce = PK(1),
			     .ce_pkts = 1, .inflight = PK(1000), .ecn = true };
	struct abc_ack one = { .acked = MSS, .pkts = 1, .mss = MSS,
			       .inflight = PK(1000), .ecn = true };
	enum abc_event ev;
	u32 i;

	init_at(&w, 100);
	init_at(&v, 100);
	ev = abc_on_ack(&w, &a);
	for (i = 0; i < 4; i++) {
		one.ce = i == 2 ? MSS : 0;
		one.ce_pkts = i == 2;
		abc_on_ack(&v, &one);
	}
	tap(w.w_abc == v.w_abc && w.w_abc / MSS == 102 && w.accel == 3 &&
	    w.brake == 1 && ev == ABC_EV_BRAKE,
	    "a 4-packet ACK with 1 brake (AccECN) is +3 -1 MSS, as 4 single ACKs",
	    "w_abc %u (singles %u) bytes, accel %u brake %u", w.w_abc, v.w_abc,
	    w.accel, w.brake);

	/* More brakes claimed than bytes acked count as a full brake. */
	init_at(&w, 100);
	a.ce = PK(9);
	a.ce_pkts = 9;
	abc_on_ack(&w, &a);
	tap(w.w_abc / MSS == 96 && w.brake == 4 && w.accel == 0,
	    "brakes beyond the ACK's packets are capped at the ACK",
	    "w_abc %u packets, brake %u", w.w_abc / MSS, w.brake);
}

static void test_noecn(void)
{
	struct abc_window w;
	struct abc_ack a = { .acked = MSS, .pkts = 1, .mss = MSS, .ce = MSS,
			     .ce_pkts = 1, .inflight = PK(1000) };
	u32 i;

	abc_window_init(&w, 10, MSS);
	for (i = 0; i < 30; i++)
		abc_on_ack(&w, &a);
	tap(abc_window_bytes(&w, false) == w.w_nonabc && w.w_nonabc == PK(40) &&
	    w.brake == 0 && w.accel == 0,
	    "non-ECN peer: w_nonabc alone, ECE ignored",
	    "window %u packets", abc_window_bytes(&w, false) / MSS);
}

/* abc_brake_take(): a receiver's running count of brakes, split over ACKs. */
static void test_brake_take(void)
{
	u32 counted = 100, got, sum = 0, i;

	got = abc_brake_take(&counted, 103, 2, 50);
	tap(got == 2 && counted == 102, "a count ahead by 3 gives 2 of a 2-unit ACK, 1 carried",
	    "took %u, counted %u", got, counted);
	got = abc_brake_take(&counted, 103, 5, 50);
	tap(got == 1 && counted == 103, "the carried unit goes to the next ACK",
	    "took %u, counted %u", got, counted);
	got = abc_brake_take(&counted, 103, 5, 50);
	tap(got == 0 && counted == 103, "no change in the count: no brake",
	    "took %u, counted %u", got, counted);

	/* Carried no further than what is in flight. */
	got = abc_brake_take(&counted, 203, 10, 40);
	tap(got == 10 && counted == 203,
	    "a count 90 ahead with 40 in flight: 10 taken, the rest dropped",
	    "took %u, counted %u", got, counted);

	/* Behind (data of the old encoding still to come): none until it catches up. */
	counted = 1000;
	got = abc_brake_take(&counted, 990, 10, 100);
	tap(got == 0 && counted == 1000, "a count behind gives no brake",
	    "took %u, counted %u", got, counted);
	got = abc_brake_take(&counted, 1004, 10, 100);
	tap(got == 4 && counted == 1004, "once it passes, only what is beyond counts",
	    "took %u, counted %u", got, counted);

	/* Wrapping counters: 24-bit byte counters widened by the stack wrap at 2^32. */
	counted = 0xfffffff0U;
	for (i = 0; i < 8; i++)
		sum += abc_brake_take(&counted, 0xfffffff0U + 4 * (i + 1), 4, 100);
	tap(sum == 32 && counted == 0x10U, "across the u32 wrap every unit counts once",
	    "sum %u, counted %#x", sum, counted);
}

static void test_fuzz(void)
{
	struct abc_window w;
	int bad = 0;
	u32 i;

	/* A zeroed state (an ACK before .init) must not divide by zero. */
	memset(&w, 0, sizeof(w));
	ack(&w, 1, false, true);
	tap(w.w_abc >= PK(ABC_MIN_PKTS) && w.w_nonabc >= PK(ABC_MIN_PKTS),
	    "an ACK on a zeroed state lifts both windows to the floor",
	    "w_abc %u w_nonabc %u", w.w_abc, w.w_nonabc);

	abc_window_init(&w, 10, MSS);
	for (i = 0; i < 2000000 && !bad; i++) {
		struct abc_ack a = {
			.mss = (u32)(rnd64() % 9000) + 1,
			.ecn = rnd64() % 8 != 0,
			.round_start = rnd64() % 16 == 0,
			.recovery = rnd64() % 32 == 0,
			.rtt_us = (u32)(rnd64() % 2000000),
		};
		u32 lo, cap;

		now_us += rnd64() % 256 == 0 ? (u32)rnd64() : (u32)(rnd64() % 5000);
		a.now_us = now_us;
		a.pkts = (u32)(rnd64() % 8);
		a.acked = rnd64() % 64 == 0 ? (u32)rnd64() : a.pkts * a.mss;
		/* brakes on all, none, or (AccECN) part of the ACK, or nonsense */
		a.ce_pkts = rnd64() % 4 == 0 ? (u32)(rnd64() % (a.pkts + 2)) : 0;
		a.ce = rnd64() % 64 == 0 ? (u32)rnd64() : a.ce_pkts * a.mss;
		a.inflight = rnd64() % 64 == 0 ? (u32)rnd64() :
			     (u32)(rnd64() % (4ULL * abc_window_bytes(&w, a.ecn) + 1));
		switch (rnd64() % 512) {
		case 0:
			abc_on_loss(&w, abc_window_bytes(&w, true), a.mss,
				    rnd64() & 1, rnd64() & 1);
			continue;
		case 1:
			abc_on_undo(&w);
			continue;
		default:
			break;
		}
		abc_on_ack(&w, &a);
		if (!a.acked)
			continue;
		lo = 2 * a.mss;
		cap = a.inflight > ABC_WIN_MAX / 2 ? ABC_WIN_MAX : 2 * a.inflight;
		if (cap < ABC_CAP_MIN_PKTS * a.mss)
			cap = ABC_CAP_MIN_PKTS * a.mss;
		if (cap < lo)
			cap = lo;
		if (w.w_abc < lo || w.w_nonabc < lo || w.w_abc > cap ||
		    w.w_nonabc > cap || w.w_abc > ABC_WIN_MAX ||
		    w.w_nonabc > ABC_WIN_MAX || w.score > ABC_SCORE_MAX ||
		    w.score < -ABC_SCORE_MAX)
			bad = 1;
	}
	tap(!bad, "fuzz: 2M random ACKs, losses and undos keep floor <= w <= cap <= max",
	    "%u ACKs, w_abc %u w_nonabc %u", i, w.w_abc, w.w_nonabc);
}

int main(void)
{
	test_eq3();
	test_steady_state();
	test_bytes();
	test_two_windows();
	test_cubic();
	test_steps();
	test_caps();
	test_edges();
	test_legacy();
	test_partial();
	test_noecn();
	test_brake_take();
	test_fuzz();
	return tap_finish();
}
