// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of pad_shim/pad_core.h, PAD's rate estimator and ACK buffer,
 * in TAP.
 *
 *  - lambda (Eq. 2) over steady, delayed-ACK, bursty and jittered
 *    (compressed and stretched, order kept) ACK streams;
 *  - passive mode is the identity on a steady stream, on probing samples,
 *    in recovery and while app-limited;
 *  - a compressed run of ACKs engages positive mode, the buffer releases
 *    at about mu = k x lambda (Eq. 1), and the next ACK on the steady
 *    schedule releases everything;
 *  - the rate samples shown to the inner CCA: the windowed maximum of a
 *    delivery-rate sample over a jittered path, with and without PAD;
 *    under ACK aggregation, delivered stays unbiased while PAD holds,
 *    and a sample is never cut below mu over its interval;
 *  - the receiver's clock: over a jittered ACK path a probing sender's
 *    samples stay within 2 % of the receiver's rate, a real rise passes,
 *    a steady path is never cut; ms and us TSval clocks, none otherwise;
 *  - RTT samples: raised by jitter_lift x the mean change between
 *    consecutive ones beyond srtt/32, not by a growing queue, untouched
 *    when off, never wrapping;
 *  - RTO reset; a restart is idle only after an srtt without ACKs;
 *    100 Gbit/s rates, u32 time and counter wrap;
 *  - fuzzing: conservation (never more shown than acknowledged, nothing
 *    lost or counted twice), the floor, the release bound and the
 *    steady-ACK bound on every random ACK.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../pad_shim/pad_core.h"
#include "unit_tap.h"

#define Q16(x)		((u32)((x) * 65536.0 + 0.5))
#define SRTT		40000U		/* 40 ms */

static struct pad_params defaults(void)
{
	struct pad_params p = { .k = Q16(1.025), .w = 16 };

	return p;
}

/* packets per second from the core's packets/us << PAD_RATE_SHIFT */
static double pps(u64 r)
{
	return r * 1e6 / (double)(1ULL << PAD_RATE_SHIFT);
}

struct sim {
	struct pad_core c;
	struct pad_params p;
	u32 now, delivered, srtt;
	u64 acked_in, shown;		/* totals */
	int identity_breaks;
	int conserve_breaks;
	struct pad_out o;
	enum pad_event ev;
};

static void sim_init(struct sim *s, u32 t0, u32 d0)
{
	memset(s, 0, sizeof(*s));
	pad_reset(&s->c);
	s->p = defaults();
	s->now = t0;
	s->delivered = d0;
	s->srtt = SRTT;
}

/*
 * One ACK of n packets at time t; snd_rate_pps is the send rate of the
 * sampled packets (for the probing test), 0 for "same as the ACK rate".
 */
static void sim_ack(struct sim *s, u32 t, u32 n, double snd_rate_pps,
		    bool app_limited, bool recovery)
{
	struct pad_ack a = {
		.now_us = t,
		.acked = n,
		.srtt_us = s->srtt,
		.app_limited = app_limited,
		.recovery = recovery,
	};
	u32 snd_us;

	s->now = t;
	s->delivered += n;
	a.delivered = s->delivered;
	/* a sample over one RTT's worth of deliveries */
	a.rs_delivered = n ? 20 : -1;
	snd_us = snd_rate_pps > 0 ? (u32)(20 / snd_rate_pps * 1e6) : s->srtt;
	a.snd_interval_us = snd_us;
	s->ev = pad_on_ack(&s->c, &s->p, &a, &s->o);
	s->acked_in += n;
	s->shown += s->o.acked;
	if (s->acked_in != s->shown + s->c.held || s->shown > s->acked_in)
		s->conserve_breaks++;
	if (s->o.acked != n ||
	    (a.rs_delivered >= 0 && s->o.delivered != a.rs_delivered))
		s->identity_breaks++;
}

/*
 * ACK aggregation: 20 Mbit/s of 1500-byte packets (1700 pkt/s) whose ACKs
 * arrive in batches every slot_us, 2 packets per ACK, 5 us apart; each
 * rate sample spans one 40 ms RTT.  Returns the mean delivered shown to
 * the inner CCA over the stack's; *now_only is the same for a sample less
 * everything held now (the first version's rule), *positive the share of
 * ACKs that left packets held, *above the number of samples shown above
 * the stack's.
 */
