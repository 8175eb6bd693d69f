// SPDX-License-Identifier: GPL-2.0
/*
 * Packet-level model of ETC senders (tcp_etc/etc_core.h, the code the
 * module runs) and optionally one CUBIC sender sharing netlab's
 * bottleneck: a tbf of rate C with a 5 ms token bucket and a drop-tail
 * limit of B packets.  Not a test: a tool to study the control law on
 * shallow buffers and beside a buffer-filling flow, fast, without a guest.
 *
 *   etc_flows MBIT BUFFER_PKTS RTT_S DURATION_S WARMUP_S ETC_FLOWS CUBIC [SEED]
 *
 * Prints each flow's goodput over [WARMUP_S, DURATION_S], ETC's share
 * over CUBIC's (with a CUBIC flow), the bottleneck's drop rate, the
 * retransmissions and RTOs, the queueing delay's mean and p95, and each
 * flow's convergence time as netlab measures it (the first 0.5 s bin
 * from which its goodput stays within 25 % of its fair share for 2 s).
 * Environment: N=packets per burst (8), BUCKET=bytes of the token bucket
 * (5 ms at C; 1514 for a plain serialising link), LINE=sender line rate
 * in Mbit/s (1000), LOSS=random loss on the data path (0.01 = 1 %),
 * J=seconds of timer slop, added to each pacing wake-up and ACK
 * (0.0002), AJ=sigma in seconds of a normal delay added to each ACK,
 * never before the ACK ahead of it (netlab's --jitter-dist normal,
 * ordered; 0), ACKGAP=least seconds between two ACKs' arrivals (0; the
 * TCG guest's sender takes bunched ACKs 20-160 us apart, median 50: use
 * 0.00005, since a burst whose ACKs arrive at once gives no Rp sample),
 * CJ=sigma in seconds of a delay every ACK shares, its positive half of
 * an Ornstein-Uhlenbeck process with correlation time CT (0.01 s): a
 * host that stalls all flows at once (0; 0.003 with CT=0.01 spreads
 * rounds as the TCG guest does),
 * ACKN=packets per ACK in order (2; GRO at the receiver
 * stretches ACKs to up to 45 for 64 KiB), GRO=S for a receiver that
 * handles packets in polls every S seconds and acks each poll's packets
 * at once, as GRO merges them (0: off; 0.003-0.004 with J=0.001 is what
 * the TCG guest's receiver does to ETC), DEFER=0 to send a
 * cwnd-limited ETC skb as soon as one packet fits
 * (default: as tcp_tso_should_defer()), GF=the gradient threshold's
 * floor in us (1000), ALPHA=, K=, ETA= and GRAD= the module parameters
 * (4, 1.1, 0.3, 0.1), WINDOW=1 the module's window=1 (each ETC flow
 * gets the window law's state),
 * STAGGER=S to start flow f at f x S seconds (0), TRACE=file of
 * Mbit/s per TSTEP seconds (5; netlab's --trace-format steps) for a
 * capacity that changes, its last value held (utilisation is then over
 * the trace's capacity, and MBIT only sizes the first token bucket),
 * V=F to trace ETC flow F's events, WT=1 to print the window law's
 * state at every event of every flow, BINS=1 to print each flow's
 * goodput per 0.5 s.
 *
 * What it models of the stack and the glue (tcp_etc.c): EDT pacing of
 * skbs of max(N, 1 ms of data) segments that leave back to back; the
 * cwnd of etc_cwnd_prev(); a receiver that ACKs every second packet at
 * once, out-of-order and hole-filling packets at once, an odd one after
 * 40 ms; SACK, so every arriving packet counts as delivered; losses
 * marked like RACK (a packet sent a quarter of the min RTT before a
 * delivered one, once that one's RTT has passed); retransmissions first,
 * one packet each, paced; a tail loss probe after 2 srtt; an RTO after
 * srtt + 4 rttvar (at least 200 ms), doubled while it repeats, which
 * calls etc_on_rto() on entering loss and etc_on_restart() at the
 * retransmission.  CUBIC: slow start ended by HyStart's delay test,
 * beta 0.7, the cubic window with the Reno-friendly bound, no pacing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "etc_core.h"

#define NF		4
#define MAXTX		2097152L	/* 2^21 */
#define HEAP		1048576L	/* 2^20 */
#define WIRE		1514
#define PMSS		1448U
#define DELACK		0.040
#define RTO_MIN		0.200
#define BIN		0.5	/* netlab's goodput interval */
#define NBIN		1024
/* V=F: time, flow, event, N, stage, s, Rp, r, last r, r_max (Mbit/s), ... */
/* WT=1: the window law's state at each event, as the tracepoint shows it */
#define WTRACE_FMT "W %.3f f%d st %d ev %d compete %d w %u spread %u min %u mean %u nbase %u\n"
#define TRACE_FMT "%8.3f f%d ev %d N %u st %d rate %.2f rp %.2f rcv %.2f now %.2f max %.2f cwnd %u hi %u infl %u lost %u\n"
#define REPORT_FMT "util %.3f etc %.3f share %.3f jain %.3f drops %.2f%% retrans %ld rtos %ld qdelay mean %.1f p95 %.1f ms\n"

