// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of tcp_pcc/pcc_core.h, the PCC Allegro and Vivace control
 * logic, in TAP.
 *
 *  - Utility (sec. 2.2, 2.4) against a double-precision reference over
 *    1 kbit/s .. 100 Gbit/s and 0 .. 100 % loss; the cut-off near 5 %.
 *  - MI length (sec. 3.1) and MI bookkeeping with late, out-of-order and
 *    stray ACKs, loss attribution, re-alignment.
 *  - Control (sec. 3.2): starting state, RCT decisions on consistent,
 *    inconsistent and noisy utilities, eps growth and reset, the
 *    rate-adjusting sequence, bounds, restart after an RTO.
 *  - Closed loop on a fluid model of a bottleneck: random loss, shallow
 *    buffers and two flows converging to a fair share.
 *  - Vivace: its utility against double precision, the RTT gradient of an
 *    MI, the starting probes, the gradient step, amplifier, change
 *    bound, additive floor and heavy-loss turn, and a closed loop: low
 *    loss and queue, 1 % random loss, two flows converging.
 *  - Restart after idle: the stale-MI bound, what the controller keeps,
 *    and a packet-level sender driven like tcp_pcc.c across idle periods
 *    of up to 3 h (the u32 microsecond clock wraps every 71.6 min).
 *  - The in-flight cap: when it holds, its size, its estimate over an MI
 *    and app-limited samples, its end at the minimum cwnd.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tcp_pcc/pcc_core.h"
#include "unit_tap.h"

#define Q		65536.0
#define MSS		1448U
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* eps = 0.01 is 655 / 65536 in Q16: rates land within 10 of the decimal */
static bool near(u32 a, u32 b)
{
	return a + 10 >= b && b + 10 >= a;
}

static struct pcc_params defaults(void)
{
	struct pcc_params p = {
		.alpha = 100 << FP_SHIFT,
		.eps_min = (u32)(0.01 * Q + 0.5),
		.eps_max = (u32)(0.05 * Q + 0.5),
		.utility = PCC_UTIL_LOSS,
	};
	return p;
}

static double sig(double k, double y)
{
	return 1.0 / (1.0 + exp(k * y));
}

/* The paper's utility in double precision, bytes/s (per ms RTT for latency). */
static double ref_utility(int kind, double delivered, double lost, double dur_s,
			  double rtt, double prev_rtt)
{
	double total = delivered + lost, x, l, t, u;

	if (total == 0)
		return 0;
	x = total / dur_s;
	l = lost / total;
	t = x * (1 - l);
	u = t * sig(100, l - 0.05);
	if (kind == PCC_UTIL_LATENCY && rtt > 0 && prev_rtt > 0)
		u *= sig(PCC_LAT_BETA, rtt / prev_rtt - 1);
	u -= x * l;
	if (kind == PCC_UTIL_LATENCY && rtt > 0)
		u /= rtt / 1000.0;
	return u;
}

static double uval(s64 u)
{
	return (double)u / Q;
}

static void test_utility(void)
{
	static const double rates_bps[] = { 1e3, 5e4, 1e6, 2e7, 1e9, 1e10, 1e11 };
	static const double losses[] = { 0, 0.0001, 0.001, 0.01, 0.02, 0.04, 0.05,
					 0.06, 0.07, 0.0743, 0.08, 0.1, 0.2, 0.5, 0.9, 1 };
	struct pcc_params p = defaults();
	double worst_rel = 0, worst_abs = 0;
	int n = 0, near_zero = 0;
	size_t i, j;
	int kind;

	for (kind = PCC_UTIL_LOSS; kind <= PCC_UTIL_LATENCY; kind++) {
		p.utility = kind;
		for (i = 0; i < ARRAY_SIZE(rates_bps); i++) {
			for (j = 0; j < ARRAY_SIZE(losses); j++) {
				double x = rates_bps[i] / 8, dur = 0.08;
				double total = x * dur;
				u64 lost = (u64)llround(total * losses[j]);
				u64 del = (u64)llround(total) - lost;
				u32 rtt = 40000, prev = kind ? 38000 : 0;
				double ref = ref_utility(kind, del, lost, dur,
							 rtt, prev);
				double got = uval(pcc_utility(&p, del, lost,
							      80000, rtt, prev));
				double scale = total / dur;

				if (kind == PCC_UTIL_LATENCY)
					scale /= rtt / 1000.0;
				n++;
				/*
				 * Near the root (loss ~7.5 %) relative error
				 * is meaningless; bound it against the rate.
				 */
				if (fabs(ref) < 0.01 * scale) {
					near_zero++;
					if (fabs(got - ref) / scale > worst_abs)
						worst_abs = fabs(got - ref) / scale;
				} else if (fabs(got - ref) / fabs(ref) > worst_rel) {
					worst_rel = fabs(got - ref) / fabs(ref);
				}
			}
		}
	}
	tap(worst_rel < 0.001,
	    "utility within 0.001 relative of double precision, 1 kbit/s..100 Gbit/s, loss 0..100 %",
	    "%d points, max relative error %.2e", n - near_zero, worst_rel);
	tap(worst_abs < 0.0001,
	    "near its root the utility is within 0.0001 of the sending rate",
	    "%d points, max |error| / rate %.2e", near_zero, worst_abs);

	/* Random points, loss utility only (the latency one is checked above). */
	p.utility = PCC_UTIL_LOSS;
	worst_rel = 0;
	for (i = 0; i < 20000; i++) {
		double x = exp(log(125.0) + rndu() *
			       (log(1.25e10) - log(125.0)));
		u32 dur = 1000 + (u32)(rndu() * 2000000);
		double total = x * dur / 1e6;
		double l = rndu() * 0.2;
		u64 lost = (u64)(total * l);
		u64 del = (u64)total - lost;
		double ref = ref_utility(PCC_UTIL_LOSS, del, lost, dur / 1e6,
					 0, 0);
		double got = uval(pcc_utility(&p, del, lost, dur, 0, 0));

		if (del + lost < 100 || fabs(ref) < 0.01 * total / (dur / 1e6))
			continue;
		if (fabs(got - ref) / fabs(ref) > worst_rel)
			worst_rel = fabs(got - ref) / fabs(ref);
	}
	tap(worst_rel < 0.001, "utility on 20000 random points within 0.001",
	    "max relative error %.2e", worst_rel);

	{
		/* The cut-off: Sigmoid_100(L - 0.05) */
		u64 tot = 1000000;
		double u0 = uval(pcc_utility(&p, tot, 0, 1000000, 0, 0));
		double u4 = uval(pcc_utility(&p, tot - 40000, 40000, 1000000, 0, 0));
		double u5 = uval(pcc_utility(&p, tot - 50000, 50000, 1000000, 0, 0));
		double u6 = uval(pcc_utility(&p, tot - 60000, 60000, 1000000, 0, 0));
		double u9 = uval(pcc_utility(&p, tot - 90000, 90000, 1000000, 0, 0));

		tap(fabs(u0 - tot * sig(100, -0.05)) < 0.0001 * tot,
		    "no loss: utility = throughput x Sigmoid(-0.05)", "%.1f", u0);
		tap(u4 > 0.6 * tot && u5 > 0.4 * tot && u5 < 0.5 * tot,
		    "at 4 % loss most throughput still counts, at 5 % half",
		    "u(4%%) = %.3f x, u(5%%) = %.3f x", u4 / tot, u5 / tot);
		tap(u6 > 0 && u9 < 0,
		    "the utility turns negative between 6 % and 9 % loss",
		    "u(6%%) = %.3f x, u(9%%) = %.3f x", u6 / tot, u9 / tot);
	}
	{
		/* Random loss below the cut-off: more rate is more utility. */
		int up = 1;

		for (i = 1; i < 50; i++) {
			u64 a = i * 100000, b = (i + 1) * 100000;
			s64 ua = pcc_utility(&p, a - a / 100, a / 100, 1000000, 0, 0);
			s64 ub = pcc_utility(&p, b - b / 100, b / 100, 1000000, 0, 0);

			up &= ub > ua;
		}
		tap(up, "with 1 % random loss the utility grows with the rate", NULL);
	}
	{
		/* Latency: rising RTT lowers utility, steady RTT does not. */
		struct pcc_params pl = defaults();
		s64 same, rise;

		pl.utility = PCC_UTIL_LATENCY;
		same = pcc_utility(&pl, 1000000, 0, 1000000, 40000, 40000);
		rise = pcc_utility(&pl, 1000000, 0, 1000000, 44000, 40000);
		tap(rise < same, "latency utility: a 10 % RTT rise costs utility",
		    "steady %.0f, rising %.0f", uval(same), uval(rise));
	}
	tap(pcc_utility(&p, 0, 0, 1000, 0, 0) == 0 &&
	    pcc_utility(&p, 100, 0, 0, 0, 0) == 0,
	    "empty or zero-length MI: utility 0", NULL);
}