static double aggregated(u32 slot_us, u32 interval_us, double *now_only,
			 double *positive, u32 *above)
{
	struct pad_params p = defaults();
	struct pad_core c;
	struct pad_out o;
	u32 per_slot = (u32)(1700.0 * slot_us / 1e6 + 0.5), dlv = 0, t, j;
	double rs = 0, shown = 0, naive = 0, pos = 0, n = 0;
	struct pad_ack a = { .srtt_us = SRTT, .snd_interval_us = SRTT };

	pad_reset(&c);
	a.interval_us = interval_us;
	*above = 0;
	for (t = 1000; t < 6000000; t += slot_us) {
		for (j = 0; j < per_slot; j += 2) {
			a.now_us = t + j * 5;
			a.acked = 2;
			dlv += 2;
			a.delivered = dlv;
			a.rs_delivered = 68;	/* 40 ms at 1700 pkt/s */
			pad_on_ack(&c, &p, &a, &o);
			*above += o.delivered > a.rs_delivered;
			if (t < 1000000)
				continue;
			rs += a.rs_delivered;
			shown += o.delivered;
			naive += c.held < 68 ? 68 - c.held : 0;
			pos += c.held > 0;
			n++;
		}
	}
	*positive = pos / n;
	*now_only = naive / rs;
	/* then 2 s of steady ACKs: PAD lets go and forgets what it held */
	for (j = 0; j < 1700; j++) {
		a.now_us = t + (u32)(j * 1e6 / 850);
		a.acked = 2;
		dlv += 2;
		a.delivered = dlv;
		pad_on_ack(&c, &p, &a, &o);
	}
	if (c.held || c.held_avg || o.delivered != a.rs_delivered)
		*positive = -1;
	return shown / rs;
}

static void test_aggregation(void)
{
	double r10, r20, n10, n20, pos10, pos20, f20, nf, posf;
	u32 up10, up20, upf;

	/* interval 0: the stack's interval unknown, so no floor */
	r10 = aggregated(10000, 0, &n10, &pos10, &up10);
	r20 = aggregated(20000, 0, &n20, &pos20, &up20);
	/*
	 * 68 packets in 40 ms is below mu: with no sample above the
	 * stack's, a mean of exactly 1 means none was cut
	 */
	f20 = aggregated(20000, SRTT, &nf, &posf, &upf);
	tap(f20 == 1.0 && !upf && posf > 0.5,
	    "ACK batches: a sample at the ACK rate over its interval is never cut, though packets are held",
	    "mean shown / stack's %.3f, %u above it, holding on %.0f %% of ACKs",
	    f20, upf, posf * 100);
	tap(pos10 > 0.5 && pos20 > 0.5,
	    "ACK batches every 10 and 20 ms keep the buffer holding; steady ACKs after them pass untouched",
	    "holding on %.0f %% and %.0f %% of ACKs", pos10 * 100, pos20 * 100);
	tap(!up10 && !up20, "ACK batches: no sample shown above the stack's", "%u, %u",
	    up10, up20);
	tap(r10 > n10 + 0.02 && r20 > n20 + 0.05 && r10 <= 1 && r20 <= 1,
	    "ACK batches: only what is held above the last srtt's average is taken off",
	    "mean shown / stack's %.3f at 10 ms, %.3f at 20 ms; less all held: %.3f, %.3f",
	    r10, r20, n10, n20);
}

/*
 * ACK batches whose samples claim more than mu (68 packets in 30 ms,
 * 2267 pkt/s, against an ACK rate of 1700): those are cut, but never
 * below mu over their interval.
 */
static void test_floor(void)
{
	struct pad_params p = defaults();
	struct pad_ack a = { .srtt_us = SRTT, .snd_interval_us = SRTT,
			     .interval_us = 30000 };
	u32 dlv = 0, t, j, cut = 0, low = 0, floor_pkts = 0;
	struct pad_core c;
	struct pad_out o;

	pad_reset(&c);
	for (t = 1000; t < 6000000; t += 20000) {
		for (j = 0; j < 34; j += 2) {
			a.now_us = t + j * 5;
			a.acked = 2;
			dlv += 2;
			a.delivered = dlv;
			a.rs_delivered = 68;
			pad_on_ack(&c, &p, &a, &o);
			if (t < 1000000)
				continue;
			floor_pkts = (u32)((pad_mu(&c, &p) * 30000) >>
					   PAD_RATE_SHIFT);
			cut += o.delivered < 68;
			low += o.delivered < (s32)floor_pkts;
		}
	}
	tap(cut > 0 && !low,
	    "ACK batches: a sample above mu over its interval is cut, never below mu x interval",
	    "%u samples cut, %u below the floor (%u packets)", cut, low,
	    floor_pkts);
}

/* ---- lambda ---- */

