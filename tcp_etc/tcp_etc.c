// SPDX-License-Identifier: GPL-2.0
/*
 * ETC: Elastic Transmission Control (Han et al., USENIX ATC 2024) as a
 * pluggable TCP congestion control named "etc".
 *
 * The control law lives in etc_core.h (shared with the unit tests); this
 * file maps it onto the stack:
 *  - micro-bursts: pacing at the average rate s plus .min_tso_segs = N, so
 *    each TSO skb of N segments leaves back to back and the EDT pacer
 *    spaces skbs by N x MSS / s.  No per-packet timer of our own.  N is
 *    the burst parameter, halved by the core while bursts of N overflow
 *    the path's buffer.
 *  - a burst at the ACK side is the TSO skb: every (partial) ACK of it
 *    carries the same rs->last_end_seq, so its first and last ACK times
 *    give the receipt rate (pulling rate), and rs->rtt_us on its first
 *    ACK is the RTT of its first packet.
 *  - rate from cong_control: pacing rate s (eta x s while draining) and a
 *    cwnd cap of 2 x s x min RTT plus two bursts (while detecting, s there
 *    is at most the delivery rate, see etc_cwnd()).
 *  - loss: ssthresh stays infinite and undo keeps cwnd, so the stack's
 *    own reductions do not fight the rate; an RTO halves s once; a round
 *    that loses heavily (rs->losses) decreases s and caps cwnd.
 *  - app-limited samples (rs->is_app_limited) never lower the path
 *    model; sending after idle (CA_EVENT_TX_START) ends a drain or hold.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <net/tcp.h>
#include <linux/inet_diag.h>

#include "cc_compat.h"
#include "cc_param.h"
#include "cc_tcp.h"
#include "etc_core.h"

#define CREATE_TRACE_POINTS
#include "etc_trace.h"

static struct cc_q16_param etc_alpha = CC_Q16_PARAM(4, 0, 1, 5000, 16, 0);

static struct cc_q16_param etc_eta = CC_Q16_PARAM(0, 3000, 0, 500, 0, 9500);
static struct cc_q16_param etc_k = CC_Q16_PARAM(1, 1000, 1, 0, 4, 0);
static struct cc_q16_param etc_grad = CC_Q16_PARAM(0, 1000, 0, 100, 10, 0);

static unsigned int etc_burst = 8;
static unsigned int etc_grad_floor_us = 1000;
static unsigned int etc_window;

#define ETC_BURST_MAX		32
#define ETC_GRAD_FLOOR_MAX_US	100000

static int etc_burst_set(const char *val, const struct kernel_param *kp)
{
	if (param_set_uint_minmax(val, kp, ETC_BURST_MIN, ETC_BURST_MAX)) {
		pr_err("burst: refused: an integer from %u to %u expected\n",
		       ETC_BURST_MIN, ETC_BURST_MAX);
		return -EINVAL;
	}
	return 0;
}

static const struct kernel_param_ops etc_burst_ops = {
	.set = etc_burst_set,
	.get = param_get_uint,
};

static int etc_grad_floor_set(const char *val, const struct kernel_param *kp)
{
	if (param_set_uint_minmax(val, kp, 0, ETC_GRAD_FLOOR_MAX_US)) {
		pr_err("grad_floor_us: refused: an integer from 0 to %u expected\n",
		       ETC_GRAD_FLOOR_MAX_US);
		return -EINVAL;
	}
	return 0;
}

static const struct kernel_param_ops etc_grad_floor_ops = {
	.set = etc_grad_floor_set,
	.get = param_get_uint,
};

static int etc_window_set(const char *val, const struct kernel_param *kp)
{
	if (param_set_uint_minmax(val, kp, 0, 1)) {
		pr_err("window: refused: 0 or 1 expected\n");
		return -EINVAL;
	}
	return 0;
}

static const struct kernel_param_ops etc_window_ops = {
	.set = etc_window_set,
	.get = param_get_uint,
};

module_param_cb(alpha, &cc_q16_param_ops, &etc_alpha, 0644);
MODULE_PARM_DESC(alpha, "log base of the stable stage's rate increase, Eq. 1 (1.5 .. 16, or \"e\"; default 4; detection uses at most e)");
module_param_cb(eta, &cc_q16_param_ops, &etc_eta, 0644);
MODULE_PARM_DESC(eta, "queue drain rate as a fraction of the rate (0.05 .. 0.95; default 0.3)");
module_param_cb(k, &cc_q16_param_ops, &etc_k, 0644);
MODULE_PARM_DESC(k, "stable stage cap of the pulling rate in rounds without a queue, k x r_max (1 .. 4; default 1.1)");
module_param_cb(grad_thresh, &cc_q16_param_ops, &etc_grad, 0644);
MODULE_PARM_DESC(grad_thresh, "RTT gradient that triggers a decrease, as a fraction of the min RTT (0.01 .. 10; default 0.1)");
module_param_cb(grad_floor_us, &etc_grad_floor_ops, &etc_grad_floor_us, 0644);
MODULE_PARM_DESC(grad_floor_us, "least RTT rise in us that triggers a decrease, whatever the min RTT (0 .. 100000; default 1000)");
module_param_cb(burst, &etc_burst_ops, &etc_burst, 0644);
MODULE_PARM_DESC(burst, "packets per micro-burst N, the most (2 .. 32; default 8; halved per socket, down to 2, while bursts overflow a shallow buffer)");
module_param_cb(window, &etc_window_ops, &etc_window, 0644);
MODULE_PARM_DESC(window, "new sockets run the window law (0 or 1; default 0: experimental, see Documentation/tcp_etc.rst)");

static void etc_read_params(struct etc_params *p)
{
	p->alpha = READ_ONCE(etc_alpha.val);
	p->eta = READ_ONCE(etc_eta.val);
	p->k = READ_ONCE(etc_k.val);
	p->grad = READ_ONCE(etc_grad.val);
	p->grad_floor_us = READ_ONCE(etc_grad_floor_us);
	p->burst = READ_ONCE(etc_burst);
}

static void etc_apply(struct sock *sk, const struct etc_core *e,
		      const struct etc_params *p)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 cwnd = etc_cwnd_prev(e, p, tp->mss_cache, tp->srtt_us >> 3,
				 tcp_snd_cwnd(tp));

	cc_set_pacing_rate(sk, etc_pacing_rate(e, p));
	tcp_snd_cwnd_set(tp, min(cwnd, tp->snd_cwnd_clamp));
}

static void etc_start(struct sock *sk, struct etc_fast *f)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct etc_core *e = inet_csk_ca(sk);
	struct etc_params p;

	etc_read_params(&p);
	etc_core_init(e, f, tp->mss_cache, tp->srtt_us >> 3,
		      (u32)tp->tcp_mstamp);
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	cc_enable_pacing(sk);
	cc_set_pacing_rate(sk, etc_pacing_rate(e, &p));
}

/*
 * The window law's state does not fit in icsk_ca_priv.  As tcp_cdg.c
 * does, allocate it here, where a passive open may be in softirq
 * context; without it the socket runs the rate law alone.  The stack
 * zeroes icsk_ca_priv before .init and calls .release on every socket,
 * also one whose .init never ran.
 */