static void test_mi_duration(void)
{
	u32 lo = ~0U, hi = 0, i;

	for (i = 0; i < 10000; i++) {
		u32 d = pcc_mi_duration(12500000, MSS, 40000, 0, (u32)rnd64());

		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	tap(lo >= 67990 && hi <= 88000 && hi - lo > 18000,
	    "MI length uniform in [1.7, 2.2] RTT at a fast rate", "%u..%u us", lo, hi);
	/* 10 packets at 100 kB/s take 144.8 ms, more than 2.2 x 10 ms */
	tap(pcc_mi_duration(100000, MSS, 10000, 0, ~0U) == 144800,
	    "MI length at least 10 packets at a slow rate", "%u us",
	    pcc_mi_duration(100000, MSS, 10000, 0, ~0U));
	tap(pcc_mi_duration(1, MSS, 1000000, 0, 0) == 60000000 &&
	    pcc_mi_duration(PCC_RATE_MAX, MSS, 0, 0, 0) >= 1,
	    "MI length bounded at both ends", NULL);
	/* 2 ms RTT, 250 us deviation: 200 x 250 us = 50 ms */
	tap(pcc_mi_duration(PCC_RATE_MAX, MSS, 2000, 250, ~0U) == 50000 &&
	    pcc_mi_duration(PCC_RATE_MAX, MSS, 2000, 0, ~0U) == 4399,
	    "MI length at least 200 RTT deviations on a noisy short path",
	    "%u us, %u without noise",
	    pcc_mi_duration(PCC_RATE_MAX, MSS, 2000, 250, ~0U),
	    pcc_mi_duration(PCC_RATE_MAX, MSS, 2000, 0, ~0U));
	/* there the gradient floor, 3 deviations over half the MI, is 0.03 */
	{
		struct pcc_result r = { .dur_us = 50000, .rtt_dev_us = 250 };

		tap(pcc_grad_floor(&r) == PCC_VIV_NOISE_MAX,
		    "an MI of 200 deviations has the gradient floor at its cap",
		    "%d", pcc_grad_floor(&r));
	}
	/*
	 * The bound stops at 100 ms; a 40 ms path's MI with a 200 us
	 * deviation (40 ms) is the paper's.
	 */
	tap(pcc_mi_duration(PCC_RATE_MAX, MSS, 2000, 5000, 0) == 100000 &&
	    pcc_mi_duration(PCC_RATE_MAX, MSS, 40000, 200, 0) == 67999 &&
	    pcc_mi_duration(PCC_RATE_MAX, MSS, 40000, 5000, 0) == 100000 &&
	    pcc_mi_duration(PCC_RATE_MAX, MSS, 2000, U32_MAX, 0) == 100000,
	    "MI length from the RTT noise at most 100 ms", "%u, %u, %u, %u us",
	    pcc_mi_duration(PCC_RATE_MAX, MSS, 2000, 5000, 0),
	    pcc_mi_duration(PCC_RATE_MAX, MSS, 40000, 200, 0),
	    pcc_mi_duration(PCC_RATE_MAX, MSS, 40000, 5000, 0),
	    pcc_mi_duration(PCC_RATE_MAX, MSS, 2000, U32_MAX, 0));
}

static void test_monitor(void)
{
	struct pcc_mon m;
	struct pcc_result r;
	bool done;

	/* MI A: [1000, 3000); then B from 3000 */
	pcc_mon_init(&m, 1000, 2000, 100000, PCC_TAG_START);
	tap(!pcc_mon_due(&m, 2999) && pcc_mon_due(&m, 3000),
	    "an MI is due at its end", NULL);
	pcc_mon_on_ack(&m, 1100, 2, 0, 500, 0, &r);
	pcc_mon_next(&m, 3000, 2000, 200000, PCC_TAG_START, 100);
	tap(!pcc_mon_due(&m, 5000), "no new MI while the older one is open", NULL);

	/* late ACK for A, then B's first packets while A still settles */
	done = pcc_mon_on_ack(&m, 2900, 3, 1, 700, 0, &r);
	done |= pcc_mon_on_ack(&m, 3050, 1, 2, 900, 0, &r);
	/* out of order: an older packet of A SACKed after B's */
	done |= pcc_mon_on_ack(&m, 1500, 1, 0, 0, 0, &r);
	/* a packet sent before A: belongs to no MI */
	done |= pcc_mon_on_ack(&m, 500, 5, 0, 0, 0, &r);
	tap(!done, "A is not complete before a packet sent settle after its end is acked",
	    NULL);
	done = pcc_mon_on_ack(&m, 3100, 1, 0, 0, 0, &r);
	tap(done && r.delivered == 6 && r.lost == 1 && r.dur_us == 2000 &&
	    r.rate == 100000 && r.tag == PCC_TAG_START && r.rtt_us == 600,
	    "A's result: its deliveries and losses by send time, mean RTT",
	    "delivered %llu lost %llu dur %u rtt %u", (unsigned long long)r.delivered,
	    (unsigned long long)r.lost, r.dur_us, r.rtt_us);
	tap(m.cur.delivered == 2 && m.cur.lost == 2,
	    "B counted its own deliveries, and the losses its ACKs marked, meanwhile",
	    "delivered %u lost %u", m.cur.delivered, m.cur.lost);
	done = pcc_mon_on_ack(&m, 2000, 4, 1, 0, 0, &r);
	tap(!done && m.cur.delivered == 2 && m.cur.lost == 2,
	    "a very late ACK of A after it completed is ignored, its loss too",
	    NULL);
	/* losses of ACKs that deliver nothing: the older MI while open */
	pcc_mon_next(&m, 5000, 2000, 100000, PCC_TAG_START, 100);
	pcc_mon_on_ack(&m, 0, 0, 3, 0, 0, &r);
	tap(m.old.lost == 5 && m.cur.lost == 0,
	    "losses without a delivery go to the older MI while it is open",
	    "old %u cur %u", m.old.lost, m.cur.lost);
	pcc_mon_on_ack(&m, 5200, 1, 0, 0, 0, &r);
	pcc_mon_on_ack(&m, 0, 0, 4, 0, 0, &r);
	tap(!m.old.open && m.cur.lost == 4,
	    "... and to the current one once the older is complete", NULL);
	m.cur.lost = U16_MAX - 10;
	pcc_mon_on_ack(&m, 5300, 1, 100, 0, 0, &r);
	tap(m.cur.lost == U16_MAX, "an MI's loss count saturates at 65535",
	    "%u", m.cur.lost);

	/* re-align at 3500: packets sent in [3000, 3500) are dropped */
	pcc_mon_init(&m, 3000, 2000, 100000, PCC_TAG_START);
	pcc_mon_realign(&m, 3500, 2000, 150000, PCC_TAG_TRIAL0);
	pcc_mon_on_ack(&m, 3200, 2, 0, 0, 0, &r);
	pcc_mon_on_ack(&m, 3600, 3, 0, 0, 0, &r);
	tap(m.cur.delivered == 3 && m.cur.start == 3500 && m.cur.rate == 150000 &&
	    m.cur.tag == PCC_TAG_TRIAL0,
	    "after re-alignment only packets sent at the new rate count", NULL);

	/* u32 clock wrap */
	pcc_mon_init(&m, 0xffffff00U, 0x200, 100000, PCC_TAG_START);
	pcc_mon_on_ack(&m, 0xffffff80U, 1, 0, 0, 0, &r);
	tap(pcc_mon_due(&m, 0x100) && !pcc_mon_due(&m, 0xff),
	    "MI timing across the u32 clock wrap", NULL);
	pcc_mon_next(&m, 0x100, 0x200, 1, PCC_TAG_START, 0);
	done = pcc_mon_on_ack(&m, 0x100, 1, 0, 0, 0, &r);
	tap(done && r.delivered == 1 && r.dur_us == 0x200,
	    "result across the wrap", NULL);
}

/* Feed one result; return whether the rate moved. */
static bool feed(struct pcc_ctl *c, const struct pcc_params *p, u8 tag,
		 u32 rate, s64 u)
{
	return pcc_ctl_result(c, p, tag, rate, u, false, (u32)rnd64());
}

/* Start a decision round at @base and launch its four trials. */
static void trials(struct pcc_ctl *c, const struct pcc_params *p, u32 base,
		   u32 rate[4], u8 tag[4])
{
	int i;

	c->base = base;
	pcc_ctl_decide_again(c, (u32)rnd64());
	for (i = 0; i < 4; i++)
		rate[i] = pcc_ctl_next(c, p, 1, PCC_RATE_MAX, &tag[i]);
}

static void test_control(void)
{
	struct pcc_params p = defaults();
	struct pcc_ctl c;
	u32 rate[4], r, prev;
	u8 tag[4], t;
	int i, ok;

	/* Starting: doubles per MI, leaves when utility falls, back one step */
	pcc_ctl_init(&c, &p, 10000);
	ok = pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t) == 10000 && t == PCC_TAG_START;
	for (i = 1; i <= 4; i++)
		ok &= pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t) == 10000U << i;
	tap(ok, "starting state doubles the rate every MI", NULL);
	ok = !feed(&c, &p, PCC_TAG_START, 10000, 10000LL << 16);
	ok &= !feed(&c, &p, PCC_TAG_START, 20000, 20000LL << 16);
	ok &= !feed(&c, &p, PCC_TAG_START, 40000, 40000LL << 16);
	ok &= feed(&c, &p, PCC_TAG_START, 80000, 30000LL << 16);
	r = pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	tap(ok && c.state == PCC_STARTING && r == 80000 && t == PCC_TAG_START,
	    "a first utility drop in starting re-measures the same rate",
	    "state %u rate %u", c.state, r);
	prev = pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	ok = feed(&c, &p, PCC_TAG_START, 80000, 35000LL << 16);
	tap(ok && c.state == PCC_DECISION && c.base == 40000 && prev == 160000,
	    "the drop again: starting ends, back to the last better rate",
	    "state %u base %u, doubled meanwhile to %u", c.state, c.base, prev);

	/* a fall with losses clearly past the cut-off ends starting at once */
	pcc_ctl_init(&c, &p, 10000);
	for (i = 0; i < 3; i++)
		pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	feed(&c, &p, PCC_TAG_START, 10000, 10000LL << 16);
	ok = pcc_ctl_result(&c, &p, PCC_TAG_START, 20000, -(5000LL << 16), true,
			    (u32)rnd64());
	tap(ok && c.state == PCC_DECISION && c.base == 10000,
	    "a fall with clearly heavy loss ends starting without a repeat",
	    "state %u base %u", c.state, c.base);
	{
		struct pcc_result a = { .delivered = 34, .lost = 3 };
		struct pcc_result b = { .delivered = 95, .lost = 5 };
		struct pcc_result x = { .delivered = 135, .lost = 65 };
		struct pcc_result y = { .delivered = 900, .lost = 100 };
		struct pcc_result z = { 0 };

		ok = !pcc_mi_congested(&a) && !pcc_mi_congested(&b) &&
		     pcc_mi_congested(&x) && pcc_mi_congested(&y) &&
		     !pcc_mi_congested(&z);
		tap(ok, "congested: loss past 5 % by 3 Poisson sd (65 of 200, not 3 of 37)",
		    NULL);
		a.prev_rtt_us = 30000;
		a.rtt_us = 33750;
		ok = !pcc_mi_congested(&a);
		a.rtt_us = 33751;
		ok &= pcc_mi_congested(&a);
		a.prev_rtt_us = 0;
		ok &= !pcc_mi_congested(&a);
		b.prev_rtt_us = 30000;
		b.rtt_us = 40000;
		ok &= !pcc_mi_congested(&b);
		tap(ok, "congested: past 5 % loss and mean RTT up by more than 1/8 (not RTT alone)",
		    NULL);
	}

	/* one unlucky MI: the repeat does better, doubling goes on */
	pcc_ctl_init(&c, &p, 10000);
	for (i = 0; i < 3; i++)
		pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	feed(&c, &p, PCC_TAG_START, 10000, 10000LL << 16);
	feed(&c, &p, PCC_TAG_START, 20000, -(5000LL << 16));
	r = pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	ok = !feed(&c, &p, PCC_TAG_START, 20000, 19000LL << 16);
	prev = pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	ok &= !feed(&c, &p, PCC_TAG_START, 40000, 30000LL << 16);
	ok &= pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t) == 80000;
	tap(ok && r == 20000 && prev == 40000 && c.state == PCC_STARTING &&
	    c.base == 40000,
	    "one lossy MI in starting: its repeat does better, doubling goes on",
	    "repeat %u, then %u, state %u base %u", r, prev, c.state, c.base);

	/* Decision: trials at r(1 +- eps), one of each per pair */
	trials(&c, &p, 1000000, rate, tag);
	ok = 1;
	for (i = 0; i < 4; i += 2)
		ok &= (near(rate[i], 1010000) && near(rate[i + 1], 990000)) ||
		      (near(rate[i], 990000) && near(rate[i + 1], 1010000));
	r = pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	tap(ok && r == 1000000 && t == PCC_TAG_NONE,
	    "decision making: two pairs of r(1+eps), r(1-eps), then back to r",
	    "%u %u %u %u then %u", rate[0], rate[1], rate[2], rate[3], r);
	{
		int first_up = 0, n = 400;

		for (i = 0; i < n; i++) {
			trials(&c, &p, 1000000, rate, tag);
			first_up += rate[0] > 1000000;
		}
		tap(first_up > n / 2 - 60 && first_up < n / 2 + 60,
		    "the order within a pair is random", "%d of %d start high",
		    first_up, n);
	}

	/* consistent: higher rate better in both pairs -> move up */
	trials(&c, &p, 1000000, rate, tag);
	for (i = 0; i < 3; i++)
		ok = !feed(&c, &p, tag[i], rate[i], (s64)rate[i] << 16);
	ok &= feed(&c, &p, tag[3], rate[3], (s64)rate[3] << 16);
	tap(ok && c.state == PCC_ADJUSTING && c.dir == 1 && near(c.base, 1010000),
	    "consistent RCTs (higher better twice): r = r(1 + eps), adjusting up",
	    "state %u dir %d base %u", c.state, c.dir, c.base);

	/* rate adjusting: r_n = r_n-1 (1 + n eps_min) */
	r = pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	ok = near(r, 1010000) && t == PCC_TAG_ADJUST;
	prev = r;
	for (i = 1; i <= 5; i++) {
		r = pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
		ok &= fabs(r - prev * (1 + i * 655 / Q)) <= 1;
		prev = r;
	}
	tap(ok, "rate adjusting: r_n = r_n-1 (1 + n eps_min dir)", "r_5 = %u", r);
	{
		/* results: rising, then a fall -> back to r_n-1, decision */
		u32 seq[4] = { 1010000, 1020100, 1040502, 1071717 };
		s64 us[4] = { 100, 110, 120, 115 };

		ok = 1;
		for (i = 0; i < 3; i++)
			ok &= !feed(&c, &p, PCC_TAG_ADJUST, seq[i], us[i]);
		ok &= feed(&c, &p, PCC_TAG_ADJUST, seq[3], us[3]);
		tap(ok && c.state == PCC_DECISION && c.base == 1040502 &&
		    c.eps == p.eps_min,
		    "utility falls while adjusting: back to r_n-1, decision with eps_min",
		    "state %u base %u", c.state, c.base);
	}

	/* consistent the other way -> move down */
	trials(&c, &p, 1000000, rate, tag);
	for (i = 0; i < 4; i++)
		feed(&c, &p, tag[i], rate[i], -(s64)rate[i]);
	tap(c.state == PCC_ADJUSTING && c.dir == -1 && near(c.base, 990000),
	    "consistent RCTs (lower better twice): r = r(1 - eps), adjusting down",
	    "dir %d base %u", c.dir, c.base);
	r = pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	for (i = 0; i < 200; i++)
		r = pcc_ctl_next(&c, &p, 5000, PCC_RATE_MAX, &t);
	tap(r == 5000, "adjusting down stops at the minimum rate", "%u", r);

	/* inconclusive: eps grows by eps_min up to eps_max, then resets */
	c.eps = (u16)p.eps_min;
	ok = 1;
	for (i = 0; i < 6; i++) {
		u32 want = p.eps_min * (i + 2 > 5 ? 5 : i + 2);

		trials(&c, &p, 1000000, rate, tag);
		/* pair 0 says up, pair 1 says down */
		feed(&c, &p, tag[0], rate[0], rate[0] > 1000000 ? 2 : 1);
		feed(&c, &p, tag[1], rate[1], rate[1] > 1000000 ? 2 : 1);
		feed(&c, &p, tag[2], rate[2], rate[2] > 1000000 ? 1 : 2);
		ok &= feed(&c, &p, tag[3], rate[3], rate[3] > 1000000 ? 1 : 2);
		ok &= c.state == PCC_DECISION && c.base == 1000000 &&
		      abs((int)c.eps - (int)want) <= 5;
	}
	tap(ok, "inconclusive RCTs: stay at r, eps += eps_min up to eps_max",
	    "eps %.4f", c.eps / Q);
	trials(&c, &p, 1000000, rate, tag);
	tap(near(abs((int)rate[0] - 1000000), 50000),
	    "the trials use the grown eps", "%u", rate[0]);
	for (i = 0; i < 4; i++)
		feed(&c, &p, tag[i], rate[i], rate[i]);
	tap(c.state == PCC_ADJUSTING && c.eps == p.eps_min && near(c.base, 1050000),
	    "a conclusive round moves by its eps and resets eps to eps_min",
	    "base %u eps %u", c.base, c.eps);

	/* ties are not a win */
	trials(&c, &p, 1000000, rate, tag);
	for (i = 0; i < 4; i++)
		feed(&c, &p, tag[i], rate[i], 7);
	tap(c.state == PCC_DECISION && c.base == 1000000,
	    "equal utilities are inconclusive", NULL);

	/* results of the wrong kind are ignored */
	trials(&c, &p, 1000000, rate, tag);
	ok = !feed(&c, &p, PCC_TAG_NONE, 1000000, 5) &&
	     !feed(&c, &p, PCC_TAG_START, 1000000, 5) &&
	     !feed(&c, &p, PCC_TAG_ADJUST, 1000000, 5) && c.results == 0;
	tap(ok, "hold-MI and stale results do not count as trials", NULL);

	/*
	 * Noisy utility around an optimum at 1 Mbyte/s: most decisions point
	 * to it.  A wrong move needs both pairs wrong: 30 seeds gave 278-309
	 * right and 6-20 wrong.  Seeded here, so tests added above do not
	 * change the draw.
	 */
	{
		int right = 0, wrong = 0, n;

		rng_state = 0x5eed0f1c0ffee123ULL;
		for (n = 0; n < 400; n++) {
			u32 base = n & 1 ? 800000 : 1200000;

			trials(&c, &p, base, rate, tag);
			for (i = 0; i < 4; i++) {
				double x = rate[i];
				double u = x - x * x / 2e6 +
					   (rndu() - 0.5) * 10000;

				feed(&c, &p, tag[i], rate[i], (s64)(u * Q));
			}
			if (c.state == PCC_ADJUSTING) {
				bool up = c.dir > 0, below = base < 1000000;

				if (up == below)
					right++;
				else
					wrong++;
			}
		}
		tap(right > 250 && wrong < 25,
		    "noisy utilities: decisions move toward the optimum, almost never away",
		    "%d right, %d wrong of 400 rounds", right, wrong);
	}

	/* restart after an RTO */
	c.base = 1000000;
	c.state = PCC_ADJUSTING;
	pcc_ctl_restart(&c, &p, 1000);
	r = pcc_ctl_next(&c, &p, 1000, PCC_RATE_MAX, &t);
	tap(c.state == PCC_STARTING && r == 500000 && !c.have_prev,
	    "after an RTO: starting again from half the last good rate", "%u", r);
	c.base = 1500;
	pcc_ctl_restart(&c, &p, 1000);
	tap(pcc_ctl_next(&c, &p, 1000, PCC_RATE_MAX, &t) == 1000,
	    "restart never goes below the minimum rate", NULL);

	/* bounds: starting stops doubling at the maximum */
	pcc_ctl_init(&c, &p, 1000);
	for (i = 0; i < 40; i++)
		r = pcc_ctl_next(&c, &p, 1000, PCC_RATE_MAX, &t);
	tap(r == PCC_RATE_MAX, "doubling saturates at the maximum rate", "%u", r);
}

