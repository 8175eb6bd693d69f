// SPDX-License-Identifier: GPL-2.0
/*
 * PCC: Performance-oriented Congestion Control, Allegro (Dong et al.,
 * NSDI '15) and Vivace (Dong et al., NSDI '18).
 *
 * The sender runs a stream of monitor intervals (MIs), each at one pacing
 * rate, and scores each by a utility of its measured throughput, loss and
 * delay.  A starting state doubles the rate until the utility falls.  Then
 * Allegro (utility=loss or latency) runs randomised controlled trials at
 * r(1 +- eps) to decide a direction and moves that way faster and faster
 * until the utility falls again; Vivace (utility=vivace, the default)
 * turns each pair of trials into a utility gradient and climbs it.  The
 * control law lives in pcc_core.h; this file feeds it ACKs and turns its
 * rate into pacing and a cwnd cap.
 *
 * ACKs are matched to the MI their packets were sent in by the send time
 * of the newest packet each ACK delivers, which tcp_rate.c leaves in
 * tp->first_tx_mstamp.  Loss and RTO do not shrink cwnd through the
 * stack's rules: utility is PCC's only congestion signal.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <net/tcp.h>

#include "cc_compat.h"
#include "cc_param.h"
#include "cc_tcp.h"
#include "pcc_core.h"

#define CREATE_TRACE_POINTS
#include "pcc_trace.h"

struct pcc {
	struct pcc_ctl ctl;
	struct pcc_mon mon;
};

/* RTT assumed before the first sample */
#define PCC_DEFAULT_RTT_US	(100 * USEC_PER_MSEC)
/* cwnd caps in-flight at this many rate x srtt, and at least this many packets */
#define PCC_CWND_GAIN		2
#define PCC_MIN_CWND		4

/* ---- module parameters ---- */

static struct cc_q16_param pcc_alpha = CC_Q16_PARAM(100, 0, 10, 0, 1000, 0);
static struct cc_q16_param pcc_eps_min = CC_Q16_PARAM(0, 100, 0, 10, 0, 1000);
static struct cc_q16_param pcc_eps_max = CC_Q16_PARAM(0, 500, 0, 10, 0, 5000);
static unsigned int pcc_utility_kind = PCC_UTIL_VIVACE;

static const char * const pcc_utility_names[] = {
	[PCC_UTIL_LOSS] = "loss",
	[PCC_UTIL_LATENCY] = "latency",
	[PCC_UTIL_VIVACE] = "vivace",
};

/*
 * Set by module init once the load-time values passed the pair check;
 * read and written under kernel_param_lock(), as sysfs writes are.
 */
static bool pcc_params_live;

/*
 * eps_min <= eps_max: at load the values come in any order, so module init
 * checks the pair once all are parsed; later a write that breaks it is
 * refused before anything is stored.
 */
static int pcc_eps_set(const char *val, const struct kernel_param *kp)
{
	struct cc_q16_param *q = kp->arg, parsed = *q;
	struct kernel_param parse_kp = *kp;
	u32 lo, hi, ip, f;
	int err;

	/* Parse and range-check into a copy: sockets see only checked values. */
	parse_kp.arg = &parsed;
	err = cc_q16_param_set(val, &parse_kp);
	if (err)
		return err;
	if (pcc_params_live) {
		lo = q == &pcc_eps_min ? parsed.val : pcc_eps_min.val;
		hi = q == &pcc_eps_max ? parsed.val : pcc_eps_max.val;
		if (lo > hi) {
			cc_q16_split(q == &pcc_eps_min ? hi : lo, &ip, &f);
			pr_err("%s: \"%.*s\" refused: eps_min must not exceed eps_max (%s is %u.%04u)\n",
			       kp->name, (int)strcspn(val, "\n"), val,
			       q == &pcc_eps_min ? "eps_max" : "eps_min", ip, f);
			return -EINVAL;
		}
	}
	WRITE_ONCE(q->val, parsed.val);
	return 0;
}

static const struct kernel_param_ops pcc_eps_ops = {
	.set = pcc_eps_set,
	.get = cc_q16_param_get,
};

static int pcc_utility_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(pcc_utility_names, val);

	if (i < 0) {
		pr_err("utility: \"%.*s\" refused: \"vivace\", \"loss\" or \"latency\" expected\n",
		       (int)strcspn(val, "\n"), val);
		return -EINVAL;
	}
	WRITE_ONCE(pcc_utility_kind, i);
	return 0;
}