static void etc_init(struct sock *sk)
{
	struct etc_fast *f = NULL;

	if (READ_ONCE(etc_window))
		f = kzalloc(sizeof(*f), GFP_NOWAIT | __GFP_NOWARN);
	etc_start(sk, f);
}

static void etc_release(struct sock *sk)
{
	kfree(etc_core_detach(inet_csk_ca(sk)));
}

static void etc_main(struct sock *sk, u32 ack, int flag,
		     const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct etc_core *e = inet_csk_ca(sk);
	struct etc_params p;
	struct etc_ack a;
	enum etc_event ev;

	/*
	 * A passive open acks its SYN-ACK before .init has run.  .init runs
	 * right after this ACK and starts afresh, as it would have; only it
	 * allocates, so nothing leaks.
	 */
	if (cc_ca_uninitialised(sk))
		etc_start(sk, NULL);
	etc_read_params(&p);
	a.now_us = (u32)tp->tcp_mstamp;
	a.burst_id = rs->last_end_seq;
	a.delivered = tp->delivered;
	a.prior_delivered = rs->prior_delivered;
	a.rtt_us = rs->rtt_us > 0 ? (u32)rs->rtt_us : 0;
	a.lost = rs->losses > 0 ? (u32)rs->losses : 0;
	a.inflight = (u64)tcp_packets_in_flight(tp) * tp->mss_cache;
	a.mss = tp->mss_cache;
	/* Retransmissions are ambiguous for both burst timing and RTT. */
	a.valid = rs->delivered > 0 && rs->acked_sacked && !rs->is_retrans;
	a.app_limited = rs->is_app_limited;
	a.cwnd_limited = tp->is_cwnd_limited;

	ev = etc_on_ack(e, &p, &a);
	etc_apply(sk, e, &p);
	if (ev != ETC_EV_NONE)
		trace_etc_update(sk, e, ev);
}

