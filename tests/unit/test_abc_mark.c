// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of sch_abc/abc_mark.h, the ABC router arithmetic, in TAP.
 *
 *  - Eq. 1 over the whole parameter space against a double reference,
 *    monotone in the queuing delay, never above eta mu, 0 past d_t + delta.
 *  - Eq. 1 precomputed per rate (struct abc_law): equal to the direct
 *    computation for every input, and set again on a rate change.
 *  - Eq. 2: floor(tr / 2cr) in Q16, capped at 1, 1 when nothing dequeued.
 *  - Alg. 1: f = 0.3 over 1000 packets gives 300 +- 1 accelerates; for
 *    every f, floor(n f) - 1 <= accelerates <= n f; f = 0 and f = 1; bursts
 *    never longer than the token limit; brakes (CE) never become
 *    accelerates.
 *  - Alg. 1 for GSO packets marked whole: one segment is Alg. 1 itself;
 *    the bucket moves as if the packets were split; the accelerated
 *    segments stay within half a packet (plus the run) of Alg. 1's; the
 *    carry is bounded; a CE packet stays a brake and changes no carry;
 *    with a run, marks at f = 1/2 come in runs of four times its length.
 *  - split_gso: on and off at any rate; auto splits up to 1 Gbit/s and
 *    when the capacity is estimated, keeps packets whole above.
 *  - Rates: the window's dequeue and backlogged rates from 8 kbit/s to
 *    100 Gbit/s (no overflow), the reset after idle, the estimate of mu;
 *    a queue's bytes in the window are zero exactly when its rate is.
 *  - Shaper: a rate change retimes the pending departure (8 kbit/s to
 *    1 Gbit/s waits 12 us, not 1.5 s; down again waits the new rate's
 *    time), random changes, no wrap, idle and lateness.
 *  - Space-Saving invariants on skewed random streams.
 *  - Max-min weights: equal long flows, demand-limited flows, short flows,
 *    2 against 1, an empty queue, random tables (range and sum).
 *  - Classic-ECN detection: a flow starved beside ABC flows under brakes
 *    is found after exactly ABC_CLASSIC_STRIKES periods and not before;
 *    flows at 1/6 of the largest, a lone flow, periods without brakes
 *    and an interrupted starvation are not; forgetting; slot collisions;
 *    random periods keep the counts consistent.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sch_abc/abc_mark.h"
#include "unit_tap.h"

#define Q		65536.0
#define NS		1000000000ULL
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static double tr_ref(double mu, double eta, double delta, double dt, double x)
{
	double ex = x > dt ? x - dt : 0;
	double tr = eta * mu - mu / delta * ex;

	return tr > 0 ? tr : 0;
}

struct eq1_stats {
	int bad, nonmono, above, n;
	double worst;
};

static void eq1_case(u64 mu, u32 eta, u32 delta, u32 dt, struct eq1_stats *st)
{
	u64 prev = U64_MAX;
	u64 xs[] = { 0, dt ? dt - 1 : 0, dt, (u64)dt + 1,
		     (u64)dt + delta / 4, (u64)dt + delta / 2,
		     (u64)dt + delta - 1, (u64)dt + delta,
		     (u64)dt + 2ULL * delta, 100ULL * ABC_TIME_MAX_US };
	u32 k;

	for (k = 0; k < ARRAY_SIZE(xs); k++) {
		u64 tr = abc_target_rate(mu, eta, delta, dt, xs[k]);
		double ref = tr_ref((double)mu, eta / 1e6, delta, dt, (double)xs[k]);
		double err = fabs((double)tr - ref);

		st->n++;
		/* two floors: at most 2 bytes/s below the exact value */
		if (err > 2.0 + ref / 1e12)
			st->bad++;
		if (err > st->worst)
			st->worst = err;
		if (tr > prev)
			st->nonmono++;
		if (tr > div64_u64(mu * eta, ABC_PPM))
			st->above++;
		prev = tr;
	}
}

static void test_eq1(void)
{
	static const u64 mus[] = { 0, 1, 1000, 125000, 2500000, 12500000,
				   125000000, 1250000000ULL, 12500000000ULL,
				   ABC_RATE_MAX };
	static const u32 etas[] = { 100000, 500000, 950000, 980000, 1000000 };
	static const u32 deltas[] = { 1000, 40000, 133000, 1000000, ABC_TIME_MAX_US };
	static const u32 dts[] = { 0, 1000, 20000, 100000, ABC_TIME_MAX_US };
	struct eq1_stats st = { 0 };
	u32 a, b, c, d, i;

	/* every combination of the four parameter lists */
	for (i = 0; i < ARRAY_SIZE(mus) * ARRAY_SIZE(etas) * ARRAY_SIZE(deltas) *
	     ARRAY_SIZE(dts); i++) {
		u32 j = i;

		a = j % ARRAY_SIZE(mus);
		j /= ARRAY_SIZE(mus);
		b = j % ARRAY_SIZE(etas);
		j /= ARRAY_SIZE(etas);
		c = j % ARRAY_SIZE(deltas);
		d = j / ARRAY_SIZE(deltas);
		eq1_case(mus[a], etas[b], deltas[c], dts[d], &st);
	}
	tap(!st.bad, "Eq. 1 within 2 bytes/s of the exact target rate",
	    "%d of %d off, worst %.3f", st.bad, st.n, st.worst);
	tap(!st.nonmono, "Eq. 1 never rises with the queuing delay", "%d rises",
	    st.nonmono);
	tap(!st.above, "Eq. 1 never above eta mu", "%d above", st.above);
	tap(abc_target_rate(2500000, 980000, 133000, 20000, 20000 + 133000) == 0 &&
	    abc_target_rate(2500000, 980000, 133000, 20000, 10000) == 2450000,
	    "Eq. 1: 0.98 mu below d_t, 0 at d_t + delta (20 Mbit/s)", NULL);
	/* x = d_t + delta / 2 at 20 Mbit/s: 0.98 mu - mu / 2 */
	tap(abc_target_rate(2500000, 980000, 133000, 20000, 20000 + 66500) == 1200000,
	    "Eq. 1: x = d_t + delta/2 drains half the link", "%llu",
	    (unsigned long long)abc_target_rate(2500000, 980000, 133000, 20000, 86500));
}