enum { EV_SEND, EV_ARRIVE, EV_ACK, EV_DELACK, EV_POLL, EV_TIMER };
enum { TX_OUT, TX_ACKED, TX_LOST, TX_GONE };

struct ev {
	double t;
	int type, f;
	long arg;
};

struct tx {
	double sendt;
	u32 seq, skb, prior_dlv;
	u8 state, retrans, dropped;
};

struct flow {
	int cubic;
	struct etc_core e;
	struct etc_fast fast;
	/* sender */
	struct tx *tx;
	long ntx, scan;
	u32 next_seq, una, delivered, inflight, cwnd, cwl_seq;
	int cwl;		/* tp->is_cwnd_limited */
	u8 *got_s;		/* delivered, as the sender knows it */
	u32 *rtxq;
	long rq_h, rq_t;
	double pace_next, wake_t, srtt, rttvar, rto_t, last_progress;
	double rack_xmit, rack_rtt, min_rtt;
	int backoff, tlp_done, in_loss;
	u32 loss_high;
	/* cubic */
	double cw, ssthresh, wmax, k, epoch, west;
	double hs_min, hs_last;	/* HyStart: this round's and the last's RTT */
	u32 hs_end, hs_n;
	int in_rec;
	u32 rec_high;
	/* receiver */
	u8 *got_r;
	u32 rcv_nxt, rcv_high;
	long *pend;		/* tx indices not yet acked */
	long np_h, np_t, np_s;	/* receiver acked, arrived; sender read */
	long delack_gen;
	int poll_armed, poll_ack;	/* GRO=: a poll is due; ACK at once */
	long *acks;		/* per ACK: end index into pend */
	long na_h, na_t;
	double ack_last;
	/* stats */
	double goodput_bytes, first_byte, bins[NBIN];
	long retrans, rtos, events[16];
};

struct model {
	struct etc_params p;
	double c, bucket, line, base, dur, warm, loss, jit, ajit, ackgap;
	double cj, ct, cj_x, cj_t;	/* the host's correlated delay noise */
	double *trace_c, tstep, bucket_s;
	int ntrace;
	int buf, nf, defer, trace, wtrace, hystart, ackn;
	double gro;		/* GRO=: the receiver's poll period, s */
	/* tbf */
	double tok, tok_t, qlast, *qdep;
	long qh, qt, drops, arrivals;
	/* queueing delay samples */
	double *qd;
	long nqd;
};

static struct ev heap[HEAP];
static long nheap;
static struct flow fl[NF];
static struct model m;

static double env_f(const char *name, double dflt)
{
	const char *v = getenv(name);

	return v ? atof(v) : dflt;
}

static double mbit(u64 bytes_per_s)
{
	return bytes_per_s * 8 / 1e6;
}

static double rnd(void)
{
	return rand() / ((double)RAND_MAX + 1);
}

/* A standard normal draw (Box-Muller). */
static double gauss(void)
{
	return sqrt(-2 * log(1 - rnd())) * cos(2 * M_PI * rnd());
}

static void push(double t, int type, int f, long arg)
{
	long i = nheap++;

	if (nheap >= HEAP) {
		fprintf(stderr, "event heap full\n");
		exit(1);
	}
	while (i > 0 && heap[(i - 1) / 2].t > t) {
		heap[i] = heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	heap[i] = (struct ev){ t, type, f, arg };
}

static struct ev pop(void)
{
	struct ev top = heap[0], last = heap[--nheap];
	long i = 0, c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= nheap)
			break;
		if (c + 1 < nheap && heap[c + 1].t < heap[c].t)
			c++;
		if (heap[c].t >= last.t)
			break;
		heap[i] = heap[c];
		i = c;
	}
	heap[i] = last;
	return top;
}

/* The capacity at @t, bytes/s: netlab's trace steps, or fixed */
static double link_c(double t)
{
	long i;

	if (!m.ntrace)
		return m.c;
	i = t > 0 ? (long)(t / m.tstep) : 0;
	return m.trace_c[i < m.ntrace ? i : m.ntrace - 1];
}

