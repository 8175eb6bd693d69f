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

/* The run: its arguments, and the shared FIFO's state */
struct model {
	struct pcc_params p;
	double base, dur, mss, svc, reo, jit, jstart, qlast;
	long qh, qt, np, drops;
	int nf, buf, trace;
	u32 lo;
};

static struct pkt pk[MAXP];
static struct flow fl[NF];
static double dep[QMAX];

static double env_f(const char *name, double dflt)
{
	const char *v = getenv(name);

	return v ? atof(v) : dflt;
}

static int model_init(struct model *s, int argc, char **argv)
{
	double cap, gap;
	int f;

	if (argc < 7) {
		fprintf(stderr, "usage: %s MBIT BUFFER_PKTS RTT_S DURATION_S FLOWS GAP_S [SEED]\n",
			argv[0]);
		return 2;
	}
	cap = atof(argv[1]) * 1e6 / 8;
	s->buf = atoi(argv[2]);
	s->base = atof(argv[3]);
	s->dur = atof(argv[4]);
	s->nf = atoi(argv[5]);
	gap = atof(argv[6]);
	srand(argc > 7 ? atoi(argv[7]) : 1);
	if (s->nf < 1 || s->nf > NF || s->buf < 1 || s->buf >= QMAX ||
	    cap <= 0 || s->base <= 0) {
		fprintf(stderr, "bad arguments\n");
		return 2;
	}
	s->p = (struct pcc_params){ .alpha = 100 << 16,
				    .eps_min = (u32)env_f("EPS", 655),
				    .eps_max = 3277,
				    .utility = (u32)env_f("UT", 0) };
	s->jit = env_f("J", 0);
	s->trace = (int)env_f("V", -1);
	s->mss = 1448;
	s->svc = 1514 / cap;
	s->reo = s->base / 4;
	s->lo = (u32)(2 * s->mss / s->base);
	s->jstart = (s->nf - 1) * gap;
	for (f = 0; f < s->nf; f++) {
		fl[f].start = f * gap;
		fl[f].nextsend = fl[f].start;
		fl[f].idx = calloc(MAXP, sizeof(long));
		fl[f].srtt = (u32)(s->base * 1e6);
	}
	return 0;
}

/* The flow of the next event, its time and whether it is an ACK. */
static int next_event(const struct model *s, double *t, int *isack)
{
	double best = 1e18;
	int f, fb = -1;

	for (f = 0; f < s->nf; f++) {
		struct flow *x = &fl[f];

		while (x->nack < x->n && pk[x->idx[x->nack]].dropped)
			x->nack++;
		if (x->nack < x->n && pk[x->idx[x->nack]].ackt < best) {
			best = pk[x->idx[x->nack]].ackt;
			fb = f;
			*isack = 1;
		}
		if (x->nextsend < best) {
			best = x->nextsend;
			fb = f;
			*isack = 0;
		}
	}
	*t = best;
	return fb;
}

/* Each flow's goodput over the seconds that ended by @t */
static void print_ticks(const struct model *s, double t, double *nexttick)
{
	int f;

	while (t >= *nexttick) {
		printf("t %5.1f", *nexttick);
		for (f = 0; f < s->nf; f++) {
			printf(" %6.2f", fl[f].acc * 8 / 1e6);
			fl[f].acc = 0;
		}
		printf("\n");
		*nexttick += 1.0;
	}
}

/* The flow's first event: pcc_init() */
static void flow_start(const struct model *s, struct flow *x, double t)
{
	x->on = 1;
	pcc_ctl_init(&x->c, &s->p, (u32)(10 * s->mss / s->base));
	x->rate = pcc_ctl_next(&x->c, &s->p, s->lo, PCC_RATE_MAX, &x->tag);
	pcc_mon_init(&x->m, (u32)(t * 1e6),
		     pcc_mi_duration(x->rate, 1448, x->srtt, rand()),
		     x->rate, x->tag);
}