static int pcc_utility_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%s\n",
			  pcc_utility_names[READ_ONCE(pcc_utility_kind)]);
}

static const struct kernel_param_ops pcc_utility_ops = {
	.set = pcc_utility_set,
	.get = pcc_utility_get,
};

module_param_cb(utility, &pcc_utility_ops, NULL, 0644);
MODULE_PARM_DESC(utility, "utility and control: vivace (PCC Vivace, default), loss (Allegro, sec. 2.2) or latency (Allegro, sec. 2.4)");
module_param_cb(alpha, &cc_q16_param_ops, &pcc_alpha, 0644);
MODULE_PARM_DESC(alpha, "steepness of the loss cut-off sigmoid (10 .. 1000; default 100)");
module_param_cb(eps_min, &pcc_eps_ops, &pcc_eps_min, 0644);
MODULE_PARM_DESC(eps_min, "smallest trial step and adjusting step (0.001 .. 0.1; default 0.01)");
module_param_cb(eps_max, &pcc_eps_ops, &pcc_eps_max, 0644);
MODULE_PARM_DESC(eps_max, "largest trial step, Vivace's trial step (0.001 .. 0.5; default 0.05; >= eps_min)");

static void pcc_read_params(struct pcc_params *p)
{
	p->alpha = READ_ONCE(pcc_alpha.val);
	p->eps_min = READ_ONCE(pcc_eps_min.val);
	p->eps_max = READ_ONCE(pcc_eps_max.val);
	p->utility = READ_ONCE(pcc_utility_kind);
	/* Two writes racing a read may cross; keep the pair ordered. */
	if (p->eps_max < p->eps_min)
		p->eps_max = p->eps_min;
}

/* ---- glue ---- */

static u32 pcc_srtt_us(const struct tcp_sock *tp)
{
	return tp->srtt_us ? max(tp->srtt_us >> 3, 1U) : PCC_DEFAULT_RTT_US;
}

/* bytes/s of @pkts packets per smoothed RTT */
static u32 pcc_pkts_per_rtt(const struct tcp_sock *tp, u32 pkts)
{
	u64 r = div_u64((u64)pkts * tp->mss_cache * USEC_PER_SEC,
			pcc_srtt_us(tp));

	return (u32)min_t(u64, r, PCC_RATE_MAX);
}

/* Rate bounds: two packets per RTT (the paper's start), and what the socket allows. */
static void pcc_bounds(const struct sock *sk, u32 *lo, u32 *hi)
{
	*hi = (u32)min_t(u64, READ_ONCE(sk->sk_max_pacing_rate), PCC_RATE_MAX);
	*lo = min(pcc_pkts_per_rtt(tcp_sk(sk), 2), *hi);
}

/* Pacing at @rate, cwnd at 2 x @rate x srtt or the in-flight cap below it */
static void pcc_apply_rate(struct sock *sk, u32 rate)
{
	struct tcp_sock *tp = tcp_sk(sk);
	const struct pcc *pc = inet_csk_ca(sk);
	u64 cwnd = div_u64((u64)rate * pcc_srtt_us(tp) * PCC_CWND_GAIN,
			   USEC_PER_SEC);
	u32 cap = pcc_cap_cwnd(&pc->ctl, tcp_min_rtt(tp), tp->mss_cache,
			       PCC_MIN_CWND);

	cwnd = div_u64(cwnd, tp->mss_cache);
	if (cap)
		cwnd = min_t(u64, cwnd, cap);
	cwnd = clamp_t(u64, cwnd, PCC_MIN_CWND, tp->snd_cwnd_clamp);
	tcp_snd_cwnd_set(tp, (u32)cwnd);
	cc_set_pacing_rate(sk, rate);
}

/*
 * Start an MI at @now: the next one in turn (also the first after
 * pcc_on_idle_restart()), or the current one re-aligned.
 */
static void pcc_start_mi(struct sock *sk, struct pcc *pc,
			 const struct pcc_params *p, u32 now, bool realign)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 lo, hi, rate, dur, srtt = pcc_srtt_us(tp);
	u8 tag;

	pcc_bounds(sk, &lo, &hi);
	rate = pcc_ctl_next(&pc->ctl, p, lo, hi, &tag);
	dur = pcc_mi_duration(rate, tp->mss_cache, srtt, tp->mdev_us >> 2,
			      get_random_u32());
	if (realign)
		pcc_mon_realign(&pc->mon, now, dur, rate, tag);
	else
		pcc_mon_next(&pc->mon, now, dur, rate, tag, srtt >> 2);
	pcc_apply_rate(sk, rate);
}