static void test_lambda(void)
{
	static const double rates[] = { 1700, 17000, 8.6e6 };	/* 20M, 200M, 100G */
	struct sim s;
	double err, worst = 0;
	unsigned int i, j;
	u32 t;

	for (i = 0; i < 3; i++) {
		double gap = 1e6 / rates[i];

		sim_init(&s, 1000, 0);
		for (j = 0; j < (unsigned int)(rates[i] * 1.0); j++) {
			t = 1000 + (u32)(j * gap);
			sim_ack(&s, t, 1, 0, false, false);
		}
		err = fabs(pps(s.c.lambda) - rates[i]) / rates[i];
		if (err > worst)
			worst = err;
	}
	tap(worst < 0.01, "lambda of a steady stream within 1 % (20 Mbit/s .. 100 Gbit/s)",
	    "worst error %.4f %%", worst * 100);

	/* delayed ACKs: 2 packets every 2 / lambda */
	sim_init(&s, 0, 0);
	for (j = 0; j < 2000; j++)
		sim_ack(&s, (u32)(j * 2e6 / 1700), 2, 0, false, false);
	err = fabs(pps(s.c.lambda) - 1700) / 1700;
	tap(err < 0.01, "lambda with delayed ACKs (2 packets per ACK) within 1 %",
	    "%.1f pkt/s for 1700", pps(s.c.lambda));

	/* bursty: 16 ACKs 10 us apart every 16 / lambda */
	sim_init(&s, 0, 0);
	for (j = 0; j < 4000; j++)
		sim_ack(&s, (u32)((j / 16) * 16e6 / 1700 + (j % 16) * 10), 1, 0,
			false, false);
	err = fabs(pps(s.c.lambda) - 1700) / 1700;
	tap(err < 0.02, "lambda with bursts of 16 ACKs within 2 %",
	    "%.1f pkt/s for 1700", pps(s.c.lambda));

	/*
	 * Jitter: the ACK path delay changes every 100 ms (normal, sigma
	 * 6 ms, as in the paper's sec. 4) with order kept, so ACKs bunch
	 * when it falls and spread when it rises.
	 */
	{
		double delay = 0.04, last = 0, t_s, next_change = 0.1;
		double lo = 1e9, hi = 0, l;

		sim_init(&s, 0, 0);
		for (j = 0; j < 1700 * 20; j++) {
			t_s = j / 1700.0;
			if (t_s >= next_change) {
				double u1 = rndu() + 0.000000000001, u2 = rndu();

				delay = 0.04 + 0.006 * sqrt(-2 * log(u1)) *
					cos(2 * M_PI * u2);
				if (delay < 0.005)
					delay = 0.005;
				next_change += 0.1;
			}
			if (t_s + delay > last)
				last = t_s + delay;
			sim_ack(&s, (u32)(last * 1e6), 1, 0, false, false);
			if (t_s > 2) {
				l = pps(s.c.lambda);
				if (l < lo)
					lo = l;
				if (l > hi)
					hi = l;
			}
		}
		tap(lo > 1700 * 0.93 && hi < 1700 * 1.07,
		    "lambda over a jittered path (sigma 6 ms) stays within 7 % of the rate",
		    "%.0f .. %.0f pkt/s for 1700", lo, hi);
	}

	/* w: the window follows w x srtt */
	sim_init(&s, 0, 0);
	s.p.w = 1;
	for (j = 0; j < 1700; j++)
		sim_ack(&s, (u32)(j * 1e6 / 1700), 1, 0, false, false);
	for (j = 0; j < 340; j++)	/* rate doubles for 100 ms */
		sim_ack(&s, 1000000 + (u32)(j * 1e6 / 3400), 1, 0, false, false);
	tap(pps(s.c.lambda) > 3000, "w = 1: lambda follows a rate change within a few RTTs",
	    "%.0f pkt/s after 100 ms at 3400", pps(s.c.lambda));

	sim_init(&s, 0, 0);
	sim_ack(&s, 0, 1, 0, false, false);
	sim_ack(&s, 1000, 1, 0, false, false);
	tap(s.c.lambda == 0 && s.o.acked == 1,
	    "no lambda before half an srtt of history: samples pass", NULL);
}

/* ---- passive mode ---- */

static void test_passive(void)
{
	struct sim s;
	unsigned int j;
	u32 t = 0;

	sim_init(&s, 0, 0);
	for (j = 0; j < 20000; j++)
		sim_ack(&s, (u32)(j * 1e6 / 1700), 1, 0, false, false);
	tap(!s.identity_breaks && !s.c.held,
	    "steady stream, 1 packet per ACK: every sample passes untouched",
	    "%d changed", s.identity_breaks);

	sim_init(&s, 0, 0);
	for (j = 0; j < 10000; j++)
		sim_ack(&s, (u32)(j * 2e6 / 1700), 2, 0, false, false);
	tap(!s.identity_breaks, "steady delayed ACKs (2 per ACK): identity",
	    "%d changed", s.identity_breaks);

	/* 4 back-to-back packets ACKed at once now and then: within depth */
	sim_init(&s, 0, 0);
	for (j = 0; j < 10000; j++) {
		t = (u32)(j * 1e6 / 1700);
		sim_ack(&s, t, (j % 50) ? 1 : 4, 0, false, false);
		if (!(j % 50))
			t += 3 * 588;
	}
	tap(!s.identity_breaks, "an occasional 4-packet ACK stays passive",
	    "%d changed", s.identity_breaks);

	/* compressed ACKs while probing, app-limited, or in recovery */
	sim_init(&s, 0, 0);
	for (j = 0; j < 2000; j++)
		sim_ack(&s, (u32)(j * 1e6 / 1700), 1, 0, false, false);
	t = s.now;
	s.identity_breaks = 0;
	for (j = 0; j < 50; j++)
		sim_ack(&s, t + j * 10, 1, 1.25 * 1700, false, false);
	for (j = 0; j < 50; j++)
		sim_ack(&s, t + 1000 + j * 10, 1, 0, true, false);
	for (j = 0; j < 50; j++)
		sim_ack(&s, t + 2000 + j * 10, 1, 0, false, true);
	tap(!s.identity_breaks,
	    "compressed ACKs pass untouched when probing, app-limited or in recovery",
	    "%d changed", s.identity_breaks);
}

