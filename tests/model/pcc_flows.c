// SPDX-License-Identifier: GPL-2.0
/*
 * Packet-level model of N PCC senders (tcp_pcc/pcc_core.h, the code the
 * module runs) sharing one drop-tail FIFO.  Not a test: a tool to study
 * how the control law behaves with several flows, fast, without a guest.
 *
 *   pcc_flows MBIT BUFFER_PKTS RTT_S DURATION_S FLOWS GAP_S [SEED]
 *
 * Flow i starts at i x GAP_S.  Prints each flow's goodput every 0.5 s,
 * the packets lost in that time and the queue at its end, then each
 * flow's mean over the time all flows are active, Jain's index of those
 * and the drop rate, and a summary line (below).  Environment:
 *   UT=0|1|2	Allegro's loss or latency utility, or PCC Vivace (the
 *		default, as in the module)
 *   EPS, EMAX	eps_min and eps_max in Q16 (655 = 0.01, 3277 = 0.05)
 *   J=F	every inter-packet gap jittered uniformly by +-F (pacing)
 *   PL=S	the pacing timer fires S s late on average (exponential), once
 *		per skb of max(2, rate x 1 ms / MSS) packets (tcp_tso_autosize()),
 *		as the TCG guest's does: a flow sends less than its rate, the
 *		more so the smaller its skbs
 *   PA=1	with PL=: an ACK sends a packet whose time has come although
 *		the timer has not fired, as tcp_write_xmit() does on each ACK
 *   RJ=S	every ACK delayed by up to S s more, in order (ACK path)
 *   ST=N,D	host stalls: N a second (Poisson), each U(0, D) s long, in
 *		which no ACK is processed (released at the stall's end, in
 *		order): a vCPU the host does not run, as under TCG
 *   HC=MBIT	the sender never sends faster than MBIT, whatever its rate:
 *		a host whose CPU, not the link, is the limit, with no queue
 *		to show for it (the bench's cost link)
 *   SN=F	each MI sent at its rate x (1 - U(0, F)): a sender that
 *		does not hold its pacing rate, as the TCG guest (0.3 there)
 *   SG=F	each MI sent at its rate x (1 + N(0, F)), at most the rate
 *   L=P	each packet lost on the wire with probability P
 *   CH=LO,HI,T	a link alternating between LO and HI Mbit/s every T s
 *   TR=FILE,T	a link at the rates of FILE (Mbit/s, one a line, #
 *		comments), each for T s; MBIT is then ignored
 *   DT=N	a loss is noticed once N later packets are acked (SACK's
 *		dupthresh and RACK in recovery, default 3); DT=0: once a
 *		packet sent RTT/4 later is acked (RACK's reordering window)
 *   W=S	statistics from S s after the last flow joined (default 0)
 *   Q=1	the summary line only
 *   V=I	trace the MI results of flow I
 *   NOCAP=1	no in-flight cap (pcc_cap_cwnd()), as the module before it
 *
 * The model: pacing at the MI rate, a cwnd cap of 2 x rate x srtt
 * packets in flight (at least 4) as tcp_pcc.c sets, a FIFO of
 * BUFFER_PKTS 1514-byte packets served at the link rate, a fixed base
 * RTT, and the glue of tcp_pcc.c (MI length, re-alignment) as in the
 * module.  No delayed ACKs, no TSO, no retransmissions.
 *
 * Summary: "sum jain J conv T0 T1 .. lost P% drops P% q95 MS util U%
 * lostW P% sr95 MS": Jain's index over the all-active time (after W); for each
 * flow the seconds from its start to the first 0.5 s bin from which it
 * stays within 25 % of its fair share for 2 s (-1: never; netlab's
 * convergence_s with --conv-hold 2); the packets lost (tail drops
 * and random loss) and dropped at the tail, as % of those sent; the 95th
 * percentile of the queueing delay of the packets acked after W, in ms;
 * the goodput of all flows over the link's (x 1448/1514 x (1 - P)) after
 * W; the packets lost after W as % of those sent after W; the 95th
 * percentile of flow 0's srtt above the base RTT, sampled every 0.1 s
 * after W as netlab samples tcp_info (the guest's RTT p95 is the base
 * plus this), in ms.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pcc_core.h"

#define NF	16
#define MAXP	4000000
#define QMAX	100000
#define MAXS	3600
/* goodput bins, s: netlab's sampling interval */
#define BIN	0.5
#define MAXTR	1000
/*
 * V=I: time, flow, MI tag and rate, delivered, lost, utility -> state,
 * base, eps; mean RTT and RTT deviation, and the MI's length, us
 */