/* abc_law_rate() against abc_target_rate() for one input; 1 if they differ. */
static int law_differs(u64 mu, u32 eta, u32 delta, u32 dt, u64 x_ns)
{
	struct abc_law l;

	abc_law_set(&l, mu, eta, delta, dt);
	return abc_law_rate(&l, x_ns) !=
	       abc_target_rate(mu, eta, delta, dt, x_ns / 1000);
}

static void test_law(void)
{
	static const u64 mus[] = { 0, 1, 1000, 125000, 2500000, 1250000000ULL,
				   ABC_RATE_MAX - 1, ABC_RATE_MAX };
	static const u32 deltas[] = { 1, 1000, 133000, ABC_TIME_MAX_US - 1,
				      ABC_TIME_MAX_US };
	static const u32 dts[] = { 0, 1, 20000, ABC_TIME_MAX_US };
	struct abc_law l;
	u64 a, b, x;
	u32 i, j, k, m, n = 0;
	int bad = 0;

	/* the edges: around d_t (in ns), around d_t + delta, far past */
	for (i = 0; i < ARRAY_SIZE(mus); i++)
		for (j = 0; j < ARRAY_SIZE(deltas); j++)
			for (k = 0; k < ARRAY_SIZE(dts); k++) {
				u64 d0 = (u64)dts[k] * 1000, d1 = d0 +
					 (u64)deltas[j] * 1000;
				u64 xs[] = { 0, d0 + 999, d0 + 1000, d0 + 1999,
					     d0 + 2000, d1 - 1, d1, d1 + 999,
					     d1 + 1000, U64_MAX };

				for (m = 0; m < ARRAY_SIZE(xs); m++, n++)
					bad += law_differs(mus[i], 980000,
							   deltas[j], dts[k],
							   xs[m]);
			}
	/* random: any mu, eta (also above 1), delta, d_t, x near the slope */
	for (i = 0; i < 2000000; i++, n++) {
		u64 mu = rnd64() % 4 ? rnd64() % (ABC_RATE_MAX + 1) :
			 rnd64() >> (rnd64() % 64);
		u32 eta = (u32)(rnd64() % 1100001);
		u32 delta = (u32)(rnd64() % (2ULL * ABC_TIME_MAX_US));
		u32 dt = (u32)(rnd64() % (ABC_TIME_MAX_US + 1));

		x = ((u64)dt + rnd64() % ((u64)delta + 3)) * 1000 +
		    rnd64() % 1000;
		bad += law_differs(mu, eta, delta, dt, x);
	}
	tap(!bad, "Eq. 1 precomputed per rate (abc_law) equals abc_target_rate() exactly",
	    "%d of %u differ", bad, n);

	/* A tc change of the rate: the law is set again and follows it. */
	abc_law_set(&l, 1250000, 980000, 133000, 20000);
	a = abc_law_rate(&l, 50000000);
	abc_law_set(&l, 12500000, 980000, 133000, 20000);
	b = abc_law_rate(&l, 50000000);
	tap(a == abc_target_rate(1250000, 980000, 133000, 20000, 50000) &&
	    b == abc_target_rate(12500000, 980000, 133000, 20000, 50000) &&
	    a == 943046 && b == 9430452,
	    "abc_law set again on a rate change (10 -> 100 Mbit/s, x = 50 ms)",
	    "%llu -> %llu bytes/s", (unsigned long long)a, (unsigned long long)b);
}

static void test_eq2(void)
{
	int bad = 0, n;

	for (n = 0; n < 200000; n++) {
		u64 cr = rnd64() % (ABC_RATE_MAX + 1);
		u64 tr = rnd64() % (ABC_RATE_MAX + 1);
		u32 f = abc_accel_frac(tr, cr);
		double ref;

		if (n % 3 == 0)
			tr = cr / ((rnd64() % 8) + 1);
		f = abc_accel_frac(tr, cr);
		ref = cr ? floor((double)tr * Q / (2.0 * cr)) : Q;
		if (ref > Q)
			ref = Q;
		if (fabs(f - ref) > 1)
			bad++;
	}
	tap(!bad, "Eq. 2 is min(floor(tr / 2cr), 1) in Q16 (200000 random rates)",
	    "%d off", bad);
	tap(abc_accel_frac(123, 0) == FP_ONE && abc_accel_frac(0, 5) == 0 &&
	    abc_accel_frac(1000, 1000) == FP_ONE / 2 &&
	    abc_accel_frac(ABC_RATE_MAX, 1) == FP_ONE,
	    "Eq. 2 edges: cr = 0 gives 1, tr = 0 gives 0, tr = cr gives 1/2", NULL);
}

/* Run Alg. 1 for n accelerate packets at fraction f; return accelerates. */
static u32 run_alg1(u32 f, u32 n, u32 limit_pk)
{
	u32 token = 0, a = 0, i;

	for (i = 0; i < n; i++)
		a += abc_token_mark(&token, f, limit_pk << FP_SHIFT, true);
	return a;
}