/* ---- positive mode ---- */

static void test_positive(void)
{
	struct sim s;
	unsigned int j, engaged = 0, maxheld = 0;
	u32 t, held_after_burst, cut;
	u64 shown0;
	double mu;

	sim_init(&s, 0, 0);
	for (j = 0; j < 2000; j++)
		sim_ack(&s, (u32)(j * 1e6 / 1700), 1, 0, false, false);
	mu = pps(pad_mu(&s.c, &s.p));
	t = s.now;
	shown0 = s.shown;
	/* 30 ACKs in 3 ms: a delay drop bunched 17 ms of ACKs */
	for (j = 1; j <= 30; j++) {
		sim_ack(&s, t + j * 100, 1, 0, false, false);
		if (s.ev == PAD_EV_ENGAGE)
			engaged++;
		if (s.c.held > maxheld)
			maxheld = s.c.held;
	}
	held_after_burst = s.c.held;
	tap(engaged == 1 && held_after_burst > 20,
	    "30 ACKs in 3 ms engage positive mode and are held",
	    "held %u, mu %.0f pkt/s", held_after_burst, mu);
	tap(s.shown - shown0 <= (u64)(mu * 0.003 + PAD_DEPTH_PKTS + 1 + 1.7),
	    "released during the bunch: at most mu x 3 ms + depth",
	    "%llu packets", (unsigned long long)(s.shown - shown0));
	cut = s.c.held > pad_held_avg(&s.c) ? s.c.held - pad_held_avg(&s.c) : 0;
	tap(s.o.delivered < 20 && s.o.delivered == (cut < 20 ? 20 - (s32)cut : 0),
	    "the sample's delivered: less what is held above the last srtt's average",
	    "delivered %d, held %u, held over the last srtt %u", s.o.delivered, s.c.held,
	    pad_held_avg(&s.c));

	/* the next ACKs come late (the gap after the bunch) */
	t = s.now;
	sim_ack(&s, t + 4000, 1, 0, false, false);
	tap(s.c.held > 0 && s.c.held < held_after_burst,
	    "an ACK 4 ms later releases about mu x 4 ms",
	    "held %u -> %u", held_after_burst, s.c.held);
	/* on the steady schedule: the bunch would have ended by now */
	sim_ack(&s, t + (u32)(32 * 1e6 / 1700), 1, 0, false, false);
	tap(s.c.held == 0 && s.ev == PAD_EV_RELEASE,
	    "the next ACK on the steady schedule releases everything",
	    "held %u, event %d", s.c.held, s.ev);
	tap(!s.conserve_breaks, "nothing lost or counted twice", "%d breaks",
	    s.conserve_breaks);

	/* probing flushes */
	for (j = 1; j <= 30; j++)
		sim_ack(&s, s.now + 100, 1, 0, false, false);
	t = s.c.held;
	sim_ack(&s, s.now + 100, 1, 2 * 1700, false, false);
	tap(t > 0 && s.c.held == 0 && s.ev == PAD_EV_PROBE && s.o.acked == t + 1,
	    "a probing sample (send rate 2 x mu) releases everything",
	    "held %u, shown %u", (u32)t, s.o.acked);

	/* held is bounded by half an srtt at mu */
	for (j = 1; j <= 2000; j++)
		sim_ack(&s, s.now + 10, 1, 0, false, false);
	mu = pps(pad_mu(&s.c, &s.p));
	tap(s.c.held <= (u32)(mu * SRTT / 2e6) + 1,
	    "held never exceeds half an srtt at mu",
	    "held %u, bound %.0f", s.c.held, mu * SRTT / 2e6);

	/* RTO */
	pad_reset(&s.c);
	sim_ack(&s, s.now + 10, 3, 0, false, false);
	tap(s.c.lambda == 0 && !s.c.held && s.o.acked == 3,
	    "after an RTO reset PAD is passive until lambda is known again", NULL);
}

/*
 * A jittered path, as in the paper's sec. 4 (10 Mbit/s, 160 ms, delay
 * redrawn every 100 ms, normal with sigma 12 ms, order kept): ACKs arrive
 * at the link rate plus the bunching and spreading of the delay changes.
 * A delivery-rate sample over one RTT of ACKs (as BBR's spans about one
 * flight): packets shown over their ACK time, and its maximum over 1 s
 * windows (BBR keeps a windowed maximum), with and without PAD.  Without
 * PAD the maximum overestimates the rate by about delay change / RTT;
 * with PAD it stays near mu.
 */
#define JWIN	(850 * 16 / 100)	/* ACKs in 160 ms at 850 pkt/s */