/*
 * Fluid model of a bottleneck: capacity cap (bytes/s), random loss,
 * a buffer of buf bytes drained at cap.  Each step is one MI; results
 * come back one MI late, as in the kernel.  Returns per-flow mean
 * throughput over the last half.
 */
struct sim_flow {
	struct pcc_ctl c;
	u32 rate;
	u8 tag;
	bool pending;
	u8 ptag;
	u32 prate;
	double pdel, plost;
	double thr;
};

static void sim(struct sim_flow *f, int nf, double cap, double loss,
		double buf, int steps, int start2)
{
	struct pcc_params p = defaults();
	double q = 0, dur = 0.08;
	int s, i;

	for (i = 0; i < nf; i++) {
		memset(&f[i], 0, sizeof(f[i]));
		pcc_ctl_init(&f[i].c, &p, 20000);
	}
	for (s = 0; s < steps; s++) {
		double in = 0, out, over, drop;

		for (i = 0; i < nf; i++) {
			if (i && s < start2)
				continue;
			f[i].rate = pcc_ctl_next(&f[i].c, &p, 3000, PCC_RATE_MAX,
						 &f[i].tag);
			if (f[i].pending) {
				double dl = f[i].pdel, ls = f[i].plost;
				s64 u = pcc_utility(&p, (u64)dl, (u64)ls,
						    80000, 0, 0);

				struct pcc_result r = {
					.delivered = (u64)(dl / MSS),
					.lost = (u64)(ls / MSS),
				};

				if (pcc_ctl_result(&f[i].c, &p, f[i].ptag,
						   f[i].prate, u,
						   pcc_mi_congested(&r),
						   (u32)rnd64()))
					f[i].rate = pcc_ctl_next(&f[i].c, &p, 3000,
								 PCC_RATE_MAX,
								 &f[i].tag);
			}
			in += f[i].rate;
		}
		/* queue: arrivals minus service; overflow is dropped */
		q += (in - cap) * dur;
		over = q > buf ? q - buf : 0;
		q = q < 0 ? 0 : (q > buf ? buf : q);
		out = in * dur - over;
		drop = in > 0 ? over / (in * dur) : 0;
		for (i = 0; i < nf; i++) {
			double sent = f[i].rate * dur;
			double lost = sent * (drop + (1 - drop) * loss);

			if (i && s < start2)
				continue;
			(void)out;
			f[i].pending = true;
			f[i].ptag = f[i].tag;
			f[i].prate = f[i].rate;
			f[i].pdel = sent - lost;
			f[i].plost = lost;
			if (s >= steps / 2)
				f[i].thr += (sent - lost) / dur / (steps - steps / 2);
		}
	}
}

/*
 * The starting state alone, packet by packet: MIs of max(10 packets, 1.8
 * RTT) from 10 packets per RTT, each packet lost at random with @loss,
 * and what exceeds @cap lost too; results come back one MI late.
 * Return: the rate the starting state left at (its base).
 */
static u32 start_exit(double cap, double loss, double rtt)
{
	struct pcc_params p = defaults();
	struct pcc_ctl c;
	bool pending = false;
	u8 tag, ptag = 0;
	u32 rate, prate = 0;
	u64 pdel = 0, plost = 0;
	int step;

	pcc_ctl_init(&c, &p, (u32)(10 * MSS / rtt));
	for (step = 0; step < 200; step++) {
		double dur;
		u64 n, over, lost, k;

		rate = pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &tag);
		if (pending) {
			struct pcc_result r = { .delivered = pdel, .lost = plost };
			s64 u = pcc_utility(&p, pdel * MSS, plost * MSS, 50000, 0, 0);

			if (pcc_ctl_result(&c, &p, ptag, prate, u,
					   pcc_mi_congested(&r), (u32)rnd64()))
				rate = pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &tag);
		}
		if (c.state != PCC_STARTING)
			return c.base;
		dur = fmax(10.0 * MSS / rate, 1.8 * rtt);
		n = (u64)(rate * dur / MSS);
		over = rate > cap ? (u64)((rate - cap) * dur / MSS) : 0;
		lost = over;
		for (k = over; k < n; k++)
			lost += rndu() < loss;
		pending = true;
		ptag = tag;
		prate = rate;
		pdel = n - lost;
		plost = lost;
	}
	return c.base;
}