static void test_alg1(void)
{
	u32 f03 = (u32)(0.3 * Q + 0.5), a, i, bad = 0, burst_bad = 0, ce_bad = 0;
	u32 worst_burst = 0;

	a = run_alg1(f03, 1000, 5);
	tap(a >= 299 && a <= 301, "Alg. 1: f = 0.3 over 1000 packets gives 300 +- 1 accelerates",
	    "%u", a);
	a = run_alg1((u32)fp_div(3, 10), 1000, 5);
	tap(a >= 299 && a <= 301, "Alg. 1: f = floor(0.3) in Q16 too", "%u", a);
	tap(run_alg1(0, 1000, 5) == 0, "Alg. 1: f = 0 never accelerates", NULL);
	tap(run_alg1(FP_ONE, 1000, 5) == 999,
	    "Alg. 1: f = 1 accelerates every packet after the first (token > 1)",
	    "%u", run_alg1(FP_ONE, 1000, 5));

	for (i = 0; i <= 4096; i++) {
		u32 f = (u32)(((u64)i * FP_ONE) / 4096), n = 1000 + (u32)(rnd64() % 9000);
		u64 exact = (u64)n * f;	/* Q16 */
		u64 lo = (exact >> FP_SHIFT) ? (exact >> FP_SHIFT) - 1 : 0;

		a = run_alg1(f, n, 2 + (u32)(rnd64() % 20));
		if (a < lo || (u64)a * FP_ONE > exact)
			bad++;
	}
	tap(!bad, "Alg. 1: floor(n f) - 1 <= accelerates <= n f for 4097 fractions",
	    "%u off", bad);

	/* Random f and arrival marks: bursts stay within the token limit. */
	for (i = 0; i < 200; i++) {
		u32 limit = 2 + (u32)(rnd64() % 30), token = 0, run = 0, k;

		for (k = 0; k < 5000; k++) {
			bool in_accel = rnd64() % 4 != 0;
			u32 f = (u32)(rnd64() % (FP_ONE + 1));
			bool out;

			if (rnd64() % 3 == 0)
				f = rnd64() % 2 ? 0 : FP_ONE;
			out = abc_token_mark(&token, f, limit << FP_SHIFT, in_accel);
			if (out && !in_accel)
				ce_bad++;
			if (token > limit << FP_SHIFT)
				burst_bad++;
			run = out ? run + 1 : 0;
			(void)run;
		}
		/* After saturating, f = 0: exactly limit - 1 accelerates in a row. */
		for (k = 0; k < 100; k++)
			abc_token_mark(&token, FP_ONE, limit << FP_SHIFT, false);
		run = 0;
		while (abc_token_mark(&token, 0, limit << FP_SHIFT, true))
			run++;
		if (run > worst_burst)
			worst_burst = run;
		if (run != limit - 1)
			burst_bad++;
	}
	tap(!burst_bad,
	    "Alg. 1: token never above the limit; a full bucket gives limit - 1 accelerates",
	    "%u off, longest %u", burst_bad, worst_burst);
	tap(!ce_bad, "Alg. 1: a brake (CE) is never turned into an accelerate", "%u", ce_bad);
}

/*
 * @n packets of @segs segments at f = 1/2 from an empty bucket: how many
 * were accelerated, and the shortest and longest run of one mark in
 * packets (the first and the unfinished last run left out).
 */
static void half_runs(u32 segs, u32 run, u32 n, u32 *acc, u32 *shortest, u32 *longest)
{
	u32 token = 0, k, len = 0, runs = 0;
	bool prev = false, last = false;
	s32 owed = 0;

	*acc = 0;
	*shortest = ~0U;
	*longest = 0;
	for (k = 0; k < n; k++) {
		bool out = abc_token_mark_segs(&token, &owed, &last, FP_ONE / 2,
					       5 << FP_SHIFT, true, segs, run);

		*acc += out;
		if (k && out != prev) {
			if (runs++) {
				*shortest = len < *shortest ? len : *shortest;
				*longest = len > *longest ? len : *longest;
			}
			len = 0;
		}
		len++;
		prev = out;
	}
}

