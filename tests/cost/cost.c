// SPDX-License-Identifier: GPL-2.0
/*
 * Replays the recorded ACK sequence (acks.txt) or packet sequence
 * (pkts.txt) through one core's per-ACK (per-packet) functions, for
 * callgrind to count (tests/cost/run):
 *
 *	cost MODE FILE
 *
 * MODE is the module: tcp_etc, tcp_pcc, tcp_abc, pad_shim (acks.txt),
 * sch_abc or sch_abc-estimate (pkts.txt; with and without a bandwidth).
 * Each core call the module's glue makes per ACK goes through a cost_*
 * wrapper, which callgrind counts (--toggle-collect=cost_*); what the
 * glue does in the kernel alone (reading the socket, the stack's rate
 * sample, pacing and cwnd writes, trace points) is done outside them,
 * and so is the glue's arithmetic that builds a core's inputs.  Prints
 * "records N": the ACKs (packets) replayed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>

#include "../../tcp_etc/etc_core.h"
#include "../../tcp_pcc/pcc_core.h"
#include "../../tcp_abc/abc_window.h"
#include "../../sch_abc/abc_mark.h"
#include "../../pad_shim/pad_core.h"
#include "cc_param.h"

/*
 * Out of line, so that callgrind sees each call; gcc's noipa (which
 * implies noinline) also keeps IPA from cloning one or moving work
 * across its boundary.
 */
#define __cost_attr(a) __attribute__((a))
#ifdef __clang__
#define __cost __cost_attr(__noinline__)
#else
#define __cost __cost_attr(__noipa__)
#endif

#define MSS		1448U
#define TCP_CA_CWR	2
#define TCP_CA_RECOVERY	3
#define TCP_CA_LOSS	4

/* One line of acks.txt (see gen-acks.py) or of pkts.txt. */
struct rec {
	char kind;		/* a: ACK, t: TX_START, r: RTO, p: packet */
	long long v[17];
};

static struct rec *recs;
static size_t nrecs;

static void load(const char *path)
{
	char line[512];
	size_t cap = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		struct rec r = { .kind = line[0] };
		char *s = line + 1, *end;
		int i;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		for (i = 0; i < 17; i++, s = end) {
			r.v[i] = strtoll(s, &end, 10);
			if (end == s)
				break;
		}
		if (nrecs == cap) {
			cap = cap ? 2 * cap : 8192;
			recs = realloc(recs, cap * sizeof(*recs));
			if (!recs)
				exit(2);
		}
		recs[nrecs++] = r;
	}
	fclose(f);
}

/* Results go here, and are printed, so that no call is optimised away. */
static u64 sink;

/* Field names of an "a" record (acks.txt). */
enum { A_NOW, A_DELIVERED, A_PRIOR_DLV, A_ACKED, A_LOSSES, A_RTT,
	A_INTERVAL, A_SND_INTERVAL, A_PRIOR_INFLIGHT, A_INFLIGHT, A_SRTT,
	A_FIRST_TX, A_END_SEQ, A_APP, A_RETRANS, A_ECE, A_STATE };