static void test_jitter_samples(void)
{
	const double rate = 850;
	double delay = 0.16, last = 0, next_change = 0.1;
	double ring_t[JWIN + 1], ring_raw[JWIN + 1], ring_pad[JWIN + 1];
	double raw_max = 0, pad_max = 0, sum_raw = 0, sum_pad = 0;
	double cum_raw = 0, cum_pad = 0, dt;
	unsigned int j, o, windows = 0;
	struct sim s;

	sim_init(&s, 0, 0);
	s.srtt = 160000;
	for (j = 0; j < 850 * 120; j++) {
		double t_s = j / rate;

		if (t_s >= next_change) {
			double u1 = rndu() + 0.000000000001, u2 = rndu();

			delay = 0.16 + 0.012 * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
			if (delay < 0.02)
				delay = 0.02;
			next_change += 0.1;
		}
		if (t_s + delay > last)
			last = t_s + delay;
		sim_ack(&s, (u32)(last * 1e6), 1, 0, false, false);
		cum_raw += 1;
		cum_pad += s.o.acked;
		o = j % (JWIN + 1);
		ring_t[o] = last;
		ring_raw[o] = cum_raw;
		ring_pad[o] = cum_pad;
		if (t_s < 5)
			continue;
		o = (j + 1) % (JWIN + 1);	/* JWIN ACKs ago */
		dt = last - ring_t[o];
		if (dt > 0) {
			if ((cum_raw - ring_raw[o]) / dt > raw_max)
				raw_max = (cum_raw - ring_raw[o]) / dt;
			if ((cum_pad - ring_pad[o]) / dt > pad_max)
				pad_max = (cum_pad - ring_pad[o]) / dt;
		}
		if (!(j % 850)) {
			sum_raw += raw_max;
			sum_pad += pad_max;
			windows++;
			raw_max = 0;
			pad_max = 0;
		}
	}
	sum_raw /= windows * rate;
	sum_pad /= windows * rate;
	tap(sum_pad < sum_raw && sum_pad < 1.06,
	    "jittered path: 1 s max of a one-RTT delivery-rate sample falls with PAD",
	    "without PAD %.3f x rate, with PAD %.3f x rate", sum_raw, sum_pad);
}

/* ---- RTT samples under jitter ---- */

/* One ACK carrying an RTT sample, alone: the buffer's inputs are steady. */
static s32 rtt_ack(struct pad_core *c, const struct pad_params *p, u32 t,
		   s32 rtt_us, bool delayed)
{
	struct pad_ack a = {
		.now_us = t, .acked = 1, .delivered = t / 500,
		.rs_delivered = 80, .snd_interval_us = SRTT,
		.srtt_us = SRTT, .rtt_us = rtt_us, .ack_delayed = delayed,
	};
	struct pad_out o;

	pad_on_ack(c, p, &a, &o);
	return o.rtt_us;
}

static void test_rtt_lift(void)
{
	struct pad_params p = defaults(), off = defaults();
	double sum_d = 0, lift = 0, raw_min = 1e9, shown_min = 1e9;
	unsigned int j, changed = 0, n = 0;
	struct pad_core c;
	s32 prev = 0, r, shown;

	p.lift = Q16(2);
	off.lift = 0;

	/* off: every sample as the stack's, also under jitter */
	pad_reset(&c);
	for (j = 0; j < 5000; j++) {
		r = 40000 + (s32)(rndu() * 20000);
		changed += rtt_ack(&c, &off, j * 500, r, false) != r;
	}
	changed += rtt_ack(&c, &off, j * 500, -1, false) != -1;
	tap(!changed, "jitter_lift 0: RTT samples shown as the stack's", NULL);

	/* a queue building at a packet every two ACKs: almost no lift */
	pad_reset(&c);
	for (j = 0; j < 4000; j++) {
		r = 40000 + (s32)(j * 300);
		shown = rtt_ack(&c, &p, j * 500, r, false);
	}
	tap(shown == r, "a growing queue is not jitter: no lift",
	    "lift %d us", shown - r);

	/* i.i.d. jitter, sd 5 ms: lift 2 x (mean change - srtt/32) */
	pad_reset(&c);
	for (j = 0; j < 20000; j++) {
		double u1 = rndu() + 0.000000000001, u2 = rndu();

		r = 40000 + (s32)(5000 * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2));
		shown = rtt_ack(&c, &p, j * 500, r, false);
		if (j >= 1000) {
			sum_d += abs(r - prev);
			lift += shown - r;
			raw_min = r < raw_min ? r : raw_min;
			shown_min = shown < shown_min ? shown : shown_min;
			n++;
		}
		prev = r;
	}
	sum_d /= n;
	lift /= n;
	tap(fabs(lift - 2 * (sum_d - SRTT / 32)) < 0.1 * 2 * sum_d &&
	    shown_min > raw_min + sum_d,
	    "jitter: samples raised by 2 x the mean change beyond srtt/32",
	    "mean change %.0f us, mean lift %.0f us, min %.0f -> %.0f us",
	    sum_d, lift, raw_min, shown_min);

	/* an RTO clears the ACK history, not the jitter */
	pad_restart(&c);
	r = rtt_ack(&c, &p, j * 500, 40000, false);
	tap(r - 40000 > sum_d && !c.lambda && c.cp_count == 1,
	    "after an RTO or idle restart samples are still raised",
	    "lift %d us", r - 40000);

	/* delayed ACKs do not feed the estimate; no sample passes through */
	pad_reset(&c);
	for (j = 0; j < 2000; j++)
		rtt_ack(&c, &p, j * 500, j & 1 ? 80000 : 40000, true);
	shown = rtt_ack(&c, &p, j * 500, 40000, false);
	r = rtt_ack(&c, &p, j * 500 + 500, -1, false);
	tap(shown == 40000 && r == -1,
	    "delayed-ACK samples do not count as jitter; no sample stays none",
	    "shown %d, then %d", shown, r);

	/* the largest lift on the largest jitter: no wrap; absurd RTTs pass */
	pad_reset(&c);
	p.lift = Q16(16);
	for (j = 0; j < 200; j++)
		shown = rtt_ack(&c, &p, j * 500, j & 1 ? PAD_MAX_DT_US : 0, false);
	r = rtt_ack(&c, &p, j * 500, S32_MAX, false);
	tap(shown > (s32)PAD_MAX_DT_US && r == S32_MAX,
	    "16 x a jitter of 16.7 s does not wrap; an RTT past it passes as it is",
	    "%d, %d", shown, r);
}