/*
 * Also run on the first ACK of a passive open, before .init: .init then
 * runs it again, which is safe, as it rewrites all of the state.
 */
static void pcc_init(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct pcc *pc = inet_csk_ca(sk);
	u32 now = (u32)tp->tcp_mstamp, lo, hi, rate, dur;
	struct pcc_params p;
	u8 tag;

	pcc_read_params(&p);
	pcc_bounds(sk, &lo, &hi);
	/* Start at the initial window per RTT, as TCP's first round does. */
	pcc_ctl_init(&pc->ctl, &p,
		     pcc_clamp_rate(pcc_pkts_per_rtt(tp, tcp_snd_cwnd(tp)),
				    lo, hi));
	rate = pcc_ctl_next(&pc->ctl, &p, lo, hi, &tag);
	dur = pcc_mi_duration(rate, tp->mss_cache, pcc_srtt_us(tp),
			      tp->mdev_us >> 2, get_random_u32());
	pcc_mon_init(&pc->mon, now, dur, rate, tag);

	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	cc_enable_pacing(sk);
	pcc_apply_rate(sk, rate);
}

static void pcc_main(struct sock *sk, u32 ack, int flag,
		     const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct pcc *pc = inet_csk_ca(sk);
	u32 now = (u32)tp->tcp_mstamp;
	struct pcc_params p;
	struct pcc_result r;
	bool cap_moved = false, started = false;

	/* A passive open acks its SYN-ACK before .init has run. */
	if (cc_ca_uninitialised(sk))
		pcc_init(sk);
	pcc_read_params(&p);
	/* delivered since the newest packet acked was sent, over its RTT */
	if (rs->delivered > 0 && rs->rtt_us > 0)
		cap_moved = pcc_ctl_on_delivery(&pc->ctl,
						(u64)rs->delivered * tp->mss_cache,
						(u32)rs->rtt_us,
						rs->is_app_limited);
	/* No ACK for a long time, and no TX_START: never wait for a wrap. */
	if (unlikely(pcc_mon_stale(&pc->mon, now)))
		pcc_on_idle_restart(&pc->ctl, &pc->mon, &p, get_random_u32());
	if (pcc_mon_on_ack(&pc->mon, (u32)tp->first_tx_mstamp,
			   rs->acked_sacked, max(rs->losses, 0),
			   rs->rtt_us > 0 ? (u32)rs->rtt_us : 0,
			   tp->mdev_us >> 2, &r)) {
		s64 u;
		bool moved;

		r.min_rtt_us = tcp_min_rtt(tp);
		u = pcc_mi_utility(&p, &r, tp->mss_cache);
		moved = pcc_ctl_on_result(&pc->ctl, &p, &r, u,
					  pcc_result_congested(&p, &r),
					  get_random_u32());

		trace_pcc_mi(sk, &pc->ctl, &r, u, moved);
		if (moved) {
			pcc_start_mi(sk, pc, &p, now, true);
			started = true;
		}
	}
	if (pcc_mon_due(&pc->mon, now)) {
		pcc_start_mi(sk, pc, &p, now, false);
		started = true;
	}
	if (cap_moved && !started)
		pcc_apply_rate(sk, pc->ctl.rate);
}

CC_DEFINE_CONG_CONTROL(pcc_cong_control, pcc_main);

static void pcc_set_state(struct sock *sk, u8 new_state)
{
	struct pcc *pc = inet_csk_ca(sk);
	struct pcc_params p;
	u32 lo, hi;

	if (new_state != TCP_CA_Loss ||
	    inet_csk(sk)->icsk_ca_state == TCP_CA_Loss)
		return;
	/* RTO: start over from half the last good rate, with a fresh MI. */
	pcc_read_params(&p);
	pcc_bounds(sk, &lo, &hi);
	pcc_on_rto(&pc->ctl, &pc->mon, &p, lo);
	pcc_start_mi(sk, pc, &p, (u32)tcp_sk(sk)->tcp_mstamp, false);
}

/*
 * The time since the last send, at least, in us: lsndtime is in jiffies and
 * not yet updated for this send.  Anything past the longest MI is U32_MAX,
 * so that jiffies_to_usecs() cannot wrap.
 */
static u32 pcc_pause_us(const struct tcp_sock *tp)
{
	u32 j = tcp_jiffies32 - tp->lsndtime;

	if (j > usecs_to_jiffies(PCC_MI_MAX_US))
		return U32_MAX;
	return j ? jiffies_to_usecs(j - 1) : 0;
}

