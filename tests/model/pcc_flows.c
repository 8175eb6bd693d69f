// SPDX-License-Identifier: GPL-2.0
/*
 * Packet-level model of N PCC senders (tcp_pcc/pcc_core.h, the code the
 * module runs) sharing one drop-tail FIFO.  Not a test: a tool to study
 * how the control law behaves with several flows, fast, without a guest.
 *
 *   pcc_flows MBIT BUFFER_PKTS RTT_S DURATION_S FLOWS GAP_S [SEED]
 *
 * Flow i starts at i x GAP_S.  Prints each flow's goodput per second,
 * then each flow's mean over the time all flows are active, Jain's
 * index of those and the drop rate.  Environment: EPS=eps_min in Q16
 * (default 655 = 0.01), UT=1 for the latency utility, J=F to jitter
 * every inter-packet gap uniformly by +-F (pacing noise), V=I to trace
 * the MI results of flow I.
 *
 * The model: pacing at the MI rate, a FIFO of BUFFER_PKTS 1514-byte
 * packets served at MBIT, a fixed base RTT, a loss noticed once a packet
 * sent RTT/4 later is acked (RACK's reordering window), and the glue of
 * tcp_pcc.c (MI length, re-alignment) as in the module.  No cwnd cap, no
 * delayed ACKs, no TSO, no retransmissions.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "pcc_core.h"

#define NF	16
#define MAXP	4000000
#define QMAX	100000
/* V=I: time, flow, MI tag and rate, delivered, lost, utility -> state, base, eps */
#define TRACE_FMT "%.3f f%d tag %u r %u del %llu lost %llu u %lld -> st %u b %u e %u%s\n"

struct pkt {
	double sendt, ackt;
	char dropped;
};

struct flow {
	struct pcc_ctl c;
	struct pcc_mon m;
	struct pcc_result r;
	double start, nextsend, rate, acc, active_bytes;
	long *idx, n, nack, lostscan;
	u32 srtt;
	u8 tag;
	int on;
};

static struct pkt pk[MAXP];
static struct flow fl[NF];
static double dep[QMAX];

static double env_f(const char *name, double dflt)
{
	const char *v = getenv(name);

	return v ? atof(v) : dflt;
}