/* ---- overflow and wrap ---- */

static void test_wrap(void)
{
	struct sim s;
	unsigned int j;
	u32 t0 = 0xffffffffU - 500000, d0 = 0xffffffffU - 1000;

	sim_init(&s, t0, d0);
	for (j = 0; j < 5000; j++)
		sim_ack(&s, t0 + (u32)(j * 1e6 / 1700), 1, 0, false, false);
	tap(fabs(pps(s.c.lambda) - 1700) < 17 && !s.identity_breaks,
	    "time and delivered wrap around u32: lambda right, identity kept",
	    "%.1f pkt/s", pps(s.c.lambda));

	/* 100 Gbit/s with 64-packet ACKs, then a 1-hour gap */
	sim_init(&s, 0, 0);
	for (j = 0; j < 200000; j++)
		sim_ack(&s, (u32)(j * 64e6 / 8.6e6), 64, 0, false, false);
	sim_ack(&s, s.now + 3600U * 1000000U, 64, 0, false, false);
	tap(!s.conserve_breaks && s.c.held == 0,
	    "100 Gbit/s and a 1 hour gap: no overflow, nothing held",
	    "lambda %.3g pkt/s", pps(s.c.lambda));

	/* absurd inputs: everything delivered at once, zero srtt */
	sim_init(&s, 0, 0);
	sim_ack(&s, 0, 1, 0, false, false);
	sim_ack(&s, 50000, 0xfffffff0U, 0, false, false);
	tap(s.c.lambda <= PAD_MAX_RATE && !s.conserve_breaks,
	    "2^32 packets in one ACK: lambda capped, counts consistent", NULL);
}

/* ---- restart after idle ---- */

static void test_idle(void)
{
	struct sim s;
	unsigned int j;
	u32 last;

	sim_init(&s, 0xffffffffU - 20000, 0);
	tap(!pad_idle(&s.c, s.now + 10 * SRTT, SRTT, true),
	    "no ACK yet: nothing to clear", NULL);
	for (j = 0; j < 400; j++)
		sim_ack(&s, s.now + 600, 1, 0, false, false);
	last = s.c.last_us;
	tap(!pad_idle(&s.c, last, SRTT, false) &&
	    !pad_idle(&s.c, last + SRTT - 1, SRTT, false),
	    "a pipe drained for less than an srtt (ProbeRTT) is not idle",
	    "last ACK at %u", last);
	tap(pad_idle(&s.c, last + SRTT, SRTT, false) &&
	    pad_idle(&s.c, last + 1, 0, false),
	    "an srtt without ACKs, or no srtt, is idle", NULL);
	tap(pad_idle(&s.c, last + 1, SRTT, true),
	    "a gap that wrapped the microseconds (a coarser clock says long) is idle",
	    NULL);
}

/* ---- the receiver's clock ---- */

struct rx_path {
	double rate0, rate1, t_rise;	/* receiver's pkt/s, before and after */
	double gain;			/* sender's rate over the receiver's */
	double jit_s;			/* sigma of the ACK path's delay */
	u32 tick_us, tsv0;		/* the peer's TSval clock */
	bool no_tsv;
};

struct rx_result {
	double max_before;	/* mean 1 s maximum of the shown rate / rate0 */
	double max_after;	/* the same after the rise (last 5 s) / rate1 */
	double rise_s;		/* first shown sample >= 0.96 x rate1 after it */
	u64 bounded;		/* samples cut by the receiver's clock */
};