/*
 * First send with nothing in flight: after idle, a zero window or an RTO,
 * at the start, and between the packets of a flow paced slower than its
 * RTT.  After a pause the open MIs measured it; drop them, keep the
 * learned rate and start measuring afresh (pcc_on_idle_restart()).
 */
static void pcc_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct pcc *pc = inet_csk_ca(sk);
	struct pcc_params p;

	if (ev != CA_EVENT_TX_START)
		return;
	if (cc_ca_uninitialised(sk)) {
		pcc_init(sk);
		return;
	}
	if (!pcc_mon_paused(&pc->mon, pcc_pause_us(tcp_sk(sk))))
		return;
	pcc_read_params(&p);
	pcc_on_idle_restart(&pc->ctl, &pc->mon, &p, get_random_u32());
	pcc_start_mi(sk, pc, &p, (u32)tcp_sk(sk)->tcp_mstamp, false);
}

CC_DEFINE_CWND_EVENT_TX_START(pcc_cwnd_event_tx_start, pcc_cwnd_event);

/* The rate, not ssthresh, reacts to congestion: never lower it. */
static u32 pcc_ssthresh(struct sock *sk)
{
	return TCP_INFINITE_SSTHRESH;
}

/* An undo restores the cap that goes with the current rate. */
static u32 pcc_undo_cwnd(struct sock *sk)
{
	const struct pcc *pc = inet_csk_ca(sk);

	pcc_apply_rate(sk, pc->ctl.rate);
	return tcp_snd_cwnd(tcp_sk(sk));
}

/*
 * ss -ti shows "bbr:(bw:rate,mrtt:MI RTT,pacing_gain:g,cwnd_gain:S)":
 * bw is the rate PCC chose, mrtt the average RTT of the last MI, g the
 * current MI's rate over the last accepted one (1 +- eps during trials)
 * and S the state: 1 starting, 2 decision making, 3 rate adjusting.
 */
static size_t pcc_get_info(struct sock *sk, u32 ext, int *attr,
			   union tcp_cc_info *info)
{
	const struct pcc *pc = inet_csk_ca(sk);
	const struct pcc_ctl *c = &pc->ctl;
	u32 trial = c->base ?
		(u32)div_u64((u64)pc->mon.cur.rate << 8, c->base) : 0;

	/* bw: rate; pacing_gain: current MI's rate / base; cwnd_gain: state */
	return cc_bbr_info(ext, attr, info, c->rate, pc->mon.last_rtt_us,
			   trial, (u32)c->state << 8);
}

static struct tcp_congestion_ops tcp_pcc_ops __read_mostly = {
	.flags		= TCP_CONG_NON_RESTRICTED,
	.name		= "pcc",
	.owner		= THIS_MODULE,
	.init		= pcc_init,
	.cong_control	= pcc_cong_control,
	.ssthresh	= pcc_ssthresh,
	.undo_cwnd	= pcc_undo_cwnd,
	.set_state	= pcc_set_state,
	.cwnd_event	= pcc_cwnd_event,
	.get_info	= pcc_get_info,
};

static int __init pcc_register(void)
{
	u32 lo, lo_f, hi, hi_f;
	int err = 0;

	BUILD_BUG_ON(sizeof(struct pcc) > ICSK_CA_PRIV_SIZE);
	/* All load-time parameters are parsed now; a sysfs write may race. */
	kernel_param_lock(THIS_MODULE);
	if (pcc_eps_min.val > pcc_eps_max.val) {
		cc_q16_split(pcc_eps_min.val, &lo, &lo_f);
		cc_q16_split(pcc_eps_max.val, &hi, &hi_f);
		pr_err("eps_min=%u.%04u exceeds eps_max=%u.%04u: load refused\n",
		       lo, lo_f, hi, hi_f);
		err = -EINVAL;
	} else {
		pcc_params_live = true;
	}
	kernel_param_unlock(THIS_MODULE);
	if (err)
		return err;
	cc_ops_set_tx_start(&tcp_pcc_ops, pcc_cwnd_event_tx_start);
	return tcp_register_congestion_control(&tcp_pcc_ops);
}

static void __exit pcc_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_pcc_ops);
}

module_init(pcc_register);
module_exit(pcc_unregister);

MODULE_AUTHOR("tcp_pcc contributors");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("PCC Allegro: utility-driven rate control");