#define TRACE_FMT "%.3f f%d tag %u r %u del %llu lost %llu g %d u %lld -> st %u b %u e %u%s rtt %u dev %u dur %u\n"

struct pkt {
	double sendt, ackt;
	double dlv_s;		/* bytes the flow had delivered at send */
	char dropped;
};

struct flow {
	struct pcc_ctl c;
	struct pcc_mon m;
	struct pcc_result r;
	double due;		/* when the pacer lets the next packet go */
	double start, nextsend, rate, acc, active_bytes, lastack;
	double dlv;		/* bytes delivered */
	double bin[MAXS];	/* bytes acked in each BIN */
	long *idx, n, nack, lostscan, inflight;
	u32 srtt, cwnd, cap, minrtt;
	u32 mdev4;		/* tcp_sock's mdev_us: 4 x the mean deviation */
	u8 tag;
	int on, blocked;
};

/* The run: its arguments, and the shared FIFO's state */
struct model {
	struct pcc_params p;
	double cap, base, dur, mss, reo, jit, rjit, snoise, sgauss, jstart, qlast, loss, warm;
	double plate;		/* PL=: mean lateness of the pacing timer, s */
	int ack_sends;		/* PA=1 */
	double ch_lo, ch_hi, ch_t, tr[MAXTR], tr_step, host_cap;
	int ntr;
	double st_rate, st_max, st_start, st_end;
	unsigned long st_seed;
	long qh, qt, np, drops, lost, nq, npw, lostw, lost_tick;
	int nf, buf, trace, quiet, dupthresh, nocap;
	u32 lo;
};

static struct pkt pk[MAXP];
static struct flow fl[NF];
static double dep[QMAX];
static float qd[MAXP];
static float sq[MAXS * 10];	/* flow 0's srtt above the base, every 0.1 s */
static long nsq;

static double env_f(const char *name, double dflt)
{
	const char *v = getenv(name);

	return v ? atof(v) : dflt;
}

static double uniform(void)
{
	return rand() / ((double)RAND_MAX + 1);
}

/* ST=: the stall schedule's own generator, so that rand()'s stays as it was */
static double st_uniform(struct model *s)
{
	s->st_seed = s->st_seed * 6364136223846793005UL + 1442695040888963407UL;
	return (s->st_seed >> 11) * (1.0 / 9007199254740992.0);
}

/* @t, or the end of the host stall that holds it */
static double stall_release(struct model *s, double t)
{
	if (s->st_rate <= 0)
		return t;
	while (s->st_end < t) {
		s->st_start = s->st_end - log(1 - st_uniform(s)) / s->st_rate;
		s->st_end = s->st_start + s->st_max * st_uniform(s);
	}
	return t >= s->st_start ? s->st_end : t;
}

/* Link rate, bytes/s, at @t */
static double link_rate(const struct model *s, double t)
{
	if (s->ntr)
		return s->tr[(long)(t / s->tr_step) % s->ntr];
	if (s->ch_t <= 0)
		return s->cap;
	return (long)(t / s->ch_t) % 2 ? s->ch_hi : s->ch_lo;
}

/* TR=FILE,STEP: Mbit/s per STEP s from FILE, one a line, # comments */
static int read_trace(struct model *s, const char *arg)
{
	char path[256], line[256];
	double sum = 0;
	FILE *fp;

	if (sscanf(arg, "%255[^,],%lf", path, &s->tr_step) != 2 ||
	    s->tr_step <= 0)
		return -1;
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	while (s->ntr < MAXTR && fgets(line, sizeof(line), fp))
		if (line[0] != '#' && atof(line) > 0) {
			s->tr[s->ntr] = atof(line) * 1e6 / 8;
			sum += s->tr[s->ntr++];
		}
	fclose(fp);
	if (!s->ntr)
		return -1;
	s->cap = sum / s->ntr;
	return 0;
}