/* One packet into the FIFO, dropped when it is full; the next send paced */
static void flow_send(struct model *s, struct flow *x, double t)
{
	struct pkt *k = &pk[s->np];

	while (s->qh < s->qt && dep[s->qh % QMAX] <= t)
		s->qh++;
	k->sendt = t;
	if (s->qt - s->qh >= s->buf) {
		k->dropped = 1;
		s->drops++;
	} else {
		s->qlast = fmax(s->qlast, t) + s->svc;
		dep[s->qt++ % QMAX] = s->qlast;
		k->ackt = s->qlast + s->base;
	}
	x->idx[x->n++] = s->np++;
	x->nextsend = t + s->mss / x->rate *
		(1 - s->jit + 2 * s->jit * rand() / (double)RAND_MAX);
}

/* A completed MI (x->r): utility, controller, re-alignment, as pcc_main() */
static void flow_result(const struct model *s, struct flow *x, int f,
			double t, u32 now)
{
	s64 u = pcc_utility(&s->p, x->r.delivered * 1448, x->r.lost * 1448,
			    x->r.dur_us, x->r.rtt_us, x->r.prev_rtt_us);
	bool moved = pcc_ctl_result(&x->c, &s->p, x->r.tag, x->r.rate, u,
				    pcc_mi_congested(&x->r), rand());

	if (f == s->trace)
		printf(TRACE_FMT,
		       t, f, x->r.tag, x->r.rate,
		       (unsigned long long)x->r.delivered,
		       (unsigned long long)x->r.lost,
		       (long long)(u >> 16), x->c.state,
		       x->c.base, x->c.eps, moved ? " moved" : "");
	if (moved) {
		u32 d;

		x->rate = pcc_ctl_next(&x->c, &s->p, s->lo, PCC_RATE_MAX,
				       &x->tag);
		d = pcc_mi_duration(x->rate, 1448, x->srtt, rand());
		pcc_mon_realign(&x->m, now, d, x->rate, x->tag);
	}
}

/* The ACK of the flow's oldest packet not dropped, as pcc_main() sees it */
static void flow_ack(const struct model *s, struct flow *x, int f, double t)
{
	struct pkt *k = &pk[x->idx[x->nack++]];
	u32 lost = 0, rtt = (u32)((t - k->sendt) * 1e6);
	u32 now = (u32)(t * 1e6);

	while (x->lostscan < x->nack - 1 &&
	       pk[x->idx[x->lostscan]].sendt < k->sendt - s->reo)
		lost += pk[x->idx[x->lostscan++]].dropped;
	x->srtt = x->srtt - (x->srtt >> 3) + (rtt >> 3);
	x->acc += s->mss;
	if (t > s->jstart)
		x->active_bytes += s->mss;
	if (pcc_mon_on_ack(&x->m, (u32)(k->sendt * 1e6), 1, lost, rtt, &x->r))
		flow_result(s, x, f, t, now);
	if (pcc_mon_due(&x->m, now)) {
		x->rate = pcc_ctl_next(&x->c, &s->p, s->lo, PCC_RATE_MAX, &x->tag);
		pcc_mon_next(&x->m, now,
			     pcc_mi_duration(x->rate, 1448, x->srtt, rand()),
			     x->rate, x->tag, x->srtt >> 2);
	}
}

/* Each flow's mean while all are active, Jain's index and the drop rate */
static void report(const struct model *s)
{
	double g, sum = 0, sum2 = 0;
	int f;

	for (f = 0; f < s->nf; f++) {
		g = fl[f].active_bytes * 8 / 1e6 / (s->dur - s->jstart);
		sum += g;
		sum2 += g * g;
		printf("flow %d %.2f Mbit/s\n", f, g);
	}
	printf("jain %.3f drops %.2f%% total %.2f Mbit/s\n",
	       sum2 > 0 ? sum * sum / (s->nf * sum2) : 0,
	       s->np ? 100.0 * s->drops / s->np : 0, sum);
}

int main(int argc, char **argv)
{
	struct model s = {};
	double t, nexttick = 1.0;
	int fb, isack = 0, err;

	err = model_init(&s, argc, argv);
	if (err)
		return err;
	for (;;) {
		fb = next_event(&s, &t, &isack);
		if (t > s.dur || s.np >= MAXP)
			break;
		print_ticks(&s, t, &nexttick);
		if (!fl[fb].on)
			flow_start(&s, &fl[fb], t);
		if (!isack)
			flow_send(&s, &fl[fb], t);
		else
			flow_ack(&s, &fl[fb], fb, t);
	}
	report(&s);
	return 0;
}