static void test_start_exit(void)
{
	double cap = 2.5e6;	/* 20 Mbit/s, 30 ms */
	int i, low = 0, n = 400;
	u32 lo = PCC_RATE_MAX, hi = 0, b;

	rng_state = 0x57a27ULL;
	for (i = 0; i < n; i++)
		low += start_exit(cap, 0.01, 0.03) < cap / 2;
	/* Leaving on the first fall: 19 of these 400. */
	tap(low < n / 100,
	    "1 % random loss: starting leaves below half the link in < 1 % of runs",
	    "%d of %d", low, n);
	for (i = 0; i < 50; i++) {
		b = start_exit(cap, 0, 0.03);
		lo = b < lo ? b : lo;
		hi = b > hi ? b : hi;
	}
	tap(lo >= cap / 2 && hi <= cap,
	    "no random loss: starting leaves between half the link and the link",
	    "%.1f-%.1f Mbit/s", lo * 8 / 1e6, hi * 8 / 1e6);
}

static void test_closed_loop(void)
{
	struct sim_flow f[2];
	double cap = 2.5e6;	/* 20 Mbit/s */
	double losses[] = { 0, 0.005, 0.01, 0.02 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(losses); i++) {
		sim(f, 1, cap, losses[i], 75000, 3000, 0);
		tap(f[0].thr >= (i < 3 ? 0.9 : 0.8) * cap * (1 - losses[i]),
		    "model: one flow keeps the link busy under random loss",
		    "loss %.1f %%: %.1f %% of capacity", losses[i] * 100,
		    100 * f[0].thr / cap);
	}
	sim(f, 1, cap, 0, 6 * MSS, 3000, 0);
	tap(f[0].thr >= 0.85 * cap, "model: a 6-packet buffer still gives high utilisation",
	    "%.1f %% of capacity", 100 * f[0].thr / cap);
	sim(f, 2, cap, 0, 75000, 6000, 300);
	{
		double a = f[0].thr, b = f[1].thr;
		double jain = (a + b) * (a + b) / (2 * (a * a + b * b));

		tap(jain >= 0.95 && a + b >= 0.85 * cap,
		    "model: a late second flow converges to a fair share",
		    "%.2f / %.2f Mbit/s, Jain %.3f", a * 8 / 1e6, b * 8 / 1e6, jain);
	}
}

/* ---- PCC Vivace (utility=vivace) ---- */

static struct pcc_params vivace(void)
{
	struct pcc_params p = defaults();

	p.utility = PCC_UTIL_VIVACE;
	return p;
}

/*
 * Vivace's utility in double precision, Mbit/s, with the module's filters;
 * *scale: the sum of its terms' magnitudes
 */
static double ref_vivace(double rate, double lost, double dur_s, double g,
			 double *scale)
{
	double x = rate * 8 / 1e6, sd = 2 * floor(sqrt(lost)), lat, loss;

	/* PCC_VIV_GRAD_MIN, 0.01 in Q16; a falling RTT earns nothing */
	if (g < 655 / Q)
		g = 0;
	lost = lost > sd ? lost - sd : 0;
	lat = 900 * x * g;
	loss = 11.35 * lost * MSS * 8 / 1e6 / dur_s;
	*scale = pow(x, 0.9) + fabs(lat) + loss;
	return pow(x, 0.9) - lat - loss;
}

static struct pcc_result mi(u8 tag, u32 rate, u64 del, u64 lost, double g)
{
	struct pcc_result r = {
		.tag = tag, .rate = rate, .delivered = del, .lost = lost,
		.dur_us = 80000, .rtt_grad = (s32)lround(g * Q),
	};
	return r;
}

static void test_vivace_utility(void)
{
	double worst = 0;
	int i, bad = 0;

	rng_state = 0x7717aceULL;
	for (i = 0; i < 20000; i++) {
		u32 rate = (u32)exp(log(1250.0) + rndu() * (log(4e9) - log(1250.0)));
		double g = (rndu() - 0.5) * 0.4, l = rndu() * 0.2;
		u64 n = (u64)(rate * 0.08 / MSS) + 1, lost = (u64)(n * l);
		struct pcc_result r = mi(PCC_TAG_TRIAL0, rate, n - lost, lost, g);
		double scale, ref = ref_vivace(rate, lost, 0.08, r.rtt_grad / Q,
					       &scale);
		double got = pcc_vivace_utility(&r, MSS) / Q;
		double err = fabs(got - ref) / fmax(1, scale);

		worst = fmax(worst, err);
		bad += err > 0.0002;
	}
	/* against the sum of the terms: they cancel near the utility's root */
	tap(!bad, "Vivace utility X^0.9 - 900 X dRTT/dT - 11.35 X L within 0.0002 of its terms",
	    "%d off, worst %.2g", bad, worst);
	{
		struct pcc_result a = mi(PCC_TAG_TRIAL0, 2500000, 100, 0, 0.009);
		struct pcc_result q = mi(PCC_TAG_TRIAL0, 2500000, 100, 0, 0.011);
		struct pcc_result b = mi(PCC_TAG_TRIAL0, 2500000, 100, 4, 0);
		struct pcc_result c = mi(PCC_TAG_TRIAL0, 2500000, 100, 9, 0);
		s64 clean = pcc_vivace_utility(&a, MSS);
		struct pcc_params p = vivace();

		a.rtt_grad = 0;
		tap(clean == pcc_vivace_utility(&a, MSS) &&
		    clean == pcc_vivace_utility(&b, MSS) &&
		    clean > pcc_vivace_utility(&c, MSS) &&
		    clean > pcc_vivace_utility(&q, MSS) &&
		    clean == pcc_mi_utility(&p, &a, MSS),
		    "Vivace utility: an RTT gradient below 0.01 and 2 sqrt(lost) of the losses are noise",
		    NULL);
	}
	{
		/* 80 ms at 10 MB/s is 552 packets; 138 of them is 2.5 MB/s */
		struct pcc_result full = mi(PCC_TAG_TRIAL0, 2500000, 138, 0, 0.02);
		struct pcc_result late = mi(PCC_TAG_TRIAL0, 10000000, 138, 0, 0.02);
		struct pcc_result most = mi(PCC_TAG_TRIAL0, 10000000, 300, 0, 0.02);
		struct pcc_result most_at = mi(PCC_TAG_TRIAL0, 10000000, 552, 0, 0.02);
		struct pcc_result none = mi(PCC_TAG_TRIAL0, 10000000, 0, 0, 0.02);
		struct pcc_result none_at = mi(PCC_TAG_TRIAL0, 10000000, 552, 0, 0.02);
		s64 uf = pcc_vivace_utility(&full, MSS), ul = pcc_vivace_utility(&late, MSS);

		tap(llabs(uf - ul) <= llabs(uf) / 1000 &&
		    pcc_vivace_utility(&most, MSS) == pcc_vivace_utility(&most_at, MSS) &&
		    pcc_vivace_utility(&none, MSS) == pcc_vivace_utility(&none_at, MSS),
		    "Vivace utility: an MI that sent under half its rate is judged at what it sent",
		    "full %lld late %lld", (long long)uf, (long long)ul);
	}
	{
		/* 80 ms MIs: 3 deviations of 200 us over 40 ms is 0.015 */
		struct pcc_result lo = mi(PCC_TAG_TRIAL0, 2500000, 100, 0, 0.012);
		struct pcc_result hi = mi(PCC_TAG_TRIAL0, 2500000, 100, 0, 0.02);
		struct pcc_result cap = mi(PCC_TAG_TRIAL0, 2500000, 100, 0, 0.029);
		struct pcc_result over = mi(PCC_TAG_TRIAL0, 2500000, 100, 0, 0.031);
		struct pcc_result zero = mi(PCC_TAG_TRIAL0, 2500000, 100, 0, 0);
		s64 clean = pcc_vivace_utility(&zero, MSS);
		bool charged = clean > pcc_vivace_utility(&lo, MSS);

		lo.rtt_dev_us = 200;
		hi.rtt_dev_us = 200;
		cap.rtt_dev_us = 100000;
		over.rtt_dev_us = 100000;
		zero.dur_us = 0;
		tap(charged && pcc_grad_floor(&lo) == 983 &&
		    clean == pcc_vivace_utility(&lo, MSS) &&
		    clean > pcc_vivace_utility(&hi, MSS) &&
		    clean == pcc_vivace_utility(&cap, MSS) &&
		    clean > pcc_vivace_utility(&over, MSS) &&
		    pcc_grad_floor(&cap) == PCC_VIV_NOISE_MAX &&
		    pcc_grad_floor(&zero) == PCC_VIV_GRAD_MIN,
		    "Vivace utility: the gradient floor is 3 RTT deviations over half the MI, 0.01 to 0.03",
		    "floor %d", pcc_grad_floor(&lo));
	}
	{
		struct pcc_result r = mi(PCC_TAG_TRIAL0, 0, 0, 0, 0);

		tap(pcc_vivace_utility(&r, MSS) == 0, "Vivace utility of a zero rate is 0",
		    NULL);
	}
}

static void test_rtt_grad(void)
{
	struct pcc_mon m;
	struct pcc_result r;
	u32 t;
	int ok = 1;

	/* one MI of 100 ms; RTT rises 0.1 ms per ms: dRTT/dT = 0.1 */
	pcc_mon_init(&m, 1000000, 100000, 100000, PCC_TAG_START);
	for (t = 0; t < 100000; t += 500)
		pcc_mon_on_ack(&m, 1000000 + t, 1, 0, 40000 + t / 10, 0, &r);
	pcc_mon_next(&m, 1100000, 100000, 100000, PCC_TAG_START, 1000);
	ok &= pcc_mon_on_ack(&m, 1101000, 1, 0, 0, 321, &r);
	tap(ok && fabs(r.rtt_grad / Q - 0.1) < 0.002 && r.rtt_us == 44975 &&
	    r.rtt_dev_us == 321,
	    "dRTT/dT of an MI: mean RTT of its second half less its first's, over half its length",
	    "%.4f, mean rtt %u, deviation %u", r.rtt_grad / Q, r.rtt_us, r.rtt_dev_us);
	/* flat, falling, and samples in one half only */
	pcc_mon_init(&m, 0, 100000, 100000, PCC_TAG_START);
	for (t = 0; t < 100000; t += 500)
		pcc_mon_on_ack(&m, t, 1, 0, 90000 - t / 5, 0, &r);
	pcc_mon_next(&m, 100000, 100000, 100000, PCC_TAG_START, 1000);
	pcc_mon_on_ack(&m, 101000, 1, 0, 0, 0, &r);
	ok = fabs(r.rtt_grad / Q + 0.2) < 0.002;
	for (t = 100000; t < 150000; t += 500)
		pcc_mon_on_ack(&m, t, 1, 0, 40000, 0, &r);
	pcc_mon_next(&m, 200000, 100000, 100000, PCC_TAG_START, 1000);
	pcc_mon_on_ack(&m, 201000, 1, 0, 0, 0, &r);
	ok &= r.rtt_grad == 0;
	tap(ok, "dRTT/dT: a falling RTT is negative; no samples in one half: 0",
	    NULL);
}