static void test_alg1_segs(void)
{
	u32 i, same_bad = 0, bucket_bad = 0, frac_bad = 0, owed_bad = 0;
	u32 ce_bad = 0, acc, shortest, longest;
	s32 worst = 0;

	/* One segment, random f and marks: the same answers as Alg. 1. */
	for (i = 0; i < 200; i++) {
		u32 limit = (2 + (u32)(rnd64() % 30)) << FP_SHIFT, t1 = 0, t2 = 0, k;
		bool last = rnd64() % 2;
		s32 owed = 0;

		for (k = 0; k < 2000; k++) {
			u32 f = (u32)(rnd64() % (FP_ONE + 1));
			bool in = rnd64() % 4 != 0;

			if (abc_token_mark(&t1, f, limit, in) !=
			    abc_token_mark_segs(&t2, &owed, &last, f, limit, in, 1, 0) ||
			    t1 != t2 || owed)
				same_bad++;
		}
	}
	tap(!same_bad, "Alg. 1 whole: one segment is Alg. 1, and nothing is carried",
	    "%u off", same_bad);

	/*
	 * Packets of 1..64 segments, random f held for a while, some CE,
	 * runs of 0..64: the bucket equals Alg. 1 run per segment, the
	 * accelerated segments are Alg. 1's less the carry, and the carry
	 * stays within +-(ABC_GSO_SEGS_MAX / 2 + run).
	 */
	for (i = 0; i < 400; i++) {
		u32 limit = (2 + (u32)(rnd64() % 30)) << FP_SHIFT, t1 = 0, t2 = 0;
		u32 f = 0, k, s, run = i < 200 ? 0 : (u32)(rnd64() % (ABC_RUN_SEGS_MAX + 1));
		s32 owed = 0, bound = ABC_GSO_SEGS_MAX / 2 + (s32)run;
		s64 a1 = 0, a2 = 0;
		bool last = false;

		for (k = 0; k < 3000; k++) {
			u32 segs = 1 + (u32)(rnd64() % ABC_GSO_SEGS_MAX);
			bool in = rnd64() % 8 != 0, out;
			s32 before = owed;

			if (rnd64() % 16 == 0)
				f = (u32)(rnd64() % (FP_ONE + 1));
			for (s = 0; s < segs; s++)
				a1 += abc_token_mark(&t1, f, limit, in);
			out = abc_token_mark_segs(&t2, &owed, &last, f, limit, in, segs, run);
			a2 += out ? segs : 0;
			if (t1 != t2)
				bucket_bad++;
			if (!in && (out || owed != before))
				ce_bad++;
			if (a1 - a2 != owed)
				frac_bad++;
			if (owed > bound || owed < -bound)
				owed_bad++;
			if (owed > worst || -owed > worst)
				worst = owed < 0 ? -owed : owed;
		}
	}
	tap(!bucket_bad, "Alg. 1 whole: the bucket moves as if the packets were split",
	    "%u off", bucket_bad);
	tap(!frac_bad && !owed_bad,
	    "Alg. 1 whole: accelerated segments = Alg. 1's less the carry, |carry| <= 32 + run",
	    "%u off, %u out of range, largest %d", frac_bad, owed_bad, worst);
	tap(!ce_bad, "Alg. 1 whole: a CE packet stays a brake and leaves the carry",
	    "%u", ce_bad);

	/* f = 1/2: 44-segment packets alternate, as segments would... */
	half_runs(44, 0, 1000, &acc, &shortest, &longest);
	tap(acc >= 499 && acc <= 501 && shortest == 1 && longest == 1,
	    "Alg. 1 whole: f = 1/2, 44 segments: every other packet accelerates",
	    "%u accelerated of 1000, runs %u..%u", acc, shortest, longest);
	/* ... and with a run of 16, 2-segment packets keep a mark for 64 segments (+ 2 packets). */
	half_runs(2, 16, 10000, &acc, &shortest, &longest);
	tap(acc >= 4980 && acc <= 5020 && shortest >= 32 && longest <= 34,
	    "Alg. 1 whole: f = 1/2, run 16: the same share in runs of 4 x 16 segments",
	    "%u accelerated of 10000, runs %u..%u", acc, shortest, longest);
}

static void test_split_gso(void)
{
	const u64 gbit = TC_ABC_SPLIT_GSO_AUTO_RATE;

	tap(abc_split_gso(TC_ABC_SPLIT_GSO_ON, 0) &&
	    abc_split_gso(TC_ABC_SPLIT_GSO_ON, 100 * gbit) &&
	    !abc_split_gso(TC_ABC_SPLIT_GSO_OFF, 0) &&
	    !abc_split_gso(TC_ABC_SPLIT_GSO_OFF, 1000),
	    "split_gso on and off hold at any bandwidth", NULL);
	tap(abc_split_gso(TC_ABC_SPLIT_GSO_AUTO, 1000) &&
	    abc_split_gso(TC_ABC_SPLIT_GSO_AUTO, 12500000) &&
	    abc_split_gso(TC_ABC_SPLIT_GSO_AUTO, gbit) &&
	    !abc_split_gso(TC_ABC_SPLIT_GSO_AUTO, gbit + 1) &&
	    !abc_split_gso(TC_ABC_SPLIT_GSO_AUTO, 10 * gbit) &&
	    !abc_split_gso(TC_ABC_SPLIT_GSO_AUTO, ABC_RATE_MAX),
	    "split_gso auto: split up to 1 Gbit/s, whole above", NULL);
	tap(abc_split_gso(TC_ABC_SPLIT_GSO_AUTO, 0),
	    "split_gso auto: an estimated capacity splits", NULL);
}