/*
 * A backlogged sender through a bottleneck: packet j reaches the receiver
 * at the bottleneck's rate, which stamps it in its TSval and ACKs it at
 * once; the ACK path's delay moves every 100 ms to a new normal draw
 * (order kept), as in PAD's ns-3 link.  The sender sends gain x faster
 * (a probing BBR), so a sample is win ACKs over max(send, ACK interval)
 * as tcp_rate_gen() makes it.  20 s; srtt 160 ms.
 */
#define RX_N	32768

static struct rx_result rx_run(const struct rx_path *r, bool rx_clock)
{
	static double ack_t[RX_N];
	struct rx_result res = { .rise_s = -1 };
	double delay = 0.16, last = 0, next_change = 0.1, t_r = 0;
	double wmax = 0, sum_before = 0, sum_after = 0;
	unsigned int j, win, nb = 0, na = 0, sec = 1;
	struct pad_core c;
	struct pad_params p = defaults();
	struct pad_ack a = { .srtt_us = 160000 };
	struct pad_out o;

	p.rx_clock = rx_clock;
	pad_reset(&c);
	for (j = 0; t_r < 20; j++) {
		double rate = t_r < r->t_rise ? r->rate0 : r->rate1, shown;

		t_r += 1 / rate;
		if (t_r >= next_change) {
			double u1 = rndu() + 0.000000000001, u2 = rndu();

			delay = 0.16 + r->jit_s * sqrt(-2 * log(u1)) *
				cos(2 * M_PI * u2);
			next_change += 0.1;
		}
		if (t_r + delay > last)
			last = t_r + delay;
		ack_t[j % RX_N] = last;
		win = (unsigned int)(rate * 0.16);
		a.now_us = (u32)(last * 1e6);
		a.acked = 1;
		a.delivered = j + 1;
		a.has_tsv = !r->no_tsv;
		a.tsv = r->tsv0 + (u32)(t_r * 1e6 / r->tick_us);
		a.rs_delivered = j >= win ? (s32)win : -1;
		a.snd_interval_us = (u32)(win / (r->gain * rate) * 1e6);
		a.interval_us = 0;
		if (j >= win) {
			u32 ack_us = (u32)((last - ack_t[(j - win) % RX_N]) * 1e6);

			a.interval_us = max(a.snd_interval_us, ack_us);
		}
		pad_on_ack(&c, &p, &a, &o);
		res.bounded += o.rx_bounded;
		if (a.rs_delivered < 0 || t_r < 3)
			continue;
		shown = o.delivered / (a.interval_us / 1e6);
		if (shown > wmax)
			wmax = shown;
		if (t_r >= r->t_rise && res.rise_s < 0 &&
		    shown >= 0.96 * r->rate1)
			res.rise_s = t_r - r->t_rise;
		if (t_r >= sec) {
			if (t_r < r->t_rise) {
				sum_before += wmax / r->rate0;
				nb++;
			} else if (t_r >= 15) {
				sum_after += wmax / r->rate1;
				na++;
			}
			wmax = 0;
			sec++;
		}
	}
	res.max_before = nb ? sum_before / nb : 0;
	res.max_after = na ? sum_after / na : 0;
	return res;
}

static void test_rx_clock(void)
{
	struct rx_path r = {
		.rate0 = 850, .rate1 = 850, .t_rise = 30, .gain = 1.25,
		.jit_s = 0.012, .tick_us = 1000, .tsv0 = 0xffffffffU - 5000,
	};
	struct rx_result with, without;

	without = rx_run(&r, false);
	with = rx_run(&r, true);
	tap(without.max_before > 1.08 && with.max_before < 1.02,
	    "ACK-path jitter, probing sender: the receiver's clock bounds the samples",
	    "1 s maximum %.3f x rate without, %.3f with (TSval wraps)",
	    without.max_before, with.max_before);

	r.jit_s = 0;
	with = rx_run(&r, true);
	tap(!with.bounded && with.max_before > 0.99,
	    "steady path: no sample is cut",
	    "%llu cut, maximum %.3f x rate",
	    (unsigned long long)with.bounded, with.max_before);

	/* free capacity: the receiver's rate rises by 25 % at 8 s */
	r.jit_s = 0.012;
	r.rate1 = 1062.5;
	r.t_rise = 8;
	with = rx_run(&r, true);
	tap(with.rise_s >= 0 && with.rise_s < 0.4 && with.max_after > 0.98 &&
	    with.max_after < 1.03,
	    "a real rise passes: shown within 0.4 s, jitter still bounded",
	    "after %.3f s; maximum %.3f x the new rate",
	    with.rise_s, with.max_after);

	r.rate1 = 850;
	r.t_rise = 30;
	r.tick_us = 1;
	with = rx_run(&r, true);
	tap(with.max_before < 1.02, "usec TSval: bounded as well",
	    "%.3f x rate", with.max_before);
	r.tick_us = 10000;
	with = rx_run(&r, true);
	tap(!with.bounded, "10 ms TSval ticks: not a clock PAD reads, nothing cut",
	    "%.3f x rate", with.max_before);
	r.tick_us = 1000;
	r.no_tsv = true;
	with = rx_run(&r, true);
	tap(!with.bounded && with.max_before > 1.08,
	    "no timestamps: samples as before", "%.3f x rate",
	    with.max_before);
}