/* Launch Vivace's round at @base: rates and tags of its two trials */
static void viv_round(struct pcc_ctl *c, const struct pcc_params *p, u32 base,
		      u32 rate[2], u8 tag[2])
{
	int i;

	c->base = base;
	c->state = PCC_DECISION;
	pcc_ctl_decide_again(c, (u32)rnd64());
	for (i = 0; i < 2; i++)
		rate[i] = pcc_ctl_next(c, p, 1, PCC_RATE_MAX, &tag[i]);
}

/*
 * Feed the round: @gu, @lu the RTT gradient and loss rate of the + trial;
 * both trials ran at mean RTT @rtt_us on a path of min RTT @min_us
 */
static bool viv_feed_rtt(struct pcc_ctl *c, const struct pcc_params *p,
			 const u32 rate[2], const u8 tag[2], double gu,
			 double gd, double lu, double ld, u32 rtt_us, u32 min_us)
{
	bool moved = false;
	int i;

	for (i = 0; i < 2; i++) {
		bool up = rate[i] > c->base;
		u64 n = (u64)(rate[i] * 0.08 / MSS) + 1;
		u64 lost = (u64)(n * (up ? lu : ld));
		struct pcc_result r = mi(tag[i], rate[i], n - lost, lost,
					 up ? gu : gd);
		s64 u;

		r.rtt_us = rtt_us;
		r.min_rtt_us = min_us;
		u = pcc_mi_utility(p, &r, MSS);
		moved |= pcc_ctl_on_result(c, p, &r, u,
					   pcc_result_congested(p, &r),
					   (u32)rnd64());
	}
	return moved;
}

static bool viv_feed(struct pcc_ctl *c, const struct pcc_params *p,
		     const u32 rate[2], const u8 tag[2], double gu, double gd,
		     double lu, double ld)
{
	return viv_feed_rtt(c, p, rate, tag, gu, gd, lu, ld, 0, 0);
}

static void test_vivace_control(void)
{
	struct pcc_params p = vivace();
	u32 rate[2], r, base;
	struct pcc_ctl c;
	int i, ok = 1;
	u8 tag[2], t;

	/* starting: a probe, then the last good rate until it is judged */
	pcc_ctl_init(&c, &p, 10000);
	for (i = 0; i < 2; i++)
		ok &= pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t) == 10000 &&
		      t == (i ? PCC_TAG_NONE : PCC_TAG_START);
	{
		struct pcc_result a = mi(PCC_TAG_START, 10000, 50, 0, 0);

		ok &= pcc_ctl_on_result(&c, &p, &a, pcc_mi_utility(&p, &a, MSS),
					false, 1);
	}
	ok &= pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t) == 20000 && t == PCC_TAG_START;
	ok &= pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t) == 10000 && t == PCC_TAG_NONE;
	tap(ok, "Vivace starting: probe at twice the last good rate, hold that until judged",
	    NULL);
	{
		/* 9 lost: 3 beyond 2 sqrt(9), 3 % of 99; 4 lost: none beyond */
		struct pcc_result a = mi(PCC_TAG_START, 20000, 90, 9, 0);

		ok = pcc_result_congested(&p, &a);
		ok &= pcc_ctl_on_result(&c, &p, &a, pcc_mi_utility(&p, &a, MSS),
					true, 1);
		a.lost = 4;
		ok &= !pcc_result_congested(&p, &a);
	}
	tap(ok && c.state == PCC_DECISION && c.base == 10000,
	    "Vivace starting ends at once on a probe losing > 2 % beyond 2 sqrt(lost), back to the last good rate",
	    "state %u base %u", c.state, c.base);

	/* one pair of trials at r(1 +- eps_max), then the rate held */
	viv_round(&c, &p, 2500000, rate, tag);
	r = pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	tap(((near(rate[0], 2625000) && near(rate[1], 2375000)) ||
	     (near(rate[0], 2375000) && near(rate[1], 2625000))) &&
	    tag[0] == PCC_TAG_TRIAL0 && tag[1] == PCC_TAG_TRIAL0 + 1 &&
	    r == 2500000 && t == PCC_TAG_NONE,
	    "Vivace decision: one pair at r(1 +- eps_max), then r until both results are in",
	    "%u %u then %u", rate[0], rate[1], r);

	/* no queue, no loss at 20 Mbit/s: up by theta x 0.9 X^-0.1 */
	ok = viv_feed(&c, &p, rate, tag, 0, 0, 0, 0);
	tap(ok && fabs((c.base - 2500000.0) / 125000 - 0.9 * pow(20, -0.1)) < 0.01 &&
	    c.step == 1 && c.state == PCC_DECISION && c.results == 0,
	    "Vivace: a clean round moves by theta gamma, gamma = 0.9 X^-0.1 (1 Mbit/s per unit)",
	    "+%.4f Mbit/s", (c.base - 2500000.0) * 8 / 1e6);
	/* the amplifier: the next round moves twice as far (100 Mbit/s: below omega r) */
	base = 12500000;
	viv_round(&c, &p, base, rate, tag);
	viv_feed(&c, &p, rate, tag, 0, 0, 0, 0);
	tap(c.step == 2 && fabs((c.base - base) / 125000.0 -
				2 * 0.9 * pow(100, -0.1)) < 0.02,
	    "Vivace: the confidence amplifier m grows while the direction holds",
	    "+%.4f Mbit/s", (c.base - base) * 8 / 1e6);

	/* at 1 Mbit/s omega r is 50 kbit/s; rounds going up may add 0.5 Mbit/s x min(m, 2) */
	pcc_ctl_init(&c, &p, 125000);
	viv_round(&c, &p, 125000, rate, tag);
	viv_feed(&c, &p, rate, tag, 0, 0, 0, 0);
	ok = c.base == 125000 + 62500;
	viv_round(&c, &p, 125000, rate, tag);
	viv_feed(&c, &p, rate, tag, 0, 0, 0, 0);
	ok &= c.base == 125000 + 125000;
	/* a queue in a trial (omega r would be 12500 here) does not deny it */
	viv_round(&c, &p, 125000, rate, tag);
	viv_feed(&c, &p, rate, tag, 0.005, 0.06, 0, 0);
	tap(ok && c.base == 125000 + 125000 && c.dir == 1,
	    "Vivace: a round going up adds at least 0.5 Mbit/s x min(m, 2), a queue in a trial or not",
	    "%u", c.base);

	/*
	 * a queue builds fast in the + trial (a capacity that fell): down by
	 * omega r, omega growing by delta
	 */
	pcc_ctl_init(&c, &p, 2500000);
	viv_round(&c, &p, 2500000, rate, tag);
	viv_feed(&c, &p, rate, tag, 0.6, 0, 0, 0);
	ok = fabs(c.base - 2375000.0) < 20 && c.dir == -1 && c.bound == 1;
	viv_round(&c, &p, 2500000, rate, tag);
	viv_feed(&c, &p, rate, tag, 0.6, 0, 0, 0);
	ok &= fabs(c.base - 2312500.0) < 20 && c.bound == 2;
	for (i = 0; i < 40; i++) {
		viv_round(&c, &p, 2500000, rate, tag);
		viv_feed(&c, &p, rate, tag, 0.6, 0, 0, 0);
	}
	ok &= c.bound == 18 && fabs(c.base - 1250000.0) < 1000;
	tap(ok, "Vivace: a queue in the + trial: down by omega r, omega = 0.05 + 0.025 k <= 0.5",
	    "base %u bound %u", c.base, c.bound);

	/* ... but by no more than the + trial overshot: g r, at least 0.02 r */
	pcc_ctl_init(&c, &p, 2500000);
	viv_round(&c, &p, 2500000, rate, tag);
	viv_feed(&c, &p, rate, tag, 0.03, 0, 0, 0);
	ok = fabs(c.base - 2425000.0) < 20 && c.dir == -1 && c.bound == 1;
	viv_round(&c, &p, 2500000, rate, tag);
	viv_feed(&c, &p, rate, tag, 0.03, 0, 0, 0);
	ok &= fabs(c.base - 2425000.0) < 20 && c.bound == 2;
	viv_round(&c, &p, 2500000, rate, tag);
	viv_feed(&c, &p, rate, tag, 0.012, 0, 0, 0);
	ok &= fabs(c.base - 2450000.0) < 20;
	/* the gradient is the + trial's, whichever of the pair came first */
	viv_round(&c, &p, 2500000, rate, tag);
	viv_feed(&c, &p, rate, tag, 0.03, 0.02, 0, 0);
	ok &= fabs(c.base - 2425000.0) < 20;
	tap(ok, "Vivace: a step down the + trial's g called is at most g r, at least 0.02 r",
	    "base %u bound %u", c.base, c.bound);
	/* heavy loss in the round: the bound omega r alone, as before */
	pcc_ctl_init(&c, &p, 2500000);
	viv_round(&c, &p, 2500000, rate, tag);
	viv_feed(&c, &p, rate, tag, 0.03, 0, 0.1, 0);
	tap(fabs(c.base - 2375000.0) < 20 && c.dir == -1,
	    "Vivace: with heavy loss in the round the step down is omega r, whatever g",
	    "base %u", c.base);
	viv_round(&c, &p, 2500000, rate, tag);
	viv_feed(&c, &p, rate, tag, 0, 0, 0, 0);
	tap(c.dir == 1 && c.step == 1 && c.bound == 0 && c.base > 2500000,
	    "Vivace: a change of direction resets the amplifier and the bound", NULL);

	/* both trials lose 10 %, the + one by chance less: still down */
	viv_round(&c, &p, 2500000, rate, tag);
	viv_feed(&c, &p, rate, tag, 0, 0, 0.09, 0.11);
	ok = c.dir == -1 && c.base < 2500000;
	/* 1 % random loss, the + trial by chance more: gamma still up */
	viv_round(&c, &p, 2500000, rate, tag);
	viv_feed(&c, &p, rate, tag, 0, 0, 0.015, 0.01);
	tap(ok && c.dir == 1 && c.base > 2500000,
	    "Vivace: trials losing > 5 % beyond chance turn the step down; 1-2 % random loss does not",
	    "dir %d base %u", c.dir, c.base);

	/* Allegro's entry point without counts: Vivace sees neither loss nor RTT */
	pcc_ctl_init(&c, &p, 2500000);
	viv_round(&c, &p, 2500000, rate, tag);
	for (i = 0; i < 2; i++) {
		struct pcc_result a = mi(tag[i], rate[i], 0, 0, 0);

		ok = pcc_ctl_result(&c, &p, tag[i], rate[i],
				    pcc_vivace_utility(&a, MSS), false, 1);
	}
	tap(ok && c.base > 2500000, "Vivace via pcc_ctl_result(): the rate term alone moves it up",
	    NULL);
}

struct viv_flow {
	struct pcc_ctl c;
	struct pcc_result r;
	u32 rate;
	u8 tag;
	bool pending;
	double thr;
};