/* Bytes the link passes in [@a, @b] */
static double link_bytes(double a, double b)
{
	double sum = 0, t = a;

	if (!m.ntrace)
		return m.c * (b - a);
	while (t < b) {
		double end = (floor(t / m.tstep) + 1) * m.tstep;

		if (end > b)
			end = b;
		sum += link_c(t) * (end - t);
		t = end;
	}
	return sum;
}

/*
 * A step of the trace changes the rate of what is enqueued from then on
 * (tc change of a tbf); the packets already queued keep their times.
 */
static void tbf_retune(double t)
{
	double c = link_c(t);

	if (c == m.c)
		return;
	m.c = c;
	if (m.bucket_s > 0)
		m.bucket = c * m.bucket_s < WIRE ? WIRE : c * m.bucket_s;
}

/* The tbf: departure time of a packet reaching it at @ta, < 0: dropped */
static double tbf_enqueue(double ta)
{
	double start, tok, dep;

	tbf_retune(ta);
	m.arrivals++;
	if (m.loss > 0 && rnd() < m.loss)
		return -1;
	while (m.qh < m.qt && m.qdep[m.qh % MAXTX] <= ta)
		m.qh++;
	if (m.qt - m.qh >= m.buf) {
		m.drops++;
		return -1;
	}
	start = ta > m.qlast ? ta : m.qlast;
	tok = m.tok + m.c * (start - m.tok_t);
	if (tok > m.bucket)
		tok = m.bucket;
	dep = tok >= WIRE ? start : start + (WIRE - tok) / m.c;
	m.tok = tok >= WIRE ? tok - WIRE : 0;
	m.tok_t = dep;
	m.qlast = dep;
	m.qdep[m.qt++ % MAXTX] = dep;
	if (ta >= m.warm && m.nqd < MAXTX)
		m.qd[m.nqd++] = dep - ta;
	return dep;
}

/* One skb of @n packets (a retransmission when @rseq is set) */
static void send_skb(struct flow *x, int f, double now, u32 n, const u32 *rseq)
{
	u32 i;

	for (i = 0; i < n; i++) {
		struct tx *k = &x->tx[x->ntx];
		double dep = tbf_enqueue(now + (i + 1) * WIRE / m.line);

		k->sendt = now;
		k->seq = rseq ? *rseq : x->next_seq++;
		k->skb = rseq ? 0x80000000u | (u32)x->ntx : x->next_seq;
		k->prior_dlv = x->delivered;
		k->state = TX_OUT;
		k->retrans = !!rseq;
		k->dropped = dep < 0;
		if (!k->dropped)
			push(dep + (m.bucket > WIRE ? 0 : WIRE / m.c) + m.base / 2,
			     EV_ARRIVE, f, x->ntx);
		x->ntx++;
		x->inflight++;
	}
	/* rs->last_end_seq of an original skb: its end */
	if (!rseq)
		for (i = 0; i < n; i++)
			x->tx[x->ntx - 1 - i].skb = x->next_seq;
	x->retrans += rseq ? 1 : 0;
	if (x->ntx >= MAXTX - 64) {
		fprintf(stderr, "too many packets\n");
		exit(1);
	}
}

static double pto(const struct flow *x)
{
	double t = 2 * x->srtt;

	return t > 0.010 ? t : 0.010;
}

static double rto(const struct flow *x)
{
	double t = x->srtt + 4 * x->rttvar;

	if (t < RTO_MIN)
		t = RTO_MIN;
	return t * (1 << x->backoff);
}

static void arm_timer(struct flow *x, int f, double now)
{
	double t = x->tlp_done || x->backoff ? rto(x) : pto(x);

	x->rto_t = now + t;
	push(x->rto_t, EV_TIMER, f, 0);
}

/* tcp_tso_segs(): max(tcp_tso_autosize(), min_tso_segs) */
static u32 skb_segs(const struct flow *x)
{
	u64 rate = etc_pacing_rate(&x->e, &m.p);
	u32 segs = (u32)(rate >> 10) / PMSS, n = etc_burst_size(&x->e, &m.p);

	return segs > n ? segs : n;
}

/*
 * tcp_tso_should_defer(): a cwnd-limited sender holds an skb smaller than
 * N segments while an ACK is due within half an srtt, unless the quota
 * is a third of cwnd or it is in recovery.  DEFER=0: never holds.
 */
static int tso_defer(const struct flow *x, double now, u32 quota)
{
	long h = x->scan;

	if (!m.defer || x->in_rec || x->in_loss || quota * 3 >= x->cwnd)
		return 0;
	while (h < x->ntx && x->tx[h].state != TX_OUT)
		h++;
	return h < x->ntx && now - x->tx[h].sendt >= x->srtt / 2;
}