int main(int argc, char **argv)
{
	double cap, base, dur, gap, mss = 1448, svc, reo, jit, t, jstart;
	double nexttick = 1.0, qlast = 0, s = 0, s2 = 0;
	long qh = 0, qt = 0, np = 0, drops = 0;
	struct pcc_params p;
	int nf, buf, trace, f;
	u32 lo;

	if (argc < 7) {
		fprintf(stderr, "usage: %s MBIT BUFFER_PKTS RTT_S DURATION_S FLOWS GAP_S [SEED]\n",
			argv[0]);
		return 2;
	}
	cap = atof(argv[1]) * 1e6 / 8;
	buf = atoi(argv[2]);
	base = atof(argv[3]);
	dur = atof(argv[4]);
	nf = atoi(argv[5]);
	gap = atof(argv[6]);
	srand(argc > 7 ? atoi(argv[7]) : 1);
	if (nf < 1 || nf > NF || buf < 1 || buf >= QMAX || cap <= 0 || base <= 0) {
		fprintf(stderr, "bad arguments\n");
		return 2;
	}
	p = (struct pcc_params){ .alpha = 100 << 16,
				 .eps_min = (u32)env_f("EPS", 655),
				 .eps_max = 3277,
				 .utility = (u32)env_f("UT", 0) };
	jit = env_f("J", 0);
	trace = (int)env_f("V", -1);
	svc = 1514 / cap;
	reo = base / 4;
	lo = (u32)(2 * mss / base);
	jstart = (nf - 1) * gap;
	for (f = 0; f < nf; f++) {
		fl[f].start = f * gap;
		fl[f].nextsend = fl[f].start;
		fl[f].idx = calloc(MAXP, sizeof(long));
		fl[f].srtt = (u32)(base * 1e6);
	}
	for (;;) {
		double best = 1e18;
		int fb = -1, isack = 0;
		struct flow *x;

		for (f = 0; f < nf; f++) {
			x = &fl[f];
			while (x->nack < x->n && pk[x->idx[x->nack]].dropped)
				x->nack++;
			if (x->nack < x->n && pk[x->idx[x->nack]].ackt < best) {
				best = pk[x->idx[x->nack]].ackt;
				fb = f;
				isack = 1;
			}
			if (x->nextsend < best) {
				best = x->nextsend;
				fb = f;
				isack = 0;
			}
		}
		t = best;
		if (t > dur || np >= MAXP)
			break;
		while (t >= nexttick) {
			printf("t %5.1f", nexttick);
			for (f = 0; f < nf; f++) {
				printf(" %6.2f", fl[f].acc * 8 / 1e6);
				fl[f].acc = 0;
			}
			printf("\n");
			nexttick += 1.0;
		}
		x = &fl[fb];
		if (!x->on) {
			x->on = 1;
			pcc_ctl_init(&x->c, &p, (u32)(10 * mss / base));
			x->rate = pcc_ctl_next(&x->c, &p, lo, PCC_RATE_MAX, &x->tag);
			pcc_mon_init(&x->m, (u32)(t * 1e6),
				     pcc_mi_duration(x->rate, 1448, x->srtt, rand()),
				     x->rate, x->tag);
		}
		if (!isack) {
			struct pkt *k = &pk[np];

			while (qh < qt && dep[qh % QMAX] <= t)
				qh++;
			k->sendt = t;
			if (qt - qh >= buf) {
				k->dropped = 1;
				drops++;
			} else {
				qlast = fmax(qlast, t) + svc;
				dep[qt++ % QMAX] = qlast;
				k->ackt = qlast + base;
			}
			x->idx[x->n++] = np++;
			x->nextsend = t + mss / x->rate *
				(1 - jit + 2 * jit * rand() / (double)RAND_MAX);
		} else {
			struct pkt *k = &pk[x->idx[x->nack++]];
			u32 lost = 0, rtt = (u32)((t - k->sendt) * 1e6);
			u32 now = (u32)(t * 1e6);

			while (x->lostscan < x->nack - 1 &&
			       pk[x->idx[x->lostscan]].sendt < k->sendt - reo)
				lost += pk[x->idx[x->lostscan++]].dropped;
			x->srtt = x->srtt - (x->srtt >> 3) + (rtt >> 3);
			x->acc += mss;
			if (t > jstart)
				x->active_bytes += mss;
			if (pcc_mon_on_ack(&x->m, (u32)(k->sendt * 1e6), 1, lost,
					   rtt, &x->r)) {
				s64 u = pcc_utility(&p, x->r.delivered * 1448,
						    x->r.lost * 1448, x->r.dur_us,
						    x->r.rtt_us, x->r.prev_rtt_us);
				bool moved = pcc_ctl_result(&x->c, &p, x->r.tag,
							    x->r.rate, u,
							    pcc_mi_congested(&x->r),
							    rand());

				if (fb == trace)
					printf(TRACE_FMT,
					       t, fb, x->r.tag, x->r.rate,
					       (unsigned long long)x->r.delivered,
					       (unsigned long long)x->r.lost,
					       (long long)(u >> 16), x->c.state,
					       x->c.base, x->c.eps, moved ? " moved" : "");
				if (moved) {
					u32 d;

					x->rate = pcc_ctl_next(&x->c, &p, lo,
							       PCC_RATE_MAX, &x->tag);
					d = pcc_mi_duration(x->rate, 1448, x->srtt,
							    rand());
					pcc_mon_realign(&x->m, now, d, x->rate,
							x->tag);
				}
			}
			if (pcc_mon_due(&x->m, now)) {
				x->rate = pcc_ctl_next(&x->c, &p, lo, PCC_RATE_MAX, &x->tag);
				pcc_mon_next(&x->m, now,
					     pcc_mi_duration(x->rate, 1448, x->srtt, rand()),
					     x->rate, x->tag, x->srtt >> 2);
			}
		}
	}
	for (f = 0; f < nf; f++) {
		double g = fl[f].active_bytes * 8 / 1e6 / (dur - jstart);

		s += g;
		s2 += g * g;
		printf("flow %d %.2f Mbit/s\n", f, g);
	}
	printf("jain %.3f drops %.2f%% total %.2f Mbit/s\n",
	       s2 > 0 ? s * s / (nf * s2) : 0, np ? 100.0 * drops / np : 0, s);
	return 0;
}