/*
 * Vivace on a fluid bottleneck: MIs of @dur s, results one MI late; the
 * queue grows by what exceeds @cap, its overflow is dropped, and an MI's
 * dRTT/dT is the growth of the queue's delay over it.  Returns the mean
 * loss rate of the second half; thr holds each flow's goodput there.
 */
static double viv_sim(struct viv_flow *f, int nf, double cap, double loss,
		      double buf, int steps, int start2, double *qmean)
{
	struct pcc_params p = vivace();
	double q = 0, dur = 0.08, lostsum = 0, sentsum = 0;
	int s, i;

	*qmean = 0;
	for (i = 0; i < nf; i++) {
		memset(&f[i], 0, sizeof(f[i]));
		pcc_ctl_init(&f[i].c, &p, 20000);
	}
	for (s = 0; s < steps; s++) {
		double in = 0, over, drop, q0 = q;

		for (i = 0; i < nf; i++) {
			if (i && s < start2)
				continue;
			f[i].rate = pcc_ctl_next(&f[i].c, &p, 3000, PCC_RATE_MAX,
						 &f[i].tag);
			if (f[i].pending &&
			    pcc_ctl_on_result(&f[i].c, &p, &f[i].r,
					      pcc_mi_utility(&p, &f[i].r, MSS),
					      pcc_result_congested(&p, &f[i].r),
					      (u32)rnd64()))
				f[i].rate = pcc_ctl_next(&f[i].c, &p, 3000,
							 PCC_RATE_MAX, &f[i].tag);
			in += f[i].rate;
		}
		q += (in - cap) * dur;
		over = q > buf ? q - buf : 0;
		q = q < 0 ? 0 : (q > buf ? buf : q);
		drop = in > 0 ? over / (in * dur) : 0;
		for (i = 0; i < nf; i++) {
			double sent = f[i].rate * dur / MSS;
			double lost = sent * (drop + (1 - drop) * loss);

			if (i && s < start2)
				continue;
			f[i].pending = true;
			f[i].r = mi(f[i].tag, f[i].rate, (u64)(sent - lost),
				    (u64)lost, (q - q0) / cap / dur);
			if (s >= steps / 2) {
				f[i].thr += (sent - lost) * MSS / dur /
					    (steps - steps / 2);
				lostsum += lost;
				sentsum += sent;
			}
		}
		if (s >= steps / 2)
			*qmean += q / cap / (steps - steps / 2);
	}
	return sentsum > 0 ? lostsum / sentsum : 0;
}

static void test_vivace_closed_loop(void)
{
	struct viv_flow f[2];
	double cap = 2.5e6, buf = 0.04 * cap, drop, q;	/* 20 Mbit/s, 1 BDP */

	rng_state = 0x71fa5eULL;
	drop = viv_sim(f, 1, cap, 0, buf, 3000, 0, &q);
	tap(f[0].thr >= 0.85 * cap && drop < 0.001 && q < 0.25 * 0.04,
	    "Vivace model: one flow fills the link with no loss and a short queue",
	    "%.1f %% of capacity, %.2f %% lost, queue %.1f ms", 100 * f[0].thr / cap,
	    100 * drop, 1e3 * q);
	drop = viv_sim(f, 1, cap, 0.01, buf, 3000, 0, &q);
	tap(f[0].thr >= 0.85 * cap * 0.99,
	    "Vivace model: one flow keeps the link busy under 1 % random loss",
	    "%.1f %% of capacity", 100 * f[0].thr / cap);
	viv_sim(f, 2, cap, 0, buf, 6000, 300, &q);
	{
		double a = f[0].thr, b = f[1].thr;
		double jain = (a + b) * (a + b) / (2 * (a * a + b * b));

		tap(jain >= 0.95 && a + b >= 0.85 * cap,
		    "Vivace model: a late second flow converges to a fair share",
		    "%.2f / %.2f Mbit/s, Jain %.3f", a * 8 / 1e6, b * 8 / 1e6, jain);
	}
}

static void test_idle_core(void)
{
	struct pcc_params p = defaults();
	struct pcc_mon m;
	struct pcc_ctl c;
	struct pcc_result r;
	u32 t0 = 0xfff00000U, rate[4], x;
	u8 t, tag[4];
	bool ok;
	int i;

	/* 60 ms MI: stale once open 1 s + 8 x 60 ms */
	pcc_mon_init(&m, t0, 60000, 100000, PCC_TAG_START);
	tap(!pcc_mon_stale(&m, t0 + 1480000) && pcc_mon_stale(&m, t0 + 1480001),
	    "an MI is stale once open 1 s + 8 planned lengths", NULL);
	ok = pcc_mon_stale(&m, t0 + 2400U * 1000000) &&
	     pcc_mon_stale(&m, t0 + 4200U * 1000000);
	tap(ok, "an MI left open 40 or 70 min is stale (u32 age past 2^31 us)", NULL);
	pcc_mon_init(&m, t0, pcc_mi_duration(1, MSS, 0, 0, 0), 1, PCC_TAG_START);
	ok = !pcc_mon_stale(&m, t0 + 481000000) && pcc_mon_stale(&m, t0 + 481000001);
	pcc_mon_init(&m, t0, 0xffffffffU, 1, PCC_TAG_START);
	ok &= !pcc_mon_stale(&m, t0 + 600000000) && pcc_mon_stale(&m, t0 + 600000001);
	tap(ok, "the stale bound: 481 s for the longest MI, never above 10 min", NULL);

	/* old MI waiting for ACKs, current one open: drop both */
	pcc_mon_init(&m, t0, 60000, 100000, PCC_TAG_START);
	pcc_mon_on_ack(&m, t0 + 10, 1, 0, 30000, 0, &r);
	pcc_mon_next(&m, t0 + 60000, 60000, 200000, PCC_TAG_START, 7500);
	pcc_mon_drop(&m);
	ok = pcc_mon_due(&m, t0 + 60001) && !pcc_mon_stale(&m, t0 + 4200U * 1000000) &&
	     !pcc_mon_on_ack(&m, t0 + 200000, 5, 1, 30000, 0, &r) && !m.last_rtt_us;
	pcc_mon_next(&m, t0 + 300000, 60000, 100000, PCC_TAG_START, 7500);
	ok &= !m.old.open && m.cur.open && m.cur.start == t0 + 300000 &&
	      !pcc_mon_due(&m, t0 + 300001) && !m.cur.delivered;
	tap(ok, "dropped MIs give no result; the next MI starts afresh", NULL);

	/*
	 * A send with nothing in flight: a pause shorter than the MI being
	 * sent is a paced flow's gap (slower than its RTT), not idling.
	 */
	pcc_mon_init(&m, t0, 25000, 100000, PCC_TAG_START);
	ok = !pcc_mon_paused(&m, 0) && !pcc_mon_paused(&m, 24999) &&
	     pcc_mon_paused(&m, 25000) && pcc_mon_paused(&m, U32_MAX);
	pcc_mon_drop(&m);
	ok &= pcc_mon_paused(&m, 0);
	tap(ok, "a pause voids the MIs when as long as the open MI, or none is open",
	    NULL);

	/* controller: starting doubles again from the last accepted rate */
	pcc_ctl_init(&c, &p, 10000);
	pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	feed(&c, &p, PCC_TAG_START, 10000, 10000LL << 16);
	feed(&c, &p, PCC_TAG_START, 20000, 20000LL << 16);
	pcc_ctl_idle(&c, &p, 0);
	ok = pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t) == 20000 && t == PCC_TAG_START &&
	     !c.have_prev && pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t) == 40000;
	ok &= !feed(&c, &p, PCC_TAG_START, 20000, 1LL << 16) && c.base == 20000;
	tap(ok && c.state == PCC_STARTING,
	    "idle in starting: doubling goes on from the last accepted rate, no old utility",
	    "state %u base %u", c.state, c.base);

	/* decision: the round starts over at r with the same eps */
	trials(&c, &p, 1000000, rate, tag);
	c.eps = (u16)(3 * p.eps_min);
	feed(&c, &p, tag[0], rate[0], 5);
	feed(&c, &p, tag[1], rate[1], 6);
	pcc_ctl_idle(&c, &p, 0);
	ok = c.state == PCC_DECISION && !c.results && !c.launched &&
	     c.base == 1000000 && c.eps == 3 * p.eps_min;
	x = pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	/* 3 x 655 / 65536 of 1000000 is 29983.6 */
	ok &= t == PCC_TAG_TRIAL0 && abs(abs((int)x - 1000000) - 29984) <= 1;
	tap(ok, "idle in decision making: the round starts over, same r and eps",
	    "trial rate %u", x);

	/* adjusting: back to decision making at the last accepted rate */
	c.eps = (u16)p.eps_min;
	trials(&c, &p, 1000000, rate, tag);
	for (i = 0; i < 4; i++)
		feed(&c, &p, tag[i], rate[i], (s64)rate[i] << 16);
	pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	feed(&c, &p, PCC_TAG_ADJUST, c.rate, 100);
	pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	x = c.base;
	ok = c.state == PCC_ADJUSTING && c.rate > x;
	pcc_ctl_idle(&c, &p, 0);
	ok &= c.state == PCC_DECISION && c.base == x && c.rate == x &&
	      c.eps == p.eps_min && !c.results;
	tap(ok, "idle in rate adjusting: decision making at the last accepted rate",
	    "state %u base %u (was %u)", c.state, c.base, x);

	/* RTO (tcp_pcc.c's set_state): MIs dropped, half the last good rate */
	pcc_mon_init(&m, t0, 60000, 100000, PCC_TAG_START);
	pcc_mon_on_ack(&m, t0 + 10, 1, 0, 30000, 0, &r);
	pcc_mon_next(&m, t0 + 60000, 60000, 200000, PCC_TAG_START, 7500);
	x = c.base;
	pcc_on_rto(&c, &m, &p, 1000);
	ok = !m.old.open && !m.cur.open && !m.last_rtt_us &&
	     pcc_mon_due(&m, t0 + 60001) && c.state == PCC_STARTING &&
	     !c.have_prev && c.rate == x / 2 && c.base == x / 2;
	tap(ok, "an RTO drops the MIs in flight and starts over from half the last good rate",
	    "state %u rate %u (base was %u)", c.state, c.rate, x);
}

/*
 * A packet-level sender over one bottleneck (capacity, FIFO of buf_us,
 * propagation delay), driven by the calls of tcp_pcc.c in its order:
 * pcc_main() on every ACK (one per packet, losses reported with the next
 * ACK) and pcc_cwnd_event() on a send with nothing in flight.  The clock
 * is 64-bit; the core gets its low 32 bits, as the module gets
 * tp->tcp_mstamp.
 */
#define PS_RING		4096

struct ps_pkt {
	u64 sent, ack;
};

struct psim {
	struct pcc_params p;
	struct pcc_ctl c;
	struct pcc_mon m;
	u64 now, next_tx, link_free;
	double cap;		/* bytes/s */
	u32 rtt;		/* propagation, us */
	u32 buf_us;		/* bottleneck buffer, in drain time */
	u32 srtt, rate, pend_lost;
	bool tx_start;		/* the module's TX_START handler */
	u64 last_tx;		/* the last send, for the pause before TX_START */
	struct ps_pkt ring[PS_RING];
	u32 head, tail;
	u64 mark;		/* results and moves counted from here */
	u64 first_result, first_move;
	u32 results, stale;
};