/* tcp_cwnd_validate(): whether the last window was cwnd-limited */
static void cwnd_validate(struct flow *x, int limited)
{
	if (limited || x->una >= x->cwl_seq) {
		x->cwl = limited;
		x->cwl_seq = x->next_seq;
	}
}

static void try_send(struct flow *x, int f, double now)
{
	int sent = 0;

	for (;;) {
		u32 quota = x->cwnd > x->inflight ? x->cwnd - x->inflight : 0;
		u32 n;

		if (!quota) {
			cwnd_validate(x, 1);
			return;
		}
		if (!x->cubic && now < x->pace_next) {
			if (x->wake_t != x->pace_next) {
				x->wake_t = x->pace_next;
				push(x->pace_next + m.jit * rnd(), EV_SEND, f, 0);
			}
			if (sent)
				cwnd_validate(x, 0);
			return;
		}
		/* CA_EVENT_TX_START at an RTO's retransmission */
		if (!x->cubic && !x->inflight && x->in_loss)
			etc_on_restart(&x->e, (u32)(now * 1e6));
		if (!x->inflight)
			arm_timer(x, f, now);
		if (x->rq_h < x->rq_t) {
			u32 seq = x->rtxq[x->rq_h++ % MAXTX];

			if (x->got_s[seq])
				continue;
			send_skb(x, f, now, 1, &seq);
			n = 1;
		} else {
			n = x->cubic ? 1 : skb_segs(x);
			if (n > quota) {
				if (!x->cubic && tso_defer(x, now, quota)) {
					cwnd_validate(x, 1);
					return;
				}
				n = quota;
			}
			send_skb(x, f, now, n, NULL);
		}
		sent = 1;
		if (!x->cubic) {
			double r = etc_pacing_rate(&x->e, &m.p);

			if (x->pace_next < now)
				x->pace_next = now;
			x->pace_next += n * (double)PMSS / r;
		} else {
			now += WIRE / m.line;
		}
	}
}

/*
 * CJ: one Ornstein-Uhlenbeck process for every flow, a host's stall,
 * advanced at the ACKs' send times (events keep them in order).
 */
static double host_stall(double now)
{
	double a;

	if (m.cj <= 0)
		return 0;
	a = exp(-(now - m.cj_t) / m.ct);
	m.cj_x = m.cj_x * a + m.cj * sqrt(1 - a * a) * gauss();
	m.cj_t = now;
	return m.cj_x > 0 ? m.cj_x : 0;
}

/* The receiver sends an ACK of everything pending */
static void send_ack(struct flow *x, int f, double now)
{
	if (x->np_h == x->np_t)
		return;
	x->acks[x->na_t++ % MAXTX] = x->np_t;
	x->np_h = x->np_t;
	x->delack_gen++;
	now += host_stall(now) + m.base / 2 + m.jit * rnd();
	if (m.ajit > 0)
		now += m.ajit * gauss();
	if (now < x->ack_last + m.ackgap)
		now = x->ack_last + m.ackgap;
	x->ack_last = now;
	push(now, EV_ACK, f, 0);
}

static void on_arrive(struct flow *x, int f, double now, long i)
{
	struct tx *k = &x->tx[i];
	int now_ack = 0;

	if (x->got_r[k->seq] || k->seq != x->rcv_nxt ||
	    x->rcv_high != x->rcv_nxt)
		now_ack = 1;	/* duplicate, out of order or hole filled */
	if (!x->got_r[k->seq]) {
		long b = (long)(now / BIN);

		x->got_r[k->seq] = 1;
		if (x->first_byte < 0)
			x->first_byte = now;
		if (b < NBIN)
			x->bins[b] += PMSS;
		if (now >= m.warm && now < m.dur)
			x->goodput_bytes += PMSS;
	}
	if (k->seq >= x->rcv_high)
		x->rcv_high = k->seq + 1;
	while (x->got_r[x->rcv_nxt])
		x->rcv_nxt++;
	x->pend[x->np_t++ % MAXTX] = i;
	if (m.gro > 0) {
		/* the packets of one poll are merged and acked as one */
		x->poll_ack |= now_ack;
		if (!x->poll_armed) {
			x->poll_armed = 1;
			push((floor(now / m.gro) + 1) * m.gro, EV_POLL, f, 0);
		}
		return;
	}
	if (now_ack || x->np_t - x->np_h >= m.ackn) {
		send_ack(x, f, now);
		return;
	}
	push(now + DELACK, EV_DELACK, f, ++x->delack_gen);
}