static void test_rates(void)
{
	static const u64 rates[] = { 1000, 125000, 2500000, 12500000ULL,
				     1250000000ULL, 12500000000ULL };
	struct abc_win w;
	u32 i, bad = 0;
	double worst = 0;

	for (i = 0; i < ARRAY_SIZE(rates); i++) {
		u64 r = rates[i], now = NS, gap, end, win = 40000000;
		u32 len = r >= 1000000 ? 1500 : 100;
		double got, busy, tol;

		gap = len * NS / r;
		/* at 8 kbit/s a 40 ms window holds no packet: use 1 s */
		if (r < 100000)
			win = NS;
		abc_win_init(&w, now, win);
		end = now + 3 * win;
		for (; now < end; now += gap)
			abc_win_add(&w, now, 0, len, gap);
		got = (double)abc_win_rate(&w, now, 0);
		busy = (double)abc_win_busy_rate(&w);
		/* the window holds T / gap packets, +- 1 */
		tol = (double)gap / win + 0.001;
		if (fabs(got / r - 1) > tol || fabs(busy / r - 1) > 0.001)
			bad++;
		if (fabs(got / r - 1) > worst)
			worst = fabs(got / r - 1);
	}
	tap(!bad, "window: dequeue and backlogged rates from 8 kbit/s to 100 Gbit/s",
	    "%u off, worst %.4f", bad, worst);

	/* 7 slots of 5 ms behind the one being filled: T - 5 ms + elapsed */
	abc_win_init(&w, NS, 40000000);
	abc_win_add(&w, NS, 0, 1500, 0);
	abc_win_add(&w, NS + 1000, 1, 1500, 0);
	tap(abc_win_busy_rate(&w) == 0 &&
	    abc_win_rate(&w, NS + 1000, 1) == 1500 * NS / (35000000 + 1000),
	    "window: no busy sample means unknown; a fresh window counts the whole T",
	    "%llu", (unsigned long long)abc_win_rate(&w, NS + 1000, 1));
	abc_win_add(&w, 3 * NS, 0, 1500, 0);
	tap(abc_win_rate(&w, 3 * NS, 1) == 0 &&
	    abc_win_rate(&w, 3 * NS, 0) == 1500 * NS / 35000000,
	    "window: idle longer than T starts afresh; a burst after idle is no high rate",
	    NULL);

	/*
	 * The glue tests the other queue's bytes rather than its rate: the
	 * same for every T up to 1 s (the qdisc's range), any gaps, bursts.
	 */
	bad = 0;
	for (i = 0; i < 200; i++) {
		u64 now = NS + rnd64() % NS, t = 1000000 + rnd64() % (NS - 999999);
		u32 j, q;

		if (i == 0)
			t = NS;
		abc_win_init(&w, now, t);
		for (j = 0; j < 5000; j++) {
			now += rnd64() % 8 ? rnd64() % (t / 4 + 1) :
			       rnd64() % (2 * t + 1);
			abc_win_add(&w, now, (u32)(rnd64() % 5 == 0),
				    rnd64() % 64 ? 1 + rnd64() % 1514 :
						   (u32)rnd64(), 0);
			for (q = 0; q < 2; q++)
				bad += !abc_win_bytes(&w, q) !=
				       !abc_win_rate(&w, now, q);
		}
	}
	tap(!bad, "window: a queue's bytes are zero exactly when its rate is (T <= 1 s)",
	    "%u differ", bad);

	tap(abc_bytes_rate(12500000000ULL, NS) == 12500000000ULL &&
	    abc_bytes_rate(1ULL << 40, 100 * NS) == (1ULL << 40) / 100 &&
	    abc_bytes_rate(U64_MAX, 1) == ABC_RATE_MAX &&
	    abc_bytes_rate(1, 0) == ABC_RATE_MAX && abc_bytes_rate(0, 0) == 0,
	    "rates: 100 Gbit/s over 1 s, 2^40 bytes, saturation, no time", NULL);

	tap(abc_estimate_mu(0, 1000) == 2000 && abc_estimate_mu(1500, 1000) == 1500 &&
	    abc_estimate_mu(5000, 1000) == 2000 && abc_estimate_mu(500, 1000) == 1000 &&
	    abc_estimate_mu(0, ABC_RATE_MAX) == ABC_RATE_MAX,
	    "estimate: mu is the backlogged rate within [cr, 2 cr]", NULL);
}

static u64 pkt_ns(u64 rate, u32 len)
{
	return len * NS / rate;
}

/* Log-uniform rate in [8 kbit/s, 1 Tbit/s]. */
static u64 rnd_rate(void)
{
	double lo = log(1000.0), hi = log((double)ABC_RATE_MAX);
	double x = lo + (hi - lo) * (double)(rnd64() >> 11) / (double)(1ULL << 53);
	u64 r = (u64)exp(x);

	return r < 1000 ? 1000 : r > ABC_RATE_MAX ? ABC_RATE_MAX : r;
}