static int model_init(struct model *s, int argc, char **argv)
{
	const char *ch = getenv("CH"), *tr = getenv("TR");
	double gap;
	int f;

	if (argc < 7) {
		fprintf(stderr, "usage: %s MBIT BUFFER_PKTS RTT_S DURATION_S FLOWS GAP_S [SEED]\n",
			argv[0]);
		return 2;
	}
	s->cap = atof(argv[1]) * 1e6 / 8;
	s->buf = atoi(argv[2]);
	s->base = atof(argv[3]);
	s->dur = atof(argv[4]);
	s->nf = atoi(argv[5]);
	gap = atof(argv[6]);
	srand(argc > 7 ? atoi(argv[7]) : 1);
	if (ch && sscanf(ch, "%lf,%lf,%lf", &s->ch_lo, &s->ch_hi, &s->ch_t) == 3) {
		s->ch_lo *= 1e6 / 8;
		s->ch_hi *= 1e6 / 8;
		s->cap = (s->ch_lo + s->ch_hi) / 2;
	}
	if (tr && read_trace(s, tr)) {
		fprintf(stderr, "bad trace %s\n", tr);
		return 2;
	}
	if (s->nf < 1 || s->nf > NF || s->buf < 1 || s->buf >= QMAX ||
	    s->cap <= 0 || s->base <= 0 || s->dur / BIN >= MAXS) {
		fprintf(stderr, "bad arguments\n");
		return 2;
	}
	s->p = (struct pcc_params){ .alpha = 100 << 16,
				    .eps_min = (u32)env_f("EPS", 655),
				    .eps_max = (u32)env_f("EMAX", 3277),
				    .utility = (u32)env_f("UT", PCC_UTIL_VIVACE) };
	s->jit = env_f("J", 0);
	s->plate = env_f("PL", 0);
	s->ack_sends = env_f("PA", 0) > 0;
	s->rjit = env_f("RJ", 0);
	s->snoise = env_f("SN", 0);
	s->host_cap = env_f("HC", 0) * 1e6 / 8;
	if (getenv("ST") &&
	    sscanf(getenv("ST"), "%lf,%lf", &s->st_rate, &s->st_max) != 2) {
		fprintf(stderr, "bad ST\n");
		return 2;
	}
	s->st_seed = argc > 7 ? atoi(argv[7]) : 1;
	s->sgauss = env_f("SG", 0);
	s->loss = env_f("L", 0);
	s->trace = (int)env_f("V", -1);
	s->quiet = (int)env_f("Q", 0);
	s->dupthresh = (int)env_f("DT", 3);
	s->nocap = (int)env_f("NOCAP", 0);
	s->mss = 1448;
	s->reo = s->base / 4;
	s->lo = (u32)(2 * s->mss / s->base);
	s->jstart = (s->nf - 1) * gap;
	s->warm = s->jstart + env_f("W", 0);
	for (f = 0; f < s->nf; f++) {
		fl[f].start = f * gap;
		fl[f].nextsend = fl[f].start;
		fl[f].idx = calloc(MAXP, sizeof(long));
		fl[f].srtt = (u32)(s->base * 1e6);
	}
	return 0;
}

/* The flow of the next event, its time and whether it is an ACK. */
static int next_event(struct model *s, double *t, int *isack)
{
	double best = 1e18;
	int f, fb = -1;

	for (f = 0; f < s->nf; f++) {
		struct flow *x = &fl[f];

		while (x->nack < x->n && pk[x->idx[x->nack]].dropped)
			x->nack++;
		/* All in flight lost, cwnd full: an RTO would resend; go on. */
		if (x->blocked && x->nack >= x->n) {
			x->blocked = 0;
			x->inflight = 0;
			x->lostscan = x->n;
		}
		if (x->nack < x->n && pk[x->idx[x->nack]].ackt < best) {
			best = pk[x->idx[x->nack]].ackt;
			fb = f;
			*isack = 1;
		}
		if (!x->blocked && x->nextsend < best) {
			best = x->nextsend;
			fb = f;
			*isack = 0;
		}
	}
	*t = best;
	return fb;
}