/* RACK: lost once a later-sent packet was delivered and its RTT passed */
static u32 rack_detect(struct flow *x, int f, double now)
{
	double reo = x->min_rtt / 4, next = 0;
	u32 lost = 0;
	long i;

	while (x->scan < x->ntx && x->tx[x->scan].state != TX_OUT)
		x->scan++;
	for (i = x->scan; i < x->ntx; i++) {
		struct tx *k = &x->tx[i];

		if (k->sendt >= x->rack_xmit)
			break;
		if (k->state != TX_OUT)
			continue;
		if (k->sendt + x->rack_rtt + reo <= now) {
			k->state = TX_LOST;
			x->inflight--;
			lost++;
			if (!x->got_s[k->seq])
				x->rtxq[x->rq_t++ % MAXTX] = k->seq;
		} else if (!next) {
			next = k->sendt + x->rack_rtt + reo;
		}
	}
	if (next)
		push(next, EV_TIMER, f, 1);
	return lost;
}

/*
 * HyStart's delay test (tcp_cubic.c): in slow start, the lowest RTT of a
 * round's first 8 ACKs above the last round's by an eighth of it (4 to
 * 16 ms) ends slow start.  HYSTART=0: off.
 */
static void hystart(struct flow *x, double rtt)
{
	double thr = x->hs_last / 8;

	if (!m.hystart || x->cw >= x->ssthresh)
		return;
	if (x->una >= x->hs_end) {
		x->hs_last = x->hs_n ? x->hs_min : x->hs_last;
		x->hs_end = x->next_seq;
		x->hs_min = 1e9;
		x->hs_n = 0;
	}
	if (x->hs_n < 8) {
		x->hs_n++;
		if (rtt < x->hs_min)
			x->hs_min = rtt;
	}
	thr = thr < 0.004 ? 0.004 : thr > 0.016 ? 0.016 : thr;
	if (x->hs_n == 8 && x->hs_last > 0 && x->hs_min >= x->hs_last + thr)
		x->ssthresh = x->cw;
}

static void cubic_on_ack(struct flow *x, double now, u32 acked, u32 lost,
			 u32 high_acked)
{
	if (lost && !x->in_rec && !x->in_loss) {
		x->wmax = x->cw;
		x->cw *= 0.7;
		if (x->cw < 2)
			x->cw = 2;
		x->ssthresh = x->cw;
		x->epoch = 0;
		return;
	}
	if (x->in_rec)
		return;
	(void)high_acked;
	while (acked--) {
		double target, t;

		if (x->cw < x->ssthresh) {
			x->cw += 1;
			continue;
		}
		if (!x->epoch) {
			x->epoch = now;
			if (x->wmax < x->cw)
				x->wmax = x->cw;
			x->k = cbrt((x->wmax - x->cw) / 0.4);
			x->west = x->cw;
		}
		t = now - x->epoch + x->min_rtt;
		target = x->wmax + 0.4 * pow(t - x->k, 3);
		x->west += 3 * 0.3 / 1.7 / x->cw;
		if (x->west > target)
			target = x->west;
		if (target > x->cw)
			x->cw += (target - x->cw) / x->cw;
		else
			x->cw += 0.01 / x->cw;
	}
}

/* The rate sample of tcp_etc.c's etc_main(), and what it sets */
static void etc_glue(struct flow *x, int f, double now, const struct tx *k,
		     u32 acked, u32 lost)
{
	struct etc_ack a = {
		.now_us = (u32)(now * 1e6),
		.burst_id = k ? k->skb : 0,
		.delivered = x->delivered,
		.prior_delivered = k ? k->prior_dlv : x->delivered,
		.rtt_us = k && !k->retrans ? (u32)((now - k->sendt) * 1e6) : 0,
		.lost = lost,
		.inflight = (u64)x->inflight * PMSS,
		.mss = PMSS,
		.valid = acked && k && !k->retrans,
		.cwnd_limited = x->cwl,
	};
	enum etc_event ev = etc_on_ack(&x->e, &m.p, &a);

	x->cwnd = etc_cwnd_prev(&x->e, &m.p, PMSS, (u32)(x->srtt * 1e6),
				x->cwnd);
	x->events[ev & 15]++;
	if (m.wtrace && x->e.fast && ev != ETC_EV_NONE)
		printf(WTRACE_FMT, now, f, x->e.stage, ev, x->e.fast->compete,
		       x->e.fast->w, x->e.fast->spread_us, x->e.min_rtt_us,
		       x->e.fast->mean_us, x->e.fast->noise_base_us);
	if (m.trace == f && ev != ETC_EV_NONE)
		printf(TRACE_FMT, now, f, ev, etc_burst_size(&x->e, &m.p),
		       x->e.stage, mbit(x->e.rate), mbit(etc_rp(&x->e)),
		       mbit(x->e.rcv), mbit(etc_rcv_now(&x->e)), mbit(x->e.rcv_max),
		       x->cwnd, x->e.inflight_hi, x->inflight, lost);
}