static void test_shaper(void)
{
	static const u32 lens[] = { 1500, 9000 };
	struct abc_shaper s;
	u64 now, tc, wait, want;
	u32 i, bad = 0, stall = 0;

	/* 8 kbit/s to 1 Gbit/s while a packet is on the wire */
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		memset(&s, 0, sizeof(s));
		abc_shaper_set_rate(&s, 1000, NS);
		abc_shaper_sent(&s, NS, lens[i]);
		tc = NS + 1000000;
		abc_shaper_set_rate(&s, 125000000, tc);
		wait = s.t_next - tc;
		tap(wait <= pkt_ns(125000000, lens[i]) &&
		    abc_shaper_ready(&s, tc + pkt_ns(125000000, lens[i])),
		    lens[i] == 1500 ?
		    "shaper: 8 kbit/s to 1 Gbit/s, MTU 1500: next packet within 12 us" :
		    "shaper: 8 kbit/s to 1 Gbit/s, MTU 9000: next packet within 72 us",
		    "waits %llu ns, old packet time %llu ns",
		    (unsigned long long)wait,
		    (unsigned long long)pkt_ns(1000, lens[i]));
	}

	/* 1 Gbit/s down to 8 kbit/s halfway through a 12 us packet */
	memset(&s, 0, sizeof(s));
	abc_shaper_set_rate(&s, 125000000, NS);
	abc_shaper_sent(&s, NS, 1500);
	tc = NS + 6000;
	abc_shaper_set_rate(&s, 1000, tc);
	tap(s.t_next - tc == 750000000 && !abc_shaper_ready(&s, tc + 749999999),
	    "shaper: 1 Gbit/s to 8 kbit/s: the rest of the packet takes its time at the new rate",
	    "waits %llu ns, want 750000000", (unsigned long long)(s.t_next - tc));

	/* random changes in a backlog: the rest of the last packet, retimed */
	for (i = 0; i < 200000; i++) {
		u64 r0 = rnd_rate(), r1 = rnd_rate(), rem;
		u32 len = 64 + (u32)(rnd64() % 65472), k;

		memset(&s, 0, sizeof(s));
		now = rnd64();	/* any start, across the u64 wrap too */
		abc_shaper_set_rate(&s, r0, now);
		for (k = 0; k < 4; k++) {
			now = s.t_next;
			abc_shaper_sent(&s, now, len);
		}
		/* 64 bytes at 1 Tbit/s round to 0 ns */
		tc = s.t_next == now ? now : now + rnd64() % (s.t_next - now);
		rem = s.t_next - tc;
		abc_shaper_set_rate(&s, r1, tc);
		wait = s.t_next - tc;
		want = (u64)((double)rem * (double)r0 / (double)r1);
		if ((s64)wait < 0 || wait > pkt_ns(r1, len) + 1)
			stall++;
		if (wait + 2 < want || wait > want + 2)
			bad++;
		/* after that, packets leave at the new rate */
		now = s.t_next;
		abc_shaper_sent(&s, now, len);
		if (s.t_next - now != ((len * s.ns_per_byte) >> ABC_NS_SHIFT) ||
		    s.ns_per_byte != (NS << ABC_NS_SHIFT) / r1)
			bad++;
	}
	tap(!stall && !bad,
	    "shaper: random rate changes: the retimed rest, at most one new packet time",
	    "%u stalls, %u off", stall, bad);

	/* a departure time far out (not reachable from sent()) does not wrap */
	memset(&s, 0, sizeof(s));
	abc_shaper_set_rate(&s, ABC_RATE_MAX, NS);
	s.t_next = NS + (1ULL << 62);
	abc_shaper_set_rate(&s, 1000, NS);
	tap((s64)(s.t_next - NS) > 0 && s.t_next - NS <= U64_MAX / 1000,
	    "shaper: retiming saturates rather than wraps",
	    "waits %llu ns", (unsigned long long)(s.t_next - NS));

	/* stop, restart, idle, lateness */
	memset(&s, 0, sizeof(s));
	abc_shaper_set_rate(&s, 1000, NS);
	abc_shaper_sent(&s, NS, 1500);
	abc_shaper_set_rate(&s, 0, NS + 1);
	bad = !abc_shaper_ready(&s, NS + 1);
	abc_shaper_set_rate(&s, 125000000, NS + 2);
	bad += s.t_next != NS + 2;
	abc_shaper_sent(&s, NS + 2, 1500);
	abc_shaper_wake(&s, 5 * NS);
	bad += s.t_next != 5 * NS;
	abc_shaper_sent(&s, 5 * NS + 5000000, 1500);	/* 5 ms late */
	bad += s.t_next != 5 * NS + 12000;
	abc_shaper_sent(&s, 6 * NS, 1500);		/* 1 s late */
	bad += s.t_next != 6 * NS - ABC_SHAPER_SLACK_NS + 12000;
	tap(!bad, "shaper: restart at now, no credit for idle, lateness caught up to the slack",
	    "%u off", bad);
}

#define SS_FLOWS	500

static void test_spacesaving(void)
{
	static u64 truth[SS_FLOWS];
	struct abc_topk t;
	u32 run, bad_sum = 0, bad_bound = 0, bad_heavy = 0, bad_size = 0;

	for (run = 0; run < 50; run++) {
		u32 k = 1 + (u32)(rnd64() % ABC_TOPK_MAX), i, n;
		u64 sum = 0;

		memset(truth, 0, sizeof(truth));
		abc_topk_reset(&t, k);
		for (n = 0; n < 20000; n++) {
			/* skewed: flow i with weight ~ 1 / (i + 1)^1.2 */
			double u = rndu();
			u32 f = (u32)(pow(u, 4.0) * SS_FLOWS);
			u32 len = 64 + (u32)(rnd64() % 1437);

			if (f >= SS_FLOWS)
				f = SS_FLOWS - 1;
			truth[f] += len;
			abc_topk_add(&t, 0x9e3779b1U * (f + 1), len);
		}
		if (t.used > k)
			bad_size++;
		for (i = 0; i < t.used; i++) {
			u32 f = t.e[i].key / 0x9e3779b1U;
			u64 tv = 0, j;

			for (j = 0; j < SS_FLOWS; j++)
				if (0x9e3779b1U * (u32)(j + 1) == t.e[i].key)
					tv = truth[j];
			(void)f;
			sum += t.e[i].count;
			if (t.e[i].count < tv || t.e[i].count - t.e[i].err > tv)
				bad_bound++;
		}
		if (sum != t.total)
			bad_sum++;
		for (i = 0; i < SS_FLOWS; i++) {
			u32 j, found = 0;

			if (truth[i] * k <= t.total)
				continue;
			for (j = 0; j < t.used; j++)
				found |= t.e[j].key == 0x9e3779b1U * (i + 1);
			if (!found)
				bad_heavy++;
		}
	}
	tap(!bad_size && !bad_sum, "Space-Saving: at most k counters, counts sum to the total",
	    "%u %u", bad_size, bad_sum);
	tap(!bad_bound, "Space-Saving: count - err <= true bytes <= count", "%u", bad_bound);
	tap(!bad_heavy, "Space-Saving: every flow above total / k is tracked", "%u", bad_heavy);
	abc_topk_reset(&t, 0);
	abc_topk_add(&t, 1, 1500);
	tap(t.used == 0 && t.total == 0, "Space-Saving: k = 0 tracks nothing", NULL);
}

/* A table of long flows with the given byte counts (err 0). */
static void table(struct abc_topk *t, const u64 *bytes, u32 n, u64 short_bytes)
{
	u32 i;

	abc_topk_reset(t, ABC_TOPK_MAX);
	for (i = 0; i < n; i++) {
		abc_topk_add(t, i + 1, 0);
		t->e[i].count = bytes[i];
	}
	t->total = short_bytes;
	for (i = 0; i < n; i++)
		t->total += bytes[i];
}