/* ---- fuzzing ---- */

static void test_fuzz(void)
{
	unsigned int run, j, bad_release = 0, bad_steady = 0, bad_neg = 0;
	unsigned int conserve = 0, bad_floor = 0;
	double tick;
	struct sim s;
	u32 tsv;

	for (run = 0; run < 200; run++) {
		double rate = 100 + rndu() * 1e5;
		u32 t = (u32)rnd64();

		sim_init(&s, t, (u32)rnd64());
		s.p.k = Q16(1.001 + rndu());
		s.p.w = 1 + rnd64() % 64;
		s.p.rx_clock = rnd64() % 2;
		tick = (rnd64() % 3) ? 0.001 : rndu() * 2;
		tsv = (u32)rnd64();
		for (j = 0; j < 3000; j++) {
			u32 held0 = s.c.held, gap, n;
			u64 mu = pad_mu(&s.c, &s.p), need, maxh;
			struct pad_ack a;

			switch (rnd64() % 4) {
			case 0:		/* bunched */
				gap = rnd64() % 50;
				break;
			case 1:		/* late */
				gap = (u32)(1e6 / rate * (1 + rndu() * 20));
				break;
			default:
				gap = (u32)(1e6 / rate * rndu() * 2);
			}
			n = rnd64() % 8;
			t += gap;
			a.now_us = t;
			a.acked = n;
			a.delivered = s.delivered + n;
			a.rs_delivered = (rnd64() % 10) ? (s32)(rnd64() % 100) : -1;
			a.snd_interval_us = rnd64() % 100000;
			a.interval_us = (rnd64() % 4) ? rnd64() % 200000 : 0;
			a.srtt_us = (rnd64() % 10) ? 1000 + rnd64() % 200000 : 0;
			a.app_limited = !(rnd64() % 20);
			a.recovery = !(rnd64() % 30);
			a.ack_delayed = false;
			a.rtt_us = -1;
			a.has_tsv = rnd64() % 100;
			tsv += (u32)(gap * tick);
			a.tsv = tsv;
			s.delivered += n;
			s.ev = pad_on_ack(&s.c, &s.p, &a, &s.o);
			s.acked_in += n;
			s.shown += s.o.acked;
			if (s.acked_in != s.shown + s.c.held)
				s.conserve_breaks++;
			if (a.rs_delivered >= 0 && (s.o.delivered < 0 ||
						    s.o.delivered > a.rs_delivered))
				bad_neg++;
			mu = pad_mu(&s.c, &s.p);
			need = (mu * a.interval_us) >> PAD_RATE_SHIFT;
			if (a.rs_delivered >= 0 && !s.o.rx_bounded &&
			    s.o.delivered < (s64)(need < (u64)a.rs_delivered ?
						  need : (u64)a.rs_delivered))
				bad_floor++;
			/*
			 * While holding, releases are bounded by mu x gap plus
			 * the bucket depth, unless the half-srtt cap let the
			 * oldest go.
			 */
			mu = pad_mu(&s.c, &s.p);
			need = (mu * gap) >> PAD_RATE_SHIFT;
			maxh = (mu * (a.srtt_us / 2)) >> PAD_RATE_SHIFT;
			if (maxh < PAD_DEPTH_PKTS)
				maxh = PAD_DEPTH_PKTS;
			if (s.c.held && s.c.held < maxh &&
			    s.o.acked > need + PAD_DEPTH_PKTS + 1 +
			    ((mu * PAD_DEPTH_US) >> PAD_RATE_SHIFT))
				bad_release++;
			/* an ACK late enough for the steady schedule releases all */
			if (s.c.lambda && need > (u64)held0 + n + 1 && s.c.held)
				bad_steady++;
		}
		conserve += s.conserve_breaks;
	}
	tap(!conserve, "fuzz: shown + held == acknowledged on every ACK",
	    "%u breaks", conserve);
	tap(!bad_neg, "fuzz: delivered shown within [0, rs->delivered]",
	    "%u", bad_neg);
	tap(!bad_floor,
	    "fuzz: delivered never below min(rs->delivered, mu x interval) unless rx-bounded",
	    "%u", bad_floor);
	tap(!bad_release, "fuzz: releases bounded by mu x gap + depth while holding",
	    "%u", bad_release);
	tap(!bad_steady, "fuzz: an ACK on the steady schedule leaves nothing held",
	    "%u", bad_steady);
}

int main(void)
{
	test_lambda();
	test_passive();
	test_positive();
	test_aggregation();
	test_floor();
	test_jitter_samples();
	test_rx_clock();
	test_rtt_lift();
	test_wrap();
	test_idle();
	test_fuzz();
	return tap_finish();
}