static void on_ack(struct flow *x, int f, double now)
{
	long end = x->acks[x->na_h++ % MAXTX], newest = -1;
	u32 acked = 0, lost;

	for (; x->np_s < end; x->np_s++) {
		long j = x->pend[x->np_s % MAXTX];
		struct tx *k = &x->tx[j];

		if (k->state == TX_ACKED)
			continue;
		if (k->state == TX_OUT)
			x->inflight--;
		k->state = TX_ACKED;
		if (!x->got_s[k->seq]) {
			x->got_s[k->seq] = 1;
			x->delivered++;
			acked++;
		}
		if (newest < 0 || k->sendt >= x->tx[newest].sendt)
			newest = j;
		if (k->sendt >= x->rack_xmit) {
			x->rack_xmit = k->sendt;
			x->rack_rtt = now - k->sendt;
		}
	}
	while (x->got_s[x->una])
		x->una++;
	if (newest >= 0 && !x->tx[newest].retrans) {
		double r = now - x->tx[newest].sendt;

		x->rttvar += (fabs(r - x->srtt) - x->rttvar) / 4;
		x->srtt += (r - x->srtt) / 8;
		if (r < x->min_rtt)
			x->min_rtt = r;
	}
	lost = rack_detect(x, f, now);
	if (acked) {
		x->backoff = 0;
		x->tlp_done = 0;
		if (x->in_loss && x->una >= x->loss_high)
			x->in_loss = 0;
		if (x->inflight || x->rq_h < x->rq_t)
			arm_timer(x, f, now);
	}
	if (x->in_rec && x->una >= x->rec_high)
		x->in_rec = 0;
	if (x->cubic) {
		if (newest >= 0 && !x->tx[newest].retrans)
			hystart(x, now - x->tx[newest].sendt);
		cubic_on_ack(x, now, acked, lost, x->una);
		x->cwnd = x->cw < 1 ? 1 : (u32)x->cw;
	} else {
		etc_glue(x, f, now, newest >= 0 ? &x->tx[newest] : NULL,
			 acked, lost);
	}
	if (lost && !x->in_rec && !x->in_loss) {
		x->in_rec = 1;
		x->rec_high = x->next_seq;
	}
	try_send(x, f, now);
}