CC_DEFINE_CONG_CONTROL(etc_cong_control, etc_main);

static void etc_set_state(struct sock *sk, u8 new_state)
{
	struct etc_core *e = inet_csk_ca(sk);

	if (new_state == TCP_CA_Loss &&
	    inet_csk(sk)->icsk_ca_state != TCP_CA_Loss) {
		struct etc_params p;

		etc_read_params(&p);
		etc_on_rto(e, &p, tcp_sk(sk)->mss_cache);
		cc_set_pacing_rate(sk, etc_pacing_rate(e, &p));
		trace_etc_update(sk, e, ETC_EV_RTO);
	}
}

/*
 * The stack sends with nothing in flight.  That is a restart after idle
 * when the application ran out of data (tcp_bbr.c's test) or at an
 * RTO's retransmission; a pacing gap longer than the RTT is not.  Not
 * before .init (see etc_main()).
 */
static void etc_cwnd_event(struct sock *sk, enum tcp_ca_event event)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct etc_core *e = inet_csk_ca(sk);
	struct etc_params p;
	enum etc_event ev;

	if (event != CA_EVENT_TX_START || cc_ca_uninitialised(sk))
		return;
	if (!tp->app_limited && inet_csk(sk)->icsk_ca_state != TCP_CA_Loss)
		return;
	ev = etc_on_restart(e, (u32)tp->tcp_mstamp);
	if (ev == ETC_EV_NONE)
		return;
	etc_read_params(&p);
	cc_set_pacing_rate(sk, etc_pacing_rate(e, &p));
	trace_etc_update(sk, e, ev);
}

CC_DEFINE_CWND_EVENT_TX_START(etc_cwnd_event_tx_start, etc_cwnd_event);

/* The rate, not ssthresh, reacts to congestion: never lower it. */
static u32 etc_ssthresh(struct sock *sk)
{
	return TCP_INFINITE_SSTHRESH;
}

/* cwnd is recomputed from the rate on every ACK; nothing to restore. */
static u32 etc_undo_cwnd(struct sock *sk)
{
	return tcp_snd_cwnd(tcp_sk(sk));
}

/*
 * TSO skbs of at least N segments are the micro-bursts: the burst
 * parameter, or less where the path lost bursts of that size
 * (etc_burst_size()).
 */
static u32 etc_min_tso_segs(struct sock *sk)
{
	struct etc_params p = { .burst = READ_ONCE(etc_burst) };

	return etc_burst_size(inet_csk_ca(sk), &p);
}

/*
 * ss -ti shows "bbr:(bw:Rp,mrtt:min RTT,pacing_gain:s/Rp,cwnd_gain:r/Rp)";
 * the rate s itself is ss's pacing_rate.
 */
static size_t etc_get_info(struct sock *sk, u32 ext, int *attr,
			   union tcp_cc_info *info)
{
	const struct etc_core *e = inet_csk_ca(sk);
	u64 rp = etc_rp(e), sg = 0, rg = 0;

	/* gains: s / Rp and r / Rp, 256 = 1 */
	if (rp) {
		sg = div64_u64(e->rate << 8, rp);
		rg = div64_u64(e->rcv << 8, rp);
	}
	return cc_bbr_info(ext, attr, info, rp,
			   e->min_rtt_us == ETC_NO_RTT ? 0 : e->min_rtt_us,
			   (u32)min_t(u64, sg, U32_MAX),
			   (u32)min_t(u64, rg, U32_MAX));
}

static struct tcp_congestion_ops tcp_etc_ops __read_mostly = {
	.flags		= TCP_CONG_NON_RESTRICTED,
	.name		= "etc",
	.owner		= THIS_MODULE,
	.init		= etc_init,
	.release	= etc_release,
	.cong_control	= etc_cong_control,
	.ssthresh	= etc_ssthresh,
	.undo_cwnd	= etc_undo_cwnd,
	.set_state	= etc_set_state,
	.cwnd_event	= etc_cwnd_event,
	.min_tso_segs	= etc_min_tso_segs,
	.get_info	= etc_get_info,
};

static int __init etc_register(void)
{
	BUILD_BUG_ON(sizeof(struct etc_core) > ICSK_CA_PRIV_SIZE);
	cc_ops_set_tx_start(&tcp_etc_ops, etc_cwnd_event_tx_start);
	return tcp_register_congestion_control(&tcp_etc_ops);
}

static void __exit etc_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_etc_ops);
}

module_init(etc_register);
module_exit(etc_unregister);

MODULE_AUTHOR("tcp_etc contributors");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ETC: Elastic Transmission Control (pulling-rate congestion control)");