static u32 weight_abc(const u64 *a, u32 na, u64 sa, const u64 *o, u32 no, u64 so,
		      u64 cap)
{
	struct abc_topk ta, to;
	const struct abc_topk *t[2] = { &ta, &to };
	u32 w[2];

	table(&ta, a, na, sa);
	table(&to, o, no, so);
	abc_maxmin_weights(t, cap, w);
	return w[0] + w[1] == ABC_PPM ? w[0] : 0xffffffff;
}

static void test_maxmin(void)
{
	static const u64 half[] = { 500000 }, third[] = { 333333, 333333 },
			  one_third[] = { 333334 }, small[] = { 200000 },
			  big[] = { 800000 }, three[] = { 160000, 170000, 170000 },
			  long45[] = { 450000 }, tiny[] = { 1000 };
	u32 w, i, bad = 0;

	w = weight_abc(half, 1, 0, half, 1, 0, 1000000);
	tap(w == 500000, "max-min: one long flow per queue gets 50/50", "%u ppm", w);
	w = weight_abc(third, 2, 0, one_third, 1, 0, 1000000);
	tap(w >= 666000 && w <= 667000, "max-min: 2 ABC against 1 CUBIC long flow gives 2/3",
	    "%u ppm", w);
	w = weight_abc(small, 1, 0, big, 1, 0, 1000000);
	tap(w == 220000, "max-min: a flow at 20 % demands 22 % (X = 10 %)", "%u ppm", w);
	w = weight_abc(three, 3, 0, three, 3, 0, 1000000);
	tap(w == 500000, "max-min: 3 and 3 long flows get 50/50", "%u ppm", w);
	w = weight_abc(long45, 1, 100000, long45, 1, 0, 1000000);
	tap(w == 550000, "max-min: short flows are served first, the rest split evenly",
	    "%u ppm", w);
	w = weight_abc(half, 1, 0, NULL, 0, 0, 1000000);
	tap(w == 500000, "max-min: an idle queue keeps a neutral half", "%u ppm", w);
	w = weight_abc(tiny, 1, 0, big, 1, 0, 1000000);
	tap(w == ABC_WEIGHT_MIN_PPM, "max-min: weights stay at least 1 %", "%u ppm", w);

	for (i = 0; i < 20000; i++) {
		u64 a[ABC_TOPK_MAX], o[ABC_TOPK_MAX];
		u32 na = 1 + (u32)(rnd64() % ABC_TOPK_MAX), j;
		u32 no = 1 + (u32)(rnd64() % ABC_TOPK_MAX);

		for (j = 0; j < na; j++)
			a[j] = rnd64() % 2000000000ULL;
		for (j = 0; j < no; j++)
			o[j] = rnd64() % 2000000000ULL;
		w = weight_abc(a, na, rnd64() % 1000000000ULL, o, no,
			       rnd64() % 1000000000ULL, rnd64() % 20000000000ULL);
		if (w < ABC_WEIGHT_MIN_PPM || w > ABC_PPM - ABC_WEIGHT_MIN_PPM)
			bad++;
	}
	tap(!bad, "max-min: random tables give weights in [1 %, 99 %] summing to 1",
	    "%u off", bad);
}

/* One period of the classic-ECN detector with the given ABC and other flows. */
static void cperiod(struct abc_classic *c, const u32 *akey, const u64 *abytes,
		    u32 na, const u32 *okey, u32 no, bool braked)
{
	struct abc_topk a, o;
	u32 i;

	abc_topk_reset(&a, ABC_TOPK_MAX);
	abc_topk_reset(&o, ABC_TOPK_MAX);
	for (i = 0; i < na; i++)
		abc_topk_add(&a, akey[i], (u32)abytes[i]);
	for (i = 0; i < no; i++)
		abc_topk_add(&o, okey[i], 100000);
	abc_classic_period(c, &a, &o, braked);
}