/* A deterministic stand-in for get_random_u32(). */
static u32 rnd(void)
{
	static u32 x = 2463534242U;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

/* ---- tcp_etc: etc_main() ---- */

/* @cwnd: the window set on the previous ACK, the glue's guess. */
static __cost void cost_etc(struct etc_core *e, const struct etc_params *p,
			    const struct etc_ack *a, u32 srtt_us, u32 *cwnd)
{
	etc_on_ack(e, p, a);
	*cwnd = etc_cwnd_prev(e, p, a->mss, srtt_us, *cwnd);
	sink += etc_pacing_rate(e, p);
}

static size_t run_etc(void)
{
	/* the module's defaults */
	struct etc_params p = { .alpha = CC_Q16(4, 0), .eta = CC_Q16(0, 3000),
				.k = CC_Q16(1, 1000), .grad = CC_Q16(0, 1000),
				.burst = 8 };
	struct etc_core e;
	struct etc_fast f;
	size_t i, n = 0;
	int state = 0;
	u32 cwnd = 0;

	etc_core_init(&e, &f, MSS, 0, 0);
	CALLGRIND_START_INSTRUMENTATION;
	for (i = 0; i < nrecs; i++) {
		const long long *v = recs[i].v;
		struct etc_ack a = { 0 };

		if (recs[i].kind == 't') {
			etc_on_restart(&e, (u32)v[0]);
			continue;
		}
		if (recs[i].kind == 'r') {
			etc_on_rto(&e, &p, MSS);
			continue;
		}
		if (v[A_STATE] == TCP_CA_LOSS && state != TCP_CA_LOSS)
			etc_on_rto(&e, &p, MSS);
		state = (int)v[A_STATE];
		a.now_us = (u32)v[A_NOW];
		a.burst_id = (u32)v[A_END_SEQ];
		a.delivered = (u32)v[A_DELIVERED];
		a.prior_delivered = v[A_PRIOR_DLV] < 0 ? 0 : (u32)v[A_PRIOR_DLV];
		a.rtt_us = v[A_RTT] > 0 ? (u32)v[A_RTT] : 0;
		a.lost = (u32)v[A_LOSSES];
		a.inflight = (u64)v[A_INFLIGHT] * MSS;
		a.mss = MSS;
		a.valid = v[A_PRIOR_DLV] >= 0 && v[A_ACKED] && !v[A_RETRANS];
		a.app_limited = v[A_APP];
		cost_etc(&e, &p, &a, (u32)v[A_SRTT], &cwnd);
		n++;
	}
	return n;
}

/* ---- tcp_pcc: pcc_main() ---- */

struct pcc {
	struct pcc_ctl ctl;
	struct pcc_mon mon;
};

/*
 * pcc_main() up to the start of an MI: true if one is to start (*realign).
 * A rate sample that moves the in-flight cap costs the glue the cap
 * (pcc_apply_rate()).
 */
static __cost bool cost_pcc_ack(struct pcc *pc, const struct pcc_params *p,
				u32 now, u32 sent, u32 acked, u32 lost, u32 rtt,
				u32 dlv, bool app, u32 r1, u32 r2, bool *realign)
{
	struct pcc_result r;

	*realign = false;
	if (dlv && rtt && pcc_ctl_on_delivery(&pc->ctl, (u64)dlv * MSS, rtt, app))
		sink += pcc_cap_cwnd(&pc->ctl, rtt, MSS, 4);
	if (unlikely(pcc_mon_stale(&pc->mon, now)))
		pcc_on_idle_restart(&pc->ctl, &pc->mon, p, r1);
	if (pcc_mon_on_ack(&pc->mon, sent, acked, lost, rtt, rtt >> 5, &r)) {
		s64 u = pcc_mi_utility(p, &r, MSS);

		if (pcc_ctl_on_result(&pc->ctl, p, &r, u,
				      pcc_result_congested(p, &r), r2)) {
			*realign = true;
			return true;
		}
	}
	return pcc_mon_due(&pc->mon, now);
}

/* pcc_start_mi(); lo and hi come from the glue (pcc_bounds()). */
static __cost void cost_pcc_start_mi(struct pcc *pc, const struct pcc_params *p,
				     u32 now, bool realign, u32 lo, u32 hi,
				     u32 srtt, u32 r)
{
	u32 rate, dur;
	u8 tag;

	rate = pcc_ctl_next(&pc->ctl, p, lo, hi, &tag);
	/* the recorded ACKs carry no RTT deviation: 0, as the glue's at start */
	dur = pcc_mi_duration(rate, MSS, srtt, 0, r);
	if (realign)
		pcc_mon_realign(&pc->mon, now, dur, rate, tag);
	else
		pcc_mon_next(&pc->mon, now, dur, rate, tag, srtt >> 2);
	sink += rate;
}

static u32 pcc_srtt(long long srtt)
{
	return srtt > 0 ? (u32)srtt : 100000;
}

/* The glue's pcc_bounds(): 2 packets per srtt .. no socket limit. */
static u32 pcc_lo(u32 srtt)
{
	return (u32)min_t(u64, div_u64(2ULL * MSS * USEC_PER_SEC, srtt),
			  PCC_RATE_MAX);
}

static size_t run_pcc(void)
{
	struct pcc_params p = { .alpha = CC_Q16(100, 0),
				.eps_min = CC_Q16(0, 100), .eps_max = CC_Q16(0, 500),
				.utility = PCC_UTIL_VIVACE };
	u32 srtt = pcc_srtt(0), lo = pcc_lo(srtt), rate, dur;
	struct pcc pc;
	size_t i, n = 0;
	int state = 0;
	u8 tag;

	pcc_ctl_init(&pc.ctl, &p,
		     pcc_clamp_rate(div_u64(10ULL * MSS * USEC_PER_SEC, srtt),
				    lo, PCC_RATE_MAX));
	rate = pcc_ctl_next(&pc.ctl, &p, lo, PCC_RATE_MAX, &tag);
	dur = pcc_mi_duration(rate, MSS, srtt, 0, rnd());
	pcc_mon_init(&pc.mon, 0, dur, rate, tag);
	CALLGRIND_START_INSTRUMENTATION;
	for (i = 0; i < nrecs; i++) {
		const long long *v = recs[i].v;
		u32 now = (u32)v[0];
		bool realign;

		srtt = pcc_srtt(recs[i].kind == 'a' ? v[A_SRTT] : 0);
		lo = pcc_lo(srtt);
		if (recs[i].kind == 't') {
			pcc_on_idle_restart(&pc.ctl, &pc.mon, &p, rnd());
			cost_pcc_start_mi(&pc, &p, now, false, lo, PCC_RATE_MAX,
					  srtt, rnd());
			continue;
		}
		if (recs[i].kind == 'r' ||
		    (v[A_STATE] == TCP_CA_LOSS && state != TCP_CA_LOSS)) {
			pcc_on_rto(&pc.ctl, &pc.mon, &p, lo);
			cost_pcc_start_mi(&pc, &p, now, false, lo, PCC_RATE_MAX,
					  srtt, rnd());
			if (recs[i].kind == 'r')
				continue;
		}
		state = (int)v[A_STATE];
		if (cost_pcc_ack(&pc, &p, now, (u32)v[A_FIRST_TX],
				 (u32)v[A_ACKED], (u32)v[A_LOSSES],
				 v[A_RTT] > 0 ? (u32)v[A_RTT] : 0,
				 v[A_PRIOR_DLV] >= 0 ?
				 (u32)(v[A_DELIVERED] - v[A_PRIOR_DLV]) : 0,
				 v[A_APP], rnd(), rnd(), &realign))
			cost_pcc_start_mi(&pc, &p, now, realign, lo,
					  PCC_RATE_MAX, srtt, rnd());
		n++;
	}
	return n;
}

/* ---- tcp_abc: abc_main() ---- */

static __cost u32 cost_abc(struct abc_window *w, const struct abc_ack *a)
{
	abc_on_ack(w, a);
	return abc_window_bytes(w, a->ecn);
}

static size_t run_abc(void)
{
	struct abc_window w;
	u32 next_round = 0;
	size_t i, n = 0;
	int state = 0;

	abc_window_init(&w, 10, MSS);
	CALLGRIND_START_INSTRUMENTATION;
	for (i = 0; i < nrecs; i++) {
		const long long *v = recs[i].v;
		struct abc_ack a = {};
		u32 cwnd;

		if (recs[i].kind == 't') {
			abc_on_idle_restart(&w);
			continue;
		}
		/* abc_set_state(): the glue's cwnd, from this window */
		cwnd = min_t(u64, (u64)abc_window_bytes(&w, true), ABC_WIN_MAX);
		if (recs[i].kind == 'r') {
			abc_on_loss(&w, cwnd, MSS, true, state != TCP_CA_RECOVERY);
			state = TCP_CA_LOSS;
			continue;
		}
		if (v[A_STATE] == TCP_CA_RECOVERY && state != TCP_CA_RECOVERY)
			abc_on_loss(&w, cwnd, MSS, false, true);
		state = (int)v[A_STATE];
		if (v[A_ACKED] > 0 && v[A_PRIOR_DLV] >= 0 &&
		    !before((u32)v[A_PRIOR_DLV], next_round)) {
			next_round = (u32)v[A_DELIVERED];
			a.round_start = true;
		}
		a.pkts = (u32)v[A_ACKED];
		a.acked = min_t(u64, (u64)a.pkts * MSS, ABC_WIN_MAX);
		a.mss = MSS;
		a.inflight = min_t(u64, (u64)v[A_PRIOR_INFLIGHT] * MSS,
				   ABC_WIN_MAX);
		a.now_us = (u32)v[A_NOW];
		a.rtt_us = (u32)v[A_SRTT];
		a.ecn = true;
		a.ce = v[A_ECE] ? a.acked : 0;
		a.ce_pkts = v[A_ECE] ? a.pkts : 0;
		a.recovery = state == TCP_CA_RECOVERY;
		sink += cost_abc(&w, &a);
		n++;
	}
	return n;
}

/* ---- pad_shim: pad_main() ---- */

/* gen-acks.py's one-way delay (ONE_WAY_NS) */
#define PAD_ACK_PATH_US	20000

static __cost void cost_pad(struct pad_core *c, const struct pad_params *p,
			    const struct pad_ack *a, struct pad_out *o)
{
	pad_on_ack(c, p, a, o);
}

static size_t run_pad(void)
{
	struct pad_params p = { .k = CC_Q16(1, 250), .w = 16,
				.lift = CC_Q16(2, 0), .rx_clock = true };
	struct pad_core c;
	struct pad_out o;
	size_t i, n = 0;

	pad_reset(&c);
	CALLGRIND_START_INSTRUMENTATION;
	for (i = 0; i < nrecs; i++) {
		const long long *v = recs[i].v;
		struct pad_ack a = { 0 };

		if (recs[i].kind != 'a') {
			if (c.started || recs[i].kind == 'r')
				pad_reset(&c);
			continue;
		}
		a.now_us = (u32)v[A_NOW];
		a.delivered = (u32)v[A_DELIVERED];
		a.acked = (u32)v[A_ACKED];
		a.rs_delivered = v[A_PRIOR_DLV] < 0 ? -1 :
				 (s32)(v[A_DELIVERED] - v[A_PRIOR_DLV]);
		a.snd_interval_us = (u32)v[A_SND_INTERVAL];
		a.interval_us = v[A_INTERVAL] > 0 ? (u32)v[A_INTERVAL] : 0;
		a.srtt_us = (u32)v[A_SRTT];
		a.rtt_us = v[A_RTT] < 0 ? -1 : (s32)v[A_RTT];
		a.app_limited = v[A_APP];
		a.recovery = v[A_STATE] >= TCP_CA_CWR || v[A_LOSSES] > 0;
		/* the receiver's ms clock: the ACK left it a one-way delay ago */
		a.has_tsv = true;
		a.tsv = (u32)((v[A_NOW] - PAD_ACK_PATH_US) / 1000);
		cost_pad(&c, &p, &a, &o);
		sink += o.acked + o.delivered;
		n++;
	}
	return n;
}

/* ---- sch_abc: abc_dequeue() and abc_mark() ---- */

#define ABC_Q	0	/* TC_ABC_Q_ABC */
#define OTHER_Q	1
#define INET_ECN_CE	3

struct abcq {
	struct abc_shaper shaper;
	struct abc_win win;
	struct abc_topk topk[2];
	struct abc_classic classic;
	u64 brakes, period_brakes;
	u32 weight[2];
	struct abc_law law[2];	/* bandwidth set: whole link, ABC share */
	u64 period_start;
	u32 token;
	s32 owed;
	bool last;
	bool estimate;
};

/*
 * abc_dequeue(): shaper, window, top-K; and the classic-ECN lookup of
 * abc_enqueue_one(), one per packet as well
 */
static __cost void cost_sch_abc_dequeue(struct abcq *q, u64 now, u32 qi, u32 len,
					u64 busy_ns, u32 hash)
{
	sink += abc_classic_has(&q->classic, hash);
	sink += abc_shaper_ready(&q->shaper, now);
	abc_shaper_sent(&q->shaper, now, len);
	abc_win_add(&q->win, now, qi, len, busy_ns);
	abc_topk_add(&q->topk[qi], hash, len);
}

/* abc_refresh_laws(): Eq. 1 at the bandwidth, per weight period */
static void sch_abc_laws(struct abcq *q)
{
	u64 bw = q->shaper.rate;

	abc_law_set(&q->law[0], bw, 980000, 133000, 20000);
	abc_law_set(&q->law[1], div_u64(bw * q->weight[ABC_Q], ABC_PPM),
		    980000, 133000, 20000);
}

/* abc_update_weights(), once a period; cap comes from the glue */
static __cost void cost_sch_abc_weights(struct abcq *q, u64 cap)
{
	const struct abc_topk *t[2] = { &q->topk[0], &q->topk[1] };

	abc_maxmin_weights(t, cap, q->weight);
	abc_classic_period(&q->classic, t[0], t[1],
			   q->brakes != q->period_brakes);
	q->period_brakes = q->brakes;
	abc_topk_reset(&q->topk[0], 8);
	abc_topk_reset(&q->topk[1], 8);
	if (!q->estimate)
		sch_abc_laws(q);
}

/*
 * abc_mark(), first half: the ABC queue's rate and Eq. 1, from the laws
 * at a bandwidth (abc_law_rate), in full when estimating (Eq. 1 with
 * abc_estimate_mu).
 */
static __cost u64 cost_sch_abc_rates(struct abcq *q, u64 now, u64 x_ns,
				     u64 *cr_abc)
{
	u64 cr_other, mu;

	*cr_abc = abc_win_rate(&q->win, now, ABC_Q);
	if (!q->estimate)
		return abc_law_rate(&q->law[abc_win_bytes(&q->win, OTHER_Q) != 0],
				    x_ns);
	cr_other = abc_win_rate(&q->win, now, OTHER_Q);
	mu = abc_estimate_mu(abc_win_busy_rate(&q->win), *cr_abc + cr_other);
	if (cr_other)
		mu = div_u64(mu * q->weight[ABC_Q], ABC_PPM);
	return abc_target_rate(mu, 980000, 133000, 20000,
			       div_u64(x_ns, NSEC_PER_USEC));
}

/* abc_mark(), second half: Eq. 2, Alg. 1 */
static __cost bool cost_sch_abc_mark(struct abcq *q, u64 tr, u64 cr_abc,
				     bool ce)
{
	u32 f = abc_accel_frac(tr, cr_abc);

	/* one segment a packet: the recorded packets are not GSO */
	return abc_token_mark_segs(&q->token, &q->owed, &q->last, f, 5 << FP_SHIFT,
				   !ce, 1, 0);
}

static size_t run_sch_abc(bool estimate)
{
	struct abcq q = { .estimate = estimate };
	u64 last_deq = 0;
	bool backlogged = false;
	size_t i, n = 0;

	if (!nrecs)
		return 0;
	/* abc_init(): 20 Mbit/s (or estimate), T = 40 ms, top-8 */
	q.period_start = (u64)recs[0].v[0];
	q.weight[0] = ABC_PPM / 2;
	q.weight[1] = ABC_PPM / 2;
	abc_topk_reset(&q.topk[0], 8);
	abc_topk_reset(&q.topk[1], 8);
	abc_win_init(&q.win, q.period_start, 40 * NSEC_PER_MSEC);
	abc_shaper_set_rate(&q.shaper, estimate ? 0 : 2500000, q.period_start);
	if (!estimate)
		sch_abc_laws(&q);
	CALLGRIND_START_INSTRUMENTATION;
	for (i = 0; i < nrecs; i++) {
		const long long *v = recs[i].v;
		u64 now = (u64)v[0], enq = (u64)v[1], elapsed, cap;
		u64 cr_abc, tr;
		u32 len = (u32)v[2], qi = v[3] ? ABC_Q : OTHER_Q;

		if (recs[i].kind != 'p')
			continue;
		cost_sch_abc_dequeue(&q, now, qi, len,
				     backlogged ? now - last_deq : 0,
				     (u32)v[4]);
		backlogged = v[5];
		last_deq = now;
		elapsed = now - q.period_start;
		if (elapsed >= 100 * NSEC_PER_MSEC) {
			cap = div64_u64(2500000ULL * div64_u64(elapsed,
							       NSEC_PER_USEC),
					USEC_PER_SEC);
			cost_sch_abc_weights(&q, cap);
			q.period_start = now;
		}
		n++;
		if (qi != ABC_Q)
			continue;
		tr = cost_sch_abc_rates(&q, now, now - enq, &cr_abc);
		if (!cost_sch_abc_mark(&q, tr, cr_abc, v[3] == INET_ECN_CE) &&
		    v[3] != INET_ECN_CE)
			q.brakes++;
	}
	return n;
}

static size_t run_sch_abc_bw(void)
{
	return run_sch_abc(false);
}

static size_t run_sch_abc_est(void)
{
	return run_sch_abc(true);
}

static const struct {
	const char *mode;
	size_t (*run)(void);
} modes[] = {
	{ "tcp_etc", run_etc },
	{ "tcp_pcc", run_pcc },
	{ "tcp_abc", run_abc },
	{ "pad_shim", run_pad },
	{ "sch_abc", run_sch_abc_bw },
	{ "sch_abc-estimate", run_sch_abc_est },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	size_t i, n;

	if (argc != 3) {
		fprintf(stderr, "usage: %s MODE FILE\n", argv[0]);
		return 2;
	}
	for (i = 0; modes[i].mode; i++)
		if (!strcmp(argv[1], modes[i].mode))
			break;
	if (!modes[i].mode) {
		fprintf(stderr, "cost: unknown mode %s\n", argv[1]);
		return 2;
	}
	load(argv[2]);
	n = modes[i].run();
	CALLGRIND_STOP_INSTRUMENTATION;
	printf("records %zu (%llx)\n", n, (unsigned long long)sink);
	return 0;
}