static void ps_start_mi(struct psim *s, bool realign)
{
	u32 lo = 2 * MSS * 1000000ULL / s->srtt, dur;
	u8 tag;

	s->rate = pcc_ctl_next(&s->c, &s->p, lo, PCC_RATE_MAX, &tag);
	dur = pcc_mi_duration(s->rate, MSS, s->srtt, 0, (u32)rnd64());
	if (realign)
		pcc_mon_realign(&s->m, (u32)s->now, dur, s->rate, tag);
	else
		pcc_mon_next(&s->m, (u32)s->now, dur, s->rate, tag,
			     s->srtt >> 2);
}

/* pcc_main() */
static void ps_ack(struct psim *s, const struct ps_pkt *k)
{
	u32 now = (u32)s->now, rtt = (u32)(k->ack - k->sent);
	struct pcc_result r;

	s->srtt = s->srtt - (s->srtt >> 3) + (rtt >> 3);
	if (pcc_mon_stale(&s->m, now)) {
		s->stale++;
		pcc_on_idle_restart(&s->c, &s->m, &s->p, (u32)rnd64());
	}
	if (pcc_mon_on_ack(&s->m, (u32)k->sent, 1, s->pend_lost, rtt, 0, &r)) {
		s64 u = pcc_utility(&s->p, r.delivered * MSS, r.lost * MSS,
				    r.dur_us, r.rtt_us, r.prev_rtt_us);
		bool moved = pcc_ctl_result(&s->c, &s->p, r.tag, r.rate, u,
					    pcc_mi_congested(&r), (u32)rnd64());

		s->results++;
		if (!s->first_result)
			s->first_result = s->now - s->mark;
		if (moved) {
			if (!s->first_move)
				s->first_move = s->now - s->mark;
			ps_start_mi(s, true);
		}
	}
	s->pend_lost = 0;
	if (pcc_mon_due(&s->m, now))
		ps_start_mi(s, false);
}

/* pcc_cwnd_event(CA_EVENT_TX_START); the next MI is always due after it */
static void ps_tx_start(struct psim *s)
{
	u64 pause = s->now - s->last_tx;

	if (!pcc_mon_paused(&s->m, pause < U32_MAX ? (u32)pause : U32_MAX))
		return;
	pcc_on_idle_restart(&s->c, &s->m, &s->p, (u32)rnd64());
	if (pcc_mon_due(&s->m, (u32)s->now))
		ps_start_mi(s, false);
}

/* Send at the MI's rate until @until, then run until the ACKs are in. */
static void ps_run(struct psim *s, u64 until)
{
	for (;;) {
		bool ack = s->head != s->tail;
		u64 tx = s->next_tx < until ? s->next_tx : ~0ULL;

		if (ack && s->ring[s->tail % PS_RING].ack <= tx) {
			struct ps_pkt k = s->ring[s->tail++ % PS_RING];

			s->now = k.ack;
			ps_ack(s, &k);
		} else if (tx != ~0ULL) {
			u64 serv = (u64)(MSS * 1e6 / s->cap);
			u64 dep;

			s->now = tx;
			if (s->head == s->tail && s->tx_start)
				ps_tx_start(s);
			dep = (s->link_free > tx ? s->link_free : tx) + serv;
			if (dep - tx > s->buf_us + serv ||
			    s->head - s->tail == PS_RING) {
				s->pend_lost++;
			} else {
				s->link_free = dep;
				s->ring[s->head++ % PS_RING] =
					(struct ps_pkt){ tx, dep + s->rtt };
			}
			s->next_tx = tx + (u64)MSS * 1000000 / s->rate;
			s->last_tx = tx;
		} else {
			break;
		}
	}
	if (s->now < until)
		s->now = until;
}

static void ps_begin(struct psim *s, double cap, u32 rtt, u32 buf_us,
		     bool tx_start)
{
	u32 dur;
	u8 tag;

	memset(s, 0, sizeof(*s));
	s->p = defaults();
	s->cap = cap;
	s->rtt = rtt;
	s->buf_us = buf_us;
	s->srtt = rtt;
	s->tx_start = tx_start;
	s->now = 0x12345678ULL;
	/* as pcc_init(): 10 packets per RTT, the first MI from now */
	pcc_ctl_init(&s->c, &s->p, 10 * MSS * 1000000ULL / rtt);
	s->rate = pcc_ctl_next(&s->c, &s->p, 1, PCC_RATE_MAX, &tag);
	dur = pcc_mi_duration(s->rate, MSS, s->srtt, 0, (u32)rnd64());
	pcc_mon_init(&s->m, (u32)s->now, dur, s->rate, tag);
	s->next_tx = s->now;
}

/*
 * 20 s of traffic on 20 Mbit/s, 30 ms, 1-BDP buffer; idle for @idle_us;
 * then 10 s on a link of half the capacity.  Returns the rate at the end
 * and fills in when, after the idle period, the first MI completed and the
 * rate first moved (0: never).
 */
static u32 ps_idle_case(u64 idle_us, bool tx_start, u64 *first_result,
			u64 *first_move)
{
	static struct psim s;

	ps_begin(&s, 2.5e6, 30000, 30000, tx_start);
	ps_run(&s, s.now + 20000000);
	s.now += idle_us;
	s.next_tx = s.now;
	s.cap /= 2;
	s.mark = s.now;
	s.first_result = 0;
	s.first_move = 0;
	ps_run(&s, s.now + 10000000);
	*first_result = s.first_result;
	*first_move = s.first_move;
	return s.rate;
}

static void test_idle_restart(void)
{
	static const struct {
		u64 us;
		const char *name;
	} idle[] = {
		{ 1000000, "1 s" },
		{ 600000000, "10 min" },
		{ 2160000000ULL, "36 min" },
		{ 2400000000ULL, "40 min" },
		{ 4200000000ULL, "70 min" },
		{ 4290000000ULL, "71.5 min" },
		{ (1ULL << 32) + 500000, "71.6 min (2^32 us) + 0.5 s" },
		{ 10800000000ULL, "3 h" },
	};
	static struct psim s;
	char desc[160];
	u32 results, stale;
	size_t i;
	int ev;

	/* the bound never drops the MIs of a sender that keeps sending */
	rng_state = 0x1d1e5eedULL;
	ps_begin(&s, 2.5e6, 30000, 30000, true);
	ps_run(&s, s.now + 60000000);
	results = s.results;
	stale = s.stale;
	ps_begin(&s, 2.5e6, 30000, 2000000, true);
	ps_run(&s, s.now + 60000000);
	tap(!stale && !s.stale && results > 200 && s.results > 10,
	    "60 s of traffic, 30 ms with a 1-BDP and a 2 s buffer: no MI goes stale",
	    "%u and %u results, %u and %u stale", results, s.results, stale,
	    s.stale);
	ps_begin(&s, 1.25e6, 800000, 800000, true);
	ps_run(&s, s.now + 120000000);
	tap(!s.stale && s.results > 20,
	    "120 s of traffic at an 800 ms RTT: no MI goes stale",
	    "%u results, %u stale", s.results, s.stale);

	/*
	 * Idle, then the link at half its rate: an MI completes and the rate
	 * moves within a bounded time and follows the link.  ev = 1 is the
	 * module (TX_START); ev = 0 the monitor's own bound alone.  With
	 * signed u32 comparisons alone, 40 min of idle leave the MIs open
	 * for the next 31.6 min of traffic.
	 */
	for (ev = 1; ev >= 0; ev--) {
		for (i = 0; i < ARRAY_SIZE(idle); i++) {
			u64 res, mv;
			u32 rate = ps_idle_case(idle[i].us, ev, &res, &mv);
			double mbit = rate * 8 / 1e6;

			snprintf(desc, sizeof(desc),
				 "after %s idle%s: an MI completes within 1 s, the rate moves within 2 s and follows the link",
				 idle[i].name, ev ? " (TX_START)" : ", no TX_START");
			tap(res && res <= 1000000 && mv && mv <= 2000000 &&
			    mbit > 7 && mbit < 13, desc,
			    "first result %.3f s, first move %.3f s (0: none in 10 s), rate %.2f Mbit/s on 10",
			    res / 1e6, mv / 1e6, mbit);
		}
	}
}

/*
 * The in-flight cap: on while the best rate sample of the MI is below its
 * rate / 2.5 (not while starting), 1.25 x that rate x the min RTT, off
 * once it comes down to the minimum cwnd; a new MI's first sample starts
 * the estimate over, later ones and app-limited ones only raise it.
 */