/* Each flow's goodput over the bins that ended by @t */
static void print_ticks(struct model *s, double t, double *nexttick)
{
	int f;

	while (t >= *nexttick) {
		if (!s->quiet)
			printf("t %5.1f", *nexttick);
		for (f = 0; f < s->nf; f++) {
			if (!s->quiet)
				printf(" %6.2f", fl[f].acc * 8 / 1e6 / BIN);
			fl[f].bin[(int)(*nexttick / BIN + 0.5) - 1] = fl[f].acc;
			fl[f].acc = 0;
		}
		if (!s->quiet)
			printf("  lost %ld q %ld\n", s->lost - s->lost_tick,
			       s->qt - s->qh);
		s->lost_tick = s->lost;
		*nexttick += BIN;
	}
}

/* A standard normal deviate (Box-Muller) */
static double gauss(void)
{
	return sqrt(-2 * log(1 - uniform())) * cos(2 * M_PI * uniform());
}

/* The in-flight cap as tcp_pcc.c's pcc_apply_rate() computes it */
static u32 flow_cap(const struct model *s, const struct flow *x)
{
	return s->nocap ? 0 : pcc_cap_cwnd(&x->c, x->minrtt, 1448, 4);
}

/* cwnd and cap of tcp_pcc.c's pcc_apply_rate(); the rate as sent (SN=, SG=) */
static void flow_set_rate(const struct model *s, struct flow *x, u32 rate)
{
	double w = 2.0 * rate * (x->srtt / 1e6) / 1448, f = 1;

	if (s->snoise > 0)
		f -= s->snoise * uniform();
	if (s->sgauss > 0)
		f = fmin(fmax(1 + s->sgauss * gauss(), 0.1), 1);
	x->rate = rate * f;
	if (s->host_cap > 0 && x->rate > s->host_cap)
		x->rate = s->host_cap;
	x->cwnd = w < 4 ? 4 : (u32)w;
	x->cap = flow_cap(s, x);
}

/* The flow's first event: pcc_init() */
static void flow_start(const struct model *s, struct flow *x, double t)
{
	u32 rate;

	x->on = 1;
	pcc_ctl_init(&x->c, &s->p, (u32)(10 * s->mss / s->base));
	rate = pcc_ctl_next(&x->c, &s->p, s->lo, PCC_RATE_MAX, &x->tag);
	pcc_mon_init(&x->m, (u32)(t * 1e6),
		     pcc_mi_duration(rate, 1448, x->srtt, x->mdev4 >> 2,
				     rand()),
		     rate, x->tag);
	flow_set_rate(s, x, rate);
}

/* cwnd as tcp_pcc.c's pcc_apply_rate() leaves it */
static u32 flow_cwnd(const struct flow *x)
{
	return x->cap && x->cap < x->cwnd ? x->cap : x->cwnd;
}

/* One packet into the FIFO, dropped when it is full; the next send paced */
static void flow_send(struct model *s, struct flow *x, double t)
{
	struct pkt *k = &pk[s->np];

	while (s->qh < s->qt && dep[s->qh % QMAX] <= t)
		s->qh++;
	k->sendt = t;
	k->dlv_s = x->dlv;
	s->npw += t > s->warm;
	if (s->loss > 0 && uniform() < s->loss) {
		k->dropped = 1;
		s->lost++;
		s->lostw += t > s->warm;
	} else if (s->qt - s->qh >= s->buf) {
		k->dropped = 1;
		s->drops++;
		s->lost++;
		s->lostw += t > s->warm;
	} else {
		/* served at the link rate when its service starts */
		s->qlast = fmax(s->qlast, t);
		s->qlast += 1514 / link_rate(s, s->qlast);
		dep[s->qt++ % QMAX] = s->qlast;
		/* ACK path noise, keeping ACKs in order */
		k->ackt = fmax(stall_release(s, s->qlast + s->base +
					     s->rjit * uniform()),
			       x->lastack);
		x->lastack = k->ackt;
	}
	x->idx[x->n++] = s->np++;
	x->inflight++;
	x->nextsend = t + s->mss / x->rate *
		(1 - s->jit + 2 * s->jit * uniform());
	x->due = x->nextsend;
	if (s->plate > 0) {
		double k = fmax(2, floor(x->rate / 1024 / s->mss));

		x->nextsend -= s->plate / k * log(1 - uniform());
	}
	if (x->inflight >= flow_cwnd(x))
		x->blocked = 1;
}