static void test_classic(void)
{
	/* keys 1, 9, 17, 25 and 33 share set 1 */
	static const u32 keys[] = { 7, 1, 33, 9, 17, 25 };
	static const u64 starved[] = { 230000, 6000, 6000, 6000, 6000, 6000 };
	static const u64 slow[] = { 230000, 38000, 6000 };
	struct abc_classic c = {};
	u32 i, j, found_at = 0, bad = 0, seed;

	/* 1 ABC flow at 18.4 Mbit/s, one classic at 0.5 (the split) */
	for (i = 1; i <= ABC_CLASSIC_STRIKES + 5 && !found_at; i++) {
		cperiod(&c, keys, starved, 2, NULL, 0, true);
		if (abc_classic_has(&c, 1))
			found_at = i;
	}
	tap(found_at == ABC_CLASSIC_STRIKES && abc_classic_flows(&c) == 1 && c.found == 1 &&
	    !abc_classic_has(&c, 7),
	    "classic: a flow at 1/37 of the largest under brakes is found after exactly 30 periods",
	    "found at %u, flows %u", found_at, abc_classic_flows(&c));

	/* its packets leave the ABC queue: it stays while in the other top-K */
	for (i = 0; i < 3 * ABC_CLASSIC_IDLE; i++)
		cperiod(&c, keys, starved, 1, &keys[1], 1, true);
	tap(abc_classic_has(&c, 1) && abc_classic_flows(&c) == 1,
	    "classic: kept while it is among the other queue's top-K", NULL);
	for (i = 0; i < ABC_CLASSIC_IDLE; i++)
		cperiod(&c, keys, starved, 1, NULL, 0, true);
	bad = !abc_classic_has(&c, 1);
	cperiod(&c, keys, starved, 1, NULL, 0, true);
	tap(!bad && !abc_classic_has(&c, 1) && abc_classic_flows(&c) == 0 && c.found == 1,
	    "classic: forgotten after 100 periods unseen, not before", NULL);

	/* a converging ABC flow at 1/6 of the largest is never a suspect */
	abc_classic_clear(&c);
	for (i = 0; i < 10 * ABC_CLASSIC_STRIKES; i++)
		cperiod(&c, keys, slow, 2, NULL, 0, true);
	tap(!abc_classic_flows(&c) && !c.s[1].key,
	    "classic: a flow at 1/6 of the largest is not a suspect", NULL);

	/* no brakes: nobody is starved by marks */
	abc_classic_clear(&c);
	for (i = 0; i < 10 * ABC_CLASSIC_STRIKES; i++)
		cperiod(&c, keys, starved, 2, NULL, 0, false);
	tap(!abc_classic_flows(&c) && !c.s[1].key,
	    "classic: periods without brakes add no strikes", NULL);

	/* starved, but one period in 20 at its share: never found */
	abc_classic_clear(&c);
	for (i = 1; i <= 20 * ABC_CLASSIC_STRIKES; i++) {
		static const u64 even[] = { 120000, 110000 };

		cperiod(&c, keys, i % 20 ? starved : even, 2, NULL, 0, true);
	}
	tap(!abc_classic_flows(&c),
	    "classic: a starvation interrupted every 20 periods is not classic",
	    "flows %u", abc_classic_flows(&c));

	/* absent for a few periods (an RTO), the strikes are kept */
	abc_classic_clear(&c);
	for (i = 0; i < ABC_CLASSIC_STRIKES - 1; i++)
		cperiod(&c, keys, starved, 2, NULL, 0, true);
	for (i = 0; i < ABC_SUSPECT_IDLE; i++)
		cperiod(&c, keys, starved, 1, NULL, 0, true);
	cperiod(&c, keys, starved, 2, NULL, 0, true);
	tap(abc_classic_has(&c, 1), "classic: a suspect absent for 10 periods keeps its strikes",
	    NULL);

	/* a lone flow, however small its share of the link, is not starved */
	abc_classic_clear(&c);
	for (i = 0; i < 10 * ABC_CLASSIC_STRIKES; i++)
		cperiod(&c, &keys[1], &starved[1], 1, NULL, 0, true);
	tap(!abc_classic_flows(&c) && !c.s[1].key,
	    "classic: a flow alone in the ABC queue is never a suspect", NULL);

	/* two starved flows on one set: both found at once */
	abc_classic_clear(&c);
	for (i = 0; i < ABC_CLASSIC_STRIKES; i++)
		cperiod(&c, keys, starved, 3, NULL, 0, true);
	tap(abc_classic_has(&c, 1) && abc_classic_has(&c, 33) && abc_classic_flows(&c) == 2,
	    "classic: two flows on one set are both found", "flows %u",
	    abc_classic_flows(&c));

	/* five on one set: four found; the fifth once a way is free */
	abc_classic_clear(&c);
	for (i = 0; i < ABC_CLASSIC_STRIKES; i++)
		cperiod(&c, keys, starved, 6, NULL, 0, true);
	bad = abc_classic_flows(&c) != ABC_CLASSIC_WAYS || abc_classic_has(&c, 25);
	/* flow 1 ends: forgotten after ABC_CLASSIC_IDLE, then 25 is judged */
	for (i = 0; i <= ABC_CLASSIC_IDLE + ABC_CLASSIC_STRIKES; i++) {
		static const u32 left[] = { 7, 25 };

		cperiod(&c, left, starved, 2, &keys[2], 3, true);
	}
	tap(!bad && !abc_classic_has(&c, 1) && abc_classic_has(&c, 25) &&
	    abc_classic_flows(&c) == ABC_CLASSIC_WAYS,
	    "classic: a full set takes a fifth flow once a way is free", "flows %u",
	    abc_classic_flows(&c));

	/* random periods: the count of classic flows matches the table */
	abc_classic_clear(&c);
	bad = 0;
	for (seed = 0; seed < 20000; seed++) {
		u32 ak[8], ok[8], na = 1 + (u32)(rnd64() % 8), no = (u32)(rnd64() % 8);
		u64 ab[8];

		for (i = 0; i < na; i++) {
			ak[i] = 1 + (u32)(rnd64() % 64);
			ab[i] = rnd64() % 4 ? 1 + rnd64() % 300000 : 1 + rnd64() % 3000;
		}
		for (i = 0; i < no; i++)
			ok[i] = 1 + (u32)(rnd64() % 64);
		cperiod(&c, ak, ab, na, ok, no, rnd64() % 8);
		bad += c.found < abc_classic_flows(&c);
		for (i = 0; i < ABC_CLASSIC_SLOTS; i++)
			bad += (c.s[i].key &&
				abc_classic_set(c.s[i].key) != i - i % ABC_CLASSIC_WAYS) ||
			       (abc_classic_slot(&c, i) && !c.s[i].key);
		for (i = 0; i < ABC_CLASSIC_SLOTS; i++)
			for (j = i + 1; j < ABC_CLASSIC_SLOTS; j++)
				bad += c.s[i].key && c.s[i].key == c.s[j].key;
	}
	tap(!bad && abc_classic_has(&c, 0) == false,
	    "classic: random periods keep the slots consistent, found >= flows",
	    "%u off, found %u", bad, c.found);
}

int main(void)
{
	test_eq1();
	test_law();
	test_eq2();
	test_alg1();
	test_alg1_segs();
	test_split_gso();
	test_rates();
	test_shaper();
	test_spacesaving();
	test_maxmin();
	test_classic();
	return tap_finish();
}
