// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of tcp_abc/abc_window.h, the ABC sender's windows, in TAP.
 *
 *  - Eq. 3 sequences: all accelerates double the window per RTT, all
 *    brakes take one packet per ACK, f = 0.5 leaves only the +1 MSS per
 *    RTT, and a constant f < 0.5 settles at w = 1 / (1 - 2f) (sec. 3.1.3)
 *    with Algorithm 1's deterministic marking.
 *  - byte counting: stretch ACKs and odd byte counts count exactly.
 *  - the two windows: min(w_abc, w_nonabc), Reno on w_nonabc (slow start,
 *    halving on loss, RTO restart, undo), brakes never touching w_nonabc,
 *    and the 2 x in-flight cap on both (sec. 4.1).
 *  - the legacy-ECN detector: interleaved marks never trip it, runs of
 *    marks do, once per round, and it recovers.
 *  - the non-ECN fallback, floors, overflow, and random ACKs (fuzz).
 */
#include <stdio.h>
#include <string.h>

#include "../../tcp_abc/abc_window.h"
#include "unit_tap.h"

#define MSS	1448U
#define PK(n)	((u32)(n) * MSS)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* One ACK of pkts packets; inflight is the window in use (cwnd-limited). */
static enum abc_event ack(struct abc_window *w, u32 pkts, bool ece,
			  bool round_start)
{
	struct abc_ack a = {
		.acked = pkts * MSS,
		.pkts = pkts,
		.mss = MSS,
		.inflight = abc_window_bytes(w, true),
		.ecn = true,
		.ece = ece,
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
		x.ece = !x.ece;
	}
	tap(a.w_abc == PK(51), "additive increase with sub-MSS ACKs: 1 MSS per window acked",
	    "50 -> %.3f packets", (double)a.w_abc / MSS);
}

static void test_two_windows(void)
{
	struct abc_window w;
	struct abc_ack a = { .mss = MSS, .ecn = true };
	u32 i, th;

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

	/* Loss: w_nonabc = cwnd / 2, then congestion avoidance. */
	abc_window_init(&w, 10, MSS);
	w.w_abc = PK(100);
	w.w_nonabc = PK(100);
	tap(abc_on_loss(&w, PK(100), MSS, false, true) == ABC_EV_LOSS &&
	    w.w_nonabc == PK(50) && w.ssthresh == PK(50) &&
	    abc_window_bytes(&w, true) == PK(50),
	    "loss halves w_nonabc and the window in use", "w_nonabc %u packets",
	    w.w_nonabc / MSS);
	for (i = 0; i < 50; i++)
		ack(&w, 1, false, false);
	tap(w.w_nonabc == PK(51), "w_nonabc after loss: +1 MSS per RTT (Reno)",
	    "50 -> %.2f packets in one RTT", (double)w.w_nonabc / MSS);
	a.acked = MSS;
	a.pkts = 1;
	a.inflight = PK(51);
	a.recovery = true;
	th = w.w_nonabc;
	abc_on_ack(&w, &a);
	tap(w.w_nonabc == th, "w_nonabc does not grow in fast recovery", NULL);
	tap(abc_on_undo(&w) == ABC_EV_UNDO && w.w_nonabc == PK(100) &&
	    w.ssthresh == ABC_SSTHRESH_INF, "undo restores w_nonabc and its threshold",
	    "w_nonabc %u packets", w.w_nonabc / MSS);
	tap(abc_on_undo(&w) == ABC_EV_NONE, "a second undo does nothing", NULL);

	/* RTO: cut once, restart from the floor in slow start. */
	abc_on_loss(&w, PK(100), MSS, true, true);
	tap(w.w_nonabc == PK(ABC_MIN_PKTS) && w.ssthresh == PK(50),
	    "RTO: w_nonabc restarts at the floor, ssthresh = cwnd / 2",
	    "w_nonabc %u, ssthresh %u packets", w.w_nonabc / MSS, w.ssthresh / MSS);
	abc_on_loss(&w, PK(40), MSS, true, false);
	tap(w.ssthresh == PK(50), "RTO during recovery: no second cut",
	    "ssthresh %u packets", w.ssthresh / MSS);
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
	a.ece = true;
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
	    "runs of CE switch to legacy ECN: w_nonabc halves at most once per round",
	    "legacy %u, %u cuts in 12 rounds, score %d", w.legacy, cuts, w.score);

	/* Back to interleaved marks: legacy mode ends. */
	for (r = 0; r < 12; r++) {
		w.w_abc = PK(60);
		rtt_of(&w, alternate, NULL);
	}
	tap(!w.legacy, "legacy mode ends when interleaved marks return", "score %d",
	    w.score);
}

static void test_noecn(void)
{
	struct abc_window w;
	struct abc_ack a = { .acked = MSS, .pkts = 1, .mss = MSS, .ece = true,
			     .inflight = PK(1000) };
	u32 i;

	abc_window_init(&w, 10, MSS);
	for (i = 0; i < 30; i++)
		abc_on_ack(&w, &a);
	tap(abc_window_bytes(&w, false) == w.w_nonabc && w.w_nonabc == PK(40) &&
	    w.brake == 0 && w.accel == 0,
	    "non-ECN peer: Reno on w_nonabc alone, ECE ignored",
	    "window %u packets", abc_window_bytes(&w, false) / MSS);
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
			.ece = rnd64() & 1,
			.round_start = rnd64() % 16 == 0,
			.recovery = rnd64() % 32 == 0,
		};
		u32 lo, cap;

		a.pkts = (u32)(rnd64() % 8);
		a.acked = rnd64() % 64 == 0 ? (u32)rnd64() : a.pkts * a.mss;
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
	test_caps();
	test_edges();
	test_legacy();
	test_noecn();
	test_fuzz();
	return tap_finish();
}