/* A completed MI (x->r): utility, controller, re-alignment, as pcc_main() */
static void flow_result(const struct model *s, struct flow *x, int f,
			double t, u32 now)
{
	s64 u;
	bool moved;

	x->r.min_rtt_us = x->minrtt;	/* as tcp_pcc.c: tcp_min_rtt() */
	u = pcc_mi_utility(&s->p, &x->r, 1448);
	moved = pcc_ctl_on_result(&x->c, &s->p, &x->r, u,
				  pcc_result_congested(&s->p, &x->r), rand());

	if (f == s->trace)
		printf(TRACE_FMT,
		       t, f, x->r.tag, x->r.rate,
		       (unsigned long long)x->r.delivered,
		       (unsigned long long)x->r.lost, x->r.rtt_grad,
		       (long long)(u >> 16), x->c.state,
		       x->c.base, x->c.eps, moved ? " moved" : "",
		       x->r.rtt_us, x->r.rtt_dev_us, x->r.dur_us);
	if (moved) {
		u32 d, rate;

		rate = pcc_ctl_next(&x->c, &s->p, s->lo, PCC_RATE_MAX, &x->tag);
		d = pcc_mi_duration(rate, 1448, x->srtt, x->mdev4 >> 2,
				    rand());
		pcc_mon_realign(&x->m, now, d, rate, x->tag);
		flow_set_rate(s, x, rate);
	}
}

/* tcp_rtt_estimator()'s mean deviation of the RTT samples, x 4 */
static void flow_mdev(struct flow *x, u32 rtt)
{
	long m = (long)rtt - (long)x->srtt;

	if (!x->mdev4) {
		x->mdev4 = rtt << 1;
		return;
	}
	if (m < 0) {
		/* a sample below the mean moves the deviation 8 x less */
		m = -m - (long)(x->mdev4 >> 2);
		if (m > 0)
			m >>= 3;
	} else {
		m -= (long)(x->mdev4 >> 2);
	}
	x->mdev4 += m;
}

/*
 * The rate sample of the ACK of @k as pcc_main() feeds the in-flight cap:
 * bytes delivered since @k was sent (rs->delivered) over its RTT
 * (rs->rtt_us)
 */
static void flow_rate_sample(const struct model *s, struct flow *x,
			     const struct pkt *k, double t)
{
	x->dlv += s->mss;
	if (!pcc_ctl_on_delivery(&x->c, (u64)(x->dlv - k->dlv_s),
				 (u32)((t - k->sendt) * 1e6), false))
		return;
	x->cap = flow_cap(s, x);
}