static void test_cap(void)
{
	struct pcc_params p = vivace();
	const u32 rtt = 40000;	/* min RTT, us */
	struct pcc_ctl c;
	bool moved;
	u32 cap;
	u8 t;

	/* 1 MB/s sent, 0.3 MB/s delivered: samples of 12000 B over 40 ms */
	pcc_ctl_init(&c, &p, 1000000);
	moved = pcc_ctl_on_delivery(&c, 12000, rtt, false);
	tap(!moved && !c.dlv_rate && !pcc_cap_cwnd(&c, rtt, MSS, 4),
	    "cap: no estimate and no cap while starting", "estimate %u x 2 B/s, cap %u",
	    c.dlv_rate, pcc_cap_cwnd(&c, rtt, MSS, 4));
	c.state = PCC_DECISION;
	moved = pcc_ctl_on_delivery(&c, 12000, rtt, false);
	cap = pcc_cap_cwnd(&c, rtt, MSS, 4);
	/* 1.25 x 300000 B/s x 0.04 s = 15000 B = 10.4 packets */
	tap(moved && cap == 10,
	    "cap: 1.25 x the delivery rate x the min RTT while it is below the rate / 2.5",
	    "moved %d, cap %u packets, expected 10", moved, cap);
	moved = pcc_ctl_on_delivery(&c, 8000, rtt, false);
	tap(!moved && pcc_cap_cwnd(&c, rtt, MSS, 4) == 10,
	    "cap: a lower sample in the same MI does not lower the estimate",
	    "moved %d, cap %u", moved, pcc_cap_cwnd(&c, rtt, MSS, 4));
	moved = pcc_ctl_on_delivery(&c, 18000, rtt, false);
	tap(moved && !pcc_cap_cwnd(&c, rtt, MSS, 4),
	    "cap: off once the delivery rate reaches the rate / 2.5",
	    "moved %d, cap %u (450000 B/s on 1000000)", moved,
	    pcc_cap_cwnd(&c, rtt, MSS, 4));
	moved = pcc_ctl_on_delivery(&c, 20000, rtt, false);
	tap(!moved,
	    "cap: a higher sample with no cap before or after changes nothing the glue applies",
	    "moved %d", moved);

	/* the next MI: its first sample replaces the estimate */
	c.state = PCC_DECISION;
	c.launched = pcc_trials(&p);
	c.base = 1000000;
	pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	moved = pcc_ctl_on_delivery(&c, 8000, rtt, true);
	tap(!moved && !pcc_cap_cwnd(&c, rtt, MSS, 4),
	    "cap: an app-limited sample does not start an MI's estimate",
	    "moved %d, cap %u", moved, pcc_cap_cwnd(&c, rtt, MSS, 4));
	moved = pcc_ctl_on_delivery(&c, 8000, rtt, false);
	cap = pcc_cap_cwnd(&c, rtt, MSS, 4);
	/* 200000 B/s: 1.25 x 8000 B = 6.9 packets */
	tap(moved && cap == 6, "cap: a new MI's first sample starts the estimate over",
	    "moved %d, cap %u, expected 6", moved, cap);
	moved = pcc_ctl_on_delivery(&c, 4000, rtt, true);
	tap(!moved && pcc_cap_cwnd(&c, rtt, MSS, 4) == 6,
	    "cap: a lower app-limited sample does not lower the estimate",
	    "moved %d, cap %u", moved, pcc_cap_cwnd(&c, rtt, MSS, 4));
	moved = pcc_ctl_on_delivery(&c, 10000, rtt, true);
	tap(moved && pcc_cap_cwnd(&c, rtt, MSS, 4) == 8,
	    "cap: a higher app-limited sample raises it",
	    "moved %d, cap %u, expected 8", moved, pcc_cap_cwnd(&c, rtt, MSS, 4));

	/* a cap that comes down to the minimum cwnd is dropped */
	pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	pcc_ctl_on_delivery(&c, 4500, rtt, false);
	/* 112500 B/s: 1.25 x 4500 B = 3.9 packets */
	tap(pcc_ctl_capping(&c) && !pcc_cap_cwnd(&c, rtt, MSS, 4) &&
	    !pcc_cap_cwnd(&c, rtt, MSS, 3) && pcc_cap_cwnd(&c, rtt, MSS, 2) == 3,
	    "cap: none once it is down to the minimum cwnd (a queue the cap does not drain)",
	    "%u packets at a minimum of 4, %u at 3, %u at 2 (expected 0, 0, 3)",
	    pcc_cap_cwnd(&c, rtt, MSS, 4), pcc_cap_cwnd(&c, rtt, MSS, 3),
	    pcc_cap_cwnd(&c, rtt, MSS, 2));

	/*
	 * Vivace under the cap: the trials sent the same, so a round climbs
	 * by the bound (here the additive floor, 62500 B/s) even when the
	 * higher trial did worse, and stays within 10 x the delivery rate
	 */
	{
		u32 rate[2];
		u8 tag[2];

		viv_round(&c, &p, 1000000, rate, tag);
		pcc_ctl_on_delivery(&c, 12000, rtt, false);
		moved = viv_feed(&c, &p, rate, tag, 0.5, 0, 0, 0);
		tap(moved && c.base == 1062500 && c.dir == 1,
		    "cap: a round under it moves the rate up by the bound, whatever the trials' utilities",
		    "base %u, dir %d, expected 1062500, 1", c.base, c.dir);
		viv_round(&c, &p, 1000000, rate, tag);
		pcc_ctl_idle(&c, &p, 1);
		viv_round(&c, &p, 1000000, rate, tag);
		moved = viv_feed(&c, &p, rate, tag, 0.5, 0, 0, 0);
		tap(moved && c.base < 1000000 && c.dir == -1,
		    "cap: the same round without the cap moves the rate down",
		    "base %u, dir %d", c.base, c.dir);
		viv_round(&c, &p, 5000000, rate, tag);
		pcc_ctl_on_delivery(&c, 12000, rtt, false);
		viv_feed(&c, &p, rate, tag, 0, 0, 0, 0);
		tap(c.base == 3000000,
		    "cap: under it the rate stays within 10 x the delivery rate",
		    "base %u, expected 3000000 (10 x 300000 B/s)", c.base);
	}

	/* idle clears the estimate; extremes do not overflow */
	pcc_ctl_on_delivery(&c, 8000, rtt, false);
	pcc_ctl_idle(&c, &p, 1);
	tap(!pcc_cap_cwnd(&c, rtt, MSS, 4), "cap: none after idle", "cap %u",
	    pcc_cap_cwnd(&c, rtt, MSS, 4));
	pcc_ctl_init(&c, &p, PCC_RATE_MAX);
	c.state = PCC_DECISION;
	pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	pcc_ctl_on_delivery(&c, 1ULL << 40, 1000000, false);
	tap(c.dlv_rate == (1U << 31) - 1 && !pcc_cap_cwnd(&c, 10000000, MSS, 4),
	    "cap: a sample past 2^32 B/s is 2^32 - 2 B/s, no cap at the top rate",
	    "estimate %u x 2 B/s", c.dlv_rate);
	pcc_ctl_next(&c, &p, 1, PCC_RATE_MAX, &t);
	pcc_ctl_on_delivery(&c, 1ULL << 30, 1000000, false);
	cap = pcc_cap_cwnd(&c, 10000000, 100, 4);
	/* 2^30 B/s x 10 s x 1.25 / 100 B */
	tap(cap == 134217728, "cap: 2^30 B/s over a 10 s min RTT at 100 B packets",
	    "cap %u, expected 134217728", cap);
}

static void test_queue(void)
{
	struct pcc_result r = { .rtt_us = 60001, .min_rtt_us = 40000 };
	struct pcc_params p = vivace();
	const u32 share = (u32)((1000000ULL * PCC_VIV_QUEUE_MD) >> FP_SHIFT);
	const u32 bound = (u32)((1000000ULL * PCC_VIV_OMEGA0) >> FP_SHIFT);
	struct pcc_ctl c;
	u32 rate[2];
	u8 tag[2];
	bool q[4];
	int i;

	q[0] = pcc_mi_queued(&r);
	r.rtt_us = 60000;
	q[1] = pcc_mi_queued(&r);
	r.min_rtt_us = 0;
	q[2] = pcc_mi_queued(&r);
	r = (struct pcc_result){ .rtt_us = U32_MAX, .min_rtt_us = U32_MAX - 1 };
	q[3] = pcc_mi_queued(&r);
	tap(q[0] && !q[1] && !q[2] && !q[3],
	    "queue: an MI's mean RTT past 1.5 x the min RTT is a standing queue, not at it, not unknown",
	    "60001/40000 %d, 60000/40000 %d, min unknown %d, U32_MAX %d",
	    q[0], q[1], q[2], q[3]);

	/* a 2 ms path: 1.5 x is 1 ms of queue, within a host's noise */
	r = (struct pcc_result){ .rtt_us = 3999, .min_rtt_us = 2000 };
	q[0] = pcc_mi_queued(&r);
	r.rtt_us = 4000;
	q[1] = pcc_mi_queued(&r);
	r = (struct pcc_result){ .rtt_us = 3999, .min_rtt_us = 2000,
				 .delivered = 900, .lost = 100 };
	q[2] = pcc_mi_queued(&r);
	r.rtt_us = 4000;
	q[3] = pcc_mi_queued(&r);
	tap(!q[0] && q[1] && !q[2] && q[3],
	    "queue: a standing queue is 2 ms at least, by RTT or by loss",
	    "3999/2000 %d, 4000/2000 %d, lossy 3999 %d, 4000 %d",
	    q[0], q[1], q[2], q[3]);

	/* 64 lost: 2 sqrt(64) = 16 are chance, 48 x 25 = 1200 packets */
	r = (struct pcc_result){ .rtt_us = 45001, .min_rtt_us = 40000,
				 .delivered = 1136, .lost = 64 };
	q[0] = pcc_mi_queued(&r);
	r.delivered = 1135;
	q[1] = pcc_mi_queued(&r);
	r.rtt_us = 45000;
	q[2] = pcc_mi_queued(&r);
	r = (struct pcc_result){ .rtt_us = 45001, .min_rtt_us = 40000,
				 .delivered = 980, .lost = 20 };
	q[3] = pcc_mi_queued(&r);
	tap(!q[0] && q[1] && !q[2] && !q[3],
	    "queue: a loss past 1/25 beyond chance past 1.125 x the min RTT is a full queue",
	    "48 of 1200 %d, of 1199 %d, at 1.125 x %d, 20 of 1000 %d",
	    q[0], q[1], q[2], q[3]);

	for (i = 0; i < 3; i++) {
		/* 553 packets per trial at 10^7 B/s: 7 % loss is past 1/25, not 1/20 */
		static const struct {
			double gu, loss;
			u32 rtt_us;	/* both trials' mean RTT; min 40 ms */
			const char *what;
		} round[3] = {
			{ 0.5, 0.01, 48000,
			  "queue: 1 % loss and an RTT gradient, a step down by the bound" },
			{ 0, 0.07, 40000,
			  "queue: 7 % loss at the min RTT (random), a step down by the gradient" },
			{ 0, 0.07, 48000,
			  "queue: 7 % loss at 1.2 x the min RTT, a step down by PCC_VIV_QUEUE_MD" },
		};
		const u64 x = 10000000;
		const u32 want = x - ((x * (i == 2 ? PCC_VIV_QUEUE_MD :
					     PCC_VIV_OMEGA0)) >> FP_SHIFT);

		pcc_ctl_init(&c, &p, x);
		viv_round(&c, &p, x, rate, tag);
		viv_feed_rtt(&c, &p, rate, tag, round[i].gu, 0, round[i].loss,
			     round[i].loss, round[i].rtt_us, 40000);
		/* the random loss's gradient is smaller than the bound */
		tap((i == 1 ? c.base > want && c.base < x : c.base == want) &&
		    c.dir == -1, round[i].what, "base %u, dir %d, expected %s%u",
		    c.base, c.dir, i == 1 ? "above " : "", want);
	}

	for (i = 0; i < 3; i++) {
		static const struct {
			double gu;	/* RTT gradient of the higher trial */
			u32 rtt_us;	/* both trials' mean RTT; min 40 ms */
			const char *what;
		} round[3] = {
			{ 0.5, 60000,
			  "queue: none standing, a step down by the bound" },
			{ 0.5, 80000,
			  "queue: behind one, a step down by PCC_VIV_QUEUE_MD" },
			{ 0, 80000,
			  "queue: behind one, a round pointing up still climbs" },
		};
		const u32 want[3] = { 1000000 - bound, 1000000 - share, 0 };

		pcc_ctl_init(&c, &p, 1000000);
		viv_round(&c, &p, 1000000, rate, tag);
		viv_feed_rtt(&c, &p, rate, tag, round[i].gu, 0, 0, 0,
			     round[i].rtt_us, 40000);
		tap(want[i] ? c.base == want[i] && c.dir == -1 :
		    c.base > 1000000 && c.dir == 1,
		    round[i].what, "base %u, dir %d, expected %u", c.base, c.dir,
		    want[i] ? want[i] : 1000000 + 1);
	}
}

int main(void)
{
	test_utility();
	test_mi_duration();
	test_monitor();
	test_control();
	test_start_exit();
	test_closed_loop();
	test_vivace_utility();
	test_rtt_grad();
	test_vivace_control();
	test_vivace_closed_loop();
	test_idle_core();
	test_idle_restart();
	test_cap();
	test_queue();
	return tap_finish();
}