/* TLP, then RTO; @arg 1: RACK's reordering timer */
static void on_timer(struct flow *x, int f, double now, long arg)
{
	long i;

	if (arg) {
		rack_detect(x, f, now);
		try_send(x, f, now);
		return;
	}
	if (now != x->rto_t || (!x->inflight && x->rq_h == x->rq_t))
		return;
	if (!x->tlp_done && !x->backoff) {
		x->tlp_done = 1;
		send_skb(x, f, now, 1, NULL);
		arm_timer(x, f, now);
		return;
	}
	x->rtos++;
	for (i = x->scan; i < x->ntx; i++) {
		struct tx *k = &x->tx[i];

		if (k->state != TX_OUT)
			continue;
		k->state = TX_LOST;
		if (!x->got_s[k->seq])
			x->rtxq[x->rq_t++ % MAXTX] = k->seq;
	}
	x->inflight = 0;
	if (!x->in_loss) {
		x->in_loss = 1;
		x->loss_high = x->next_seq;
		if (x->cubic) {
			x->ssthresh = x->cw * 0.7 > 2 ? x->cw * 0.7 : 2;
			x->cw = 1;
			x->in_rec = 0;
			x->epoch = 0;
		} else {
			etc_on_rto(&x->e, &m.p, PMSS);
			x->events[ETC_EV_RTO]++;
		}
	}
	x->cwnd = 1;
	if (x->backoff < 6)
		x->backoff++;
	x->pace_next = now;
	try_send(x, f, now);
	arm_timer(x, f, now);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * As netlab's convergence_s: the first 0.5 s bin from which flow f's
 * goodput stays within 25 % of its fair share for 2 s, in seconds after
 * its first byte; -1 if never.
 */
static double convergence(int f)
{
	const struct flow *x = &fl[f];
	long b0, b, nb = (long)(m.dur / BIN), need = (long)(2.0 / BIN), run = 0;
	double cap = link_c(m.warm) * PMSS / WIRE * 8 / 1e6;
	int g;

	if (x->first_byte < 0)
		return -1;
	if (nb > NBIN)
		nb = NBIN;
	b0 = (long)ceil(x->first_byte / BIN);
	for (b = b0; b < nb; b++) {
		double mid = (b + 0.5) * BIN, fair, got;
		int n = 0;

		for (g = 0; g < m.nf; g++)
			if (fl[g].first_byte >= 0 && fl[g].first_byte <= mid)
				n++;
		fair = cap / (n ? n : 1);
		got = x->bins[b] * 8 / BIN / 1e6;
		run = fabs(got - fair) <= 0.25 * fair ? run + 1 : 0;
		if (run >= need)
			return fmax(0, (b - need + 1) * BIN - x->first_byte);
	}
	return -1;
}

static void report(void)
{
	double win = m.dur - m.warm;
	double cap = link_bytes(m.warm, m.dur) * PMSS / WIRE;
	double etc = 0, cub = 0, qsum = 0, sq = 0;
	long i, rtx = 0, rtos = 0;
	int f;

	for (f = 0; f < m.nf; f++) {
		struct flow *x = &fl[f];

		printf("flow %d %s %.2f Mbit/s, %ld retrans, %ld RTOs",
		       f, x->cubic ? "cubic" : "etc",
		       x->goodput_bytes * 8 / 1e6 / win, x->retrans, x->rtos);
		if (!x->cubic)
			printf(", inc %ld drain %ld dec %ld loss %ld keep %ld",
			       x->events[ETC_EV_INCREASE], x->events[ETC_EV_DRAIN],
			       x->events[ETC_EV_DECREASE], x->events[ETC_EV_LOSS],
			       x->events[ETC_EV_KEEP]);
		printf(", conv %.1f s\n", convergence(f));
		if (getenv("BINS")) {
			long b;

			for (b = 0; b < (long)(m.dur / BIN) && b < NBIN; b++)
				printf(" %.1f", x->bins[b] * 8 / BIN / 1e6);
			printf("\n");
		}
		sq += x->goodput_bytes * x->goodput_bytes;
		if (x->cubic)
			cub += x->goodput_bytes;
		else
			etc += x->goodput_bytes;
		rtx += x->retrans;
		rtos += x->rtos;
	}
	for (i = 0; i < m.nqd; i++)
		qsum += m.qd[i];
	qsort(m.qd, m.nqd, sizeof(double), cmp_d);
	printf(REPORT_FMT, (etc + cub) / cap, etc / cap, cub > 0 ? etc / cub : 0,
	       sq > 0 ? (etc + cub) * (etc + cub) / (m.nf * sq) : 0,
	       m.arrivals ? 100.0 * m.drops / m.arrivals : 0, rtx, rtos,
	       m.nqd ? 1e3 * qsum / m.nqd : 0,
	       m.nqd ? 1e3 * m.qd[(long)(0.95 * (m.nqd - 1))] : 0);
}

static void *zalloc(size_t n, size_t sz)
{
	void *p = calloc(n, sz);

	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return p;
}

static void flow_init(struct flow *x, int cubic, double start)
{
	x->cubic = cubic;
	x->tx = zalloc(MAXTX, sizeof(*x->tx));
	x->got_s = zalloc(MAXTX, 1);
	x->got_r = zalloc(MAXTX, 1);
	x->rtxq = zalloc(MAXTX, sizeof(u32));
	x->pend = zalloc(MAXTX, sizeof(long));
	x->acks = zalloc(MAXTX, sizeof(long));
	x->srtt = m.base;
	x->rttvar = m.base / 2;
	x->min_rtt = m.base;
	x->cwnd = 10;
	x->cw = 10;
	x->ssthresh = 1e9;
	x->wake_t = -1;
	x->first_byte = -1;
	if (!cubic)
		etc_core_init(&x->e, getenv("WINDOW") ? &x->fast : NULL,
			      PMSS, (u32)(m.base * 1e6),
			      (u32)(start * 1e6));
}

/* TRACE=file: one rate in Mbit/s per line, '#' lines skipped */
static int trace_load(const char *path, double step)
{
	char line[128];
	FILE *f;

	if (!path)
		return 0;
	f = step > 0 ? fopen(path, "r") : NULL;
	if (!f) {
		fprintf(stderr, "cannot read trace %s\n", path);
		return 1;
	}
	m.trace_c = zalloc(NBIN, sizeof(double));
	while (m.ntrace < NBIN && fgets(line, sizeof(line), f))
		if (line[0] != '#' && atof(line) > 0)
			m.trace_c[m.ntrace++] = atof(line) * 1e6 / 8;
	fclose(f);
	m.tstep = step;
	if (!m.ntrace) {
		fprintf(stderr, "empty trace %s\n", path);
		return 1;
	}
	return 0;
}

static int model_init(int argc, char **argv)
{
	double stagger;
	int f, ncubic;

	if (argc < 8) {
		fprintf(stderr, "usage: %s %s\n", argv[0],
			"MBIT BUFFER_PKTS RTT_S DURATION_S WARMUP_S ETC_FLOWS CUBIC [SEED]");
		return 2;
	}
	m.c = atof(argv[1]) * 1e6 / 8;
	m.buf = atoi(argv[2]);
	m.base = atof(argv[3]);
	m.dur = atof(argv[4]);
	m.warm = atof(argv[5]);
	m.nf = atoi(argv[6]);
	ncubic = atoi(argv[7]) ? 1 : 0;
	srand(argc > 8 ? atoi(argv[8]) : 1);
	if (m.nf < 0 || m.nf + ncubic > NF || m.nf + ncubic < 1 ||
	    m.buf < 1 || m.c <= 0 || m.base <= 0 || m.warm >= m.dur) {
		fprintf(stderr, "bad arguments\n");
		return 2;
	}
	m.p = (struct etc_params){ .alpha = (u32)(env_f("ALPHA", 4) * 65536 + 0.5),
				   .eta = (u32)(env_f("ETA", 0.3) * 65536 + 0.5),
				   .k = (u32)(env_f("K", 1.1) * 65536 + 0.5),
				   .grad = (u32)(env_f("GRAD", 0.1) * 65536 + 0.5),
				   .grad_floor_us = (u32)env_f("GF", 1000),
				   .burst = (u32)env_f("N", 8) };
	m.bucket_s = getenv("BUCKET") ? 0 : 0.005;
	m.bucket = env_f("BUCKET", m.c * 0.005);
	if (trace_load(getenv("TRACE"), env_f("TSTEP", 5)))
		return 2;
	if (m.bucket < WIRE)
		m.bucket = WIRE;
	m.tok = m.bucket;
	m.line = env_f("LINE", 1000) * 1e6 / 8;
	m.loss = env_f("LOSS", 0);
	m.jit = env_f("J", 0.0002);
	m.ajit = env_f("AJ", 0);
	m.ackgap = env_f("ACKGAP", 0);
	m.cj = env_f("CJ", 0);
	m.ct = env_f("CT", 0.01);
	if (m.cj < 0 || m.ct <= 0) {
		fprintf(stderr, "CJ must be >= 0 and CT > 0\n");
		return 2;
	}
	m.defer = (int)env_f("DEFER", 1);
	m.hystart = (int)env_f("HYSTART", 1);
	m.ackn = (int)env_f("ACKN", 2);
	m.gro = env_f("GRO", 0);
	if (m.ackn < 1)
		m.ackn = 1;
	m.trace = (int)env_f("V", -1);
	m.wtrace = !!getenv("WT");
	m.qdep = zalloc(MAXTX, sizeof(double));
	m.qd = zalloc(MAXTX, sizeof(double));
	stagger = env_f("STAGGER", 0);
	for (f = 0; f < m.nf + ncubic; f++) {
		/* flow f starts at f x STAGGER, jittered by up to 5 ms */
		double start = f * stagger + 0.005 * rnd();

		flow_init(&fl[f], f >= m.nf, start);
		push(start, EV_SEND, f, 0);
	}
	m.nf += ncubic;
	return 0;
}

int main(int argc, char **argv)
{
	int err = model_init(argc, argv);

	if (err)
		return err;
	while (nheap) {
		struct ev v = pop();
		struct flow *x = &fl[v.f];

		if (v.t > m.dur)
			break;
		switch (v.type) {
		case EV_SEND:
			try_send(x, v.f, v.t);
			break;
		case EV_ARRIVE:
			on_arrive(x, v.f, v.t, v.arg);
			break;
		case EV_ACK:
			on_ack(x, v.f, v.t);
			break;
		case EV_DELACK:
			if (v.arg == x->delack_gen)
				send_ack(x, v.f, v.t);
			break;
		case EV_POLL:
			/* a merged packet of two segments or more is acked now */
			x->poll_armed = 0;
			if (x->poll_ack || x->np_t - x->np_h >= 2)
				send_ack(x, v.f, v.t);
			else
				push(v.t + DELACK, EV_DELACK, v.f, ++x->delack_gen);
			x->poll_ack = 0;
			break;
		default:
			on_timer(x, v.f, v.t, v.arg);
			break;
		}
	}
	report();
	return 0;
}