/* The ACK of the flow's oldest packet not dropped, as pcc_main() sees it */
static void flow_ack(struct model *s, struct flow *x, int f, double t)
{
	struct pkt *k = &pk[x->idx[x->nack++]];
	u32 lost = 0, rtt = (u32)((t - k->sendt) * 1e6);
	u32 now = (u32)(t * 1e6);

	while (x->lostscan < x->nack - 1 &&
	       (s->dupthresh ? x->lostscan < x->nack - s->dupthresh :
		pk[x->idx[x->lostscan]].sendt < k->sendt - s->reo)) {
		lost += pk[x->idx[x->lostscan]].dropped;
		x->inflight -= pk[x->idx[x->lostscan++]].dropped;
	}
	x->inflight--;
	flow_mdev(x, rtt);
	x->srtt = x->srtt - (x->srtt >> 3) + (rtt >> 3);
	x->acc += s->mss;
	if (!x->minrtt || rtt < x->minrtt)
		x->minrtt = rtt;
	flow_rate_sample(s, x, k, t);
	if (t > s->warm) {
		x->active_bytes += s->mss;
		qd[s->nq++] = (float)(t - k->sendt - s->base);
	}
	if (pcc_mon_on_ack(&x->m, (u32)(k->sendt * 1e6), 1, lost, rtt,
			   x->mdev4 >> 2, &x->r))
		flow_result(s, x, f, t, now);
	if (pcc_mon_due(&x->m, now)) {
		u32 rate = pcc_ctl_next(&x->c, &s->p, s->lo, PCC_RATE_MAX,
					&x->tag);

		pcc_mon_next(&x->m, now,
			     pcc_mi_duration(rate, 1448, x->srtt,
					     x->mdev4 >> 2, rand()),
			     rate, x->tag, x->srtt >> 2);
		flow_set_rate(s, x, rate);
	}
	if (s->ack_sends && !x->blocked && t >= x->due && t < x->nextsend)
		x->nextsend = t;
	if (x->blocked && x->inflight < flow_cwnd(x)) {
		x->blocked = 0;
		x->nextsend = fmax(x->nextsend, t);
	}
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/*
 * As netlab's convergence_s (--conv-hold 2): seconds from the flow's
 * start to the first BIN from which its goodput stays within 25 % of its
 * fair share of the link for 2 s (-1: never)
 */
static double conv_time(const struct model *s, int f)
{
	double share, gput = link_rate(s, 0) * 1448 / 1514 * (1 - s->loss);
	int b, g, n, run = 0, need = (int)(2.0 / BIN + 0.5);

	for (b = (int)ceil(fl[f].start / BIN); b < (int)(s->dur / BIN); b++) {
		for (n = 0, g = 0; g < s->nf; g++)
			n += fl[g].start <= (b + 0.5) * BIN;
		share = gput / n;
		run = fabs(fl[f].bin[b] / BIN - share) <= 0.25 * share ?
		      run + 1 : 0;
		if (run >= need)
			return fmax(0, (b - need + 1) * BIN - fl[f].start);
	}
	return -1;
}

/* Each flow's mean while all are active, Jain's index and the drop rate */
static void report(const struct model *s)
{
	double g, sum = 0, sum2 = 0, span = s->dur - s->warm, ideal = 0, t;
	int f;

	/* the link's bytes over the statistics' span, at 1 ms steps */
	for (t = s->warm; t < s->dur; t += 0.001)
		ideal += link_rate(s, t) * 0.001;
	ideal *= 1448.0 / 1514 * (1 - s->loss);

	for (f = 0; f < s->nf; f++) {
		g = fl[f].active_bytes * 8 / 1e6 / span;
		sum += g;
		sum2 += g * g;
		if (!s->quiet)
			printf("flow %d %.2f Mbit/s\n", f, g);
	}
	if (!s->quiet)
		printf("jain %.3f drops %.2f%% total %.2f Mbit/s\n",
		       sum2 > 0 ? sum * sum / (s->nf * sum2) : 0,
		       s->np ? 100.0 * s->drops / s->np : 0, sum);
	qsort(qd, s->nq, sizeof(qd[0]), cmp_float);
	printf("sum jain %.3f conv", sum2 > 0 ? sum * sum / (s->nf * sum2) : 0);
	for (f = 0; f < s->nf; f++)
		printf(" %.1f", conv_time(s, f));
	qsort(sq, nsq, sizeof(sq[0]), cmp_float);
	printf(" lost %.2f%% drops %.2f%% q95 %.1f util %.1f%% lostW %.2f%% sr95 %.1f\n",
	       s->np ? 100.0 * s->lost / s->np : 0,
	       s->np ? 100.0 * s->drops / s->np : 0,
	       s->nq ? 1e3 * qd[(long)(s->nq * 0.95)] : 0,
	       100.0 * sum * 1e6 / 8 * span / ideal,
	       s->npw ? 100.0 * s->lostw / s->npw : 0,
	       nsq ? 1e3 * sq[(long)(nsq * 0.95)] : 0);
}

int main(int argc, char **argv)
{
	struct model s = {};
	double t, nexttick = BIN, nextsq = 0.1;
	int fb, isack = 0, err;

	err = model_init(&s, argc, argv);
	if (err)
		return err;
	for (;;) {
		fb = next_event(&s, &t, &isack);
		if (t > s.dur || s.np >= MAXP)
			break;
		print_ticks(&s, t, &nexttick);
		for (; t >= nextsq; nextsq += 0.1)
			if (nextsq > s.warm && fl[0].on && nsq < MAXS * 10)
				sq[nsq++] = (float)(fl[0].srtt / 1e6 - s.base);
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
