// SPDX-License-Identifier: GPL-2.0
/*
 * ABC: Accel-Brake Control (Goyal et al., NSDI 2020) as a pluggable TCP
 * congestion control named "abc", sender and receiver.
 *
 * Encoding on stock kernels (Documentation/tcp_abc.rst): data leaves
 * ECT; an ABC router (sch_abc) keeps ECT for accelerate and sets CE for
 * brake; the receiving socket echoes every packet's CE state in ECE
 * precisely.  On kernels with AccECN (7.x) the sender asks for it, and
 * where the peer agrees the count of CE packets in the ACKs gives the
 * brakes instead, whatever congestion control the receiver runs.  Where
 * the peer also sends AccECN's byte counters, the sender uses the
 * paper's own encoding (sec. 4.2, parameter ect1): its packets leave
 * ECT(1), a router brakes by writing ECT(0) (sch_abc's "ect1 on") or
 * sets CE, and the brakes are the bytes the peer received as ECT(0) or
 * CE.  The stack writes ECT(0) on every AccECN segment with no hook for
 * a congestion control, so a netfilter hook at LOCAL_OUT of every
 * network namespace rewrites ECT(0) to ECT(1) on this module's own
 * sockets (abc_ect1_out()).
 *
 * Receiver: a one-bit CE state (as DCTCP).  When a packet's CE state
 * differs from the last one, a pending delayed ACK is sent first with
 * the old ECE, then ECE follows the new state and the ACK goes out at
 * once; otherwise ACKs are delayed as usual (one per two packets).
 *
 * Sender: the window arithmetic is in abc_window.h (shared with the unit
 * tests).  Glue:
 *  - cong_control sets cwnd from min(w_abc, w_nonabc) on every ACK, so
 *    the stack's own reductions never apply.  ECE from a brake makes the
 *    stack enter CWR and call .ssthresh, which returns w_nonabc's
 *    threshold unchanged: a brake never cuts anything.  With
 *    cong_control the stack does no PRR and no cwnd = ssthresh at the
 *    end of CWR.
 *  - loss is seen in set_state (Recovery, Loss) rather than in .ssthresh,
 *    because the stack does not call .ssthresh on recovery entered from
 *    CWR, where an ABC sender spends most of its time.  In recovery cwnd
 *    lets at most one packet out per ACK (Reno's rate halving).
 *  - ECE comes from in_ack_event (CA_ACK_ECE): the flag argument of
 *    cong_control is 0 on 6.1 (include/cc_compat.h).  With AccECN the
 *    brakes are the ACK's share of tp->delivered_ce (abc_brakes()).
 *  - no pacing: ABC is ACK-clocked (an accelerate sends two packets, a
 *    brake none), which sch_abc's Eq. 2 assumes.  A pacer that falls
 *    behind (late timers) would also lower in-flight, and with it the
 *    2 x in-flight cap, and so the window, in a downward spiral.  The
 *    stack does not update sk_pacing_rate for a cong_control, so this
 *    module does, once a round, as the stack would for any window-based
 *    CCA (abc_pacing_rate()): TSO sizing and TCP small queues read it, and
 *    fq paces every socket by it.
 *  - w_nonabc is CUBIC (RFC 9438), timed by tcp_mstamp and srtt.
 *  - a peer that did not negotiate ECN gets w_nonabc alone (CUBIC), a
 *    mode keyed on RFC 3168 ECN (cc_ecn_rfc3168()), and Not-ECT packets
 *    (abc_init()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/inet_diag.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <net/dsfield.h>
#include <net/net_namespace.h>
#include <net/tcp.h>
#include <net/inet_ecn.h>

#include "cc_compat.h"
#include "cc_tcp.h"
#include "abc_window.h"

#define CREATE_TRACE_POINTS
#include "abc_trace.h"

static struct tcp_congestion_ops tcp_abc_ops, tcp_abc_noecn_ops;

struct abc_sock {
	struct abc_window win;
	u32 next_round_delivered;	/* tp->delivered that ends this round */
	u32 prior_rcv_nxt;		/* receiver: rcv_nxt at the last packet */
	u32 ce_counted;			/* sender: brakes taken, packets of
					 * tp->delivered_ce or, with ect1,
					 * ECT(0) + CE bytes
					 */
	u8 ce_state;			/* receiver: CE of the last packet */
	u8 ece;				/* sender: ECE on the ACK in progress */
	u8 ect1;			/* sender: ECT(1) encoding (read by
					 * abc_ect1_out())
					 */
};

/*
 * The paper's encoding where the kernel reports AccECN's byte counters
 * and has netfilter: on by default there, refused elsewhere.  Read only:
 * the netfilter hooks it needs are registered at load.
 */
#if CC_HAVE_ACCECN && IS_ENABLED(CONFIG_NETFILTER)
#define ABC_ECT1_AVAILABLE	1
#else
#define ABC_ECT1_AVAILABLE	0
#endif

static bool abc_ect1_on = ABC_ECT1_AVAILABLE;

static int abc_ect1_param_set(const char *val, const struct kernel_param *kp)
{
	bool on;

	if (kstrtobool(val, &on)) {
		pr_err("ect1: not 0 or 1: %s\n", val);
		return -EINVAL;
	}
	if (on && !ABC_ECT1_AVAILABLE) {
		pr_err("ect1=1 needs a kernel with AccECN (7.x) and netfilter; this one has %s\n",
		       CC_HAVE_ACCECN ? "no netfilter" : "no AccECN");
		return -EINVAL;
	}
	*(bool *)kp->arg = on;
	return 0;
}

static const struct kernel_param_ops abc_ect1_param_ops = {
	.set = abc_ect1_param_set,
	.get = param_get_bool,
};

module_param_cb(ect1, &abc_ect1_param_ops, &abc_ect1_on, 0444);
MODULE_PARM_DESC(ect1, "send ECT(1), brakes are ECT(0) or CE (AccECN kernels only; default 1 there)");

/* ACKs carry ABC's feedback: RFC 3168 ECN (ECE) or AccECN (counters). */
static bool abc_ecn_ok(const struct tcp_sock *tp)
{
	return cc_ecn_rfc3168(tp) || cc_ecn_accecn(tp);
}

static u32 abc_mss(const struct tcp_sock *tp)
{
	return max_t(u32, tp->mss_cache, 1);
}

static u32 abc_cwnd_pkts(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct abc_sock *ca = inet_csk_ca(sk);
	u32 mss = abc_mss(tp);
	u32 pkts = abc_window_bytes(&ca->win, abc_ecn_ok(tp)) / mss;

	return clamp_t(u32, pkts, ABC_MIN_PKTS, tp->snd_cwnd_clamp);
}

static void abc_trace(struct sock *sk, int ev, u32 acked, u32 inflight)
{
	const struct abc_sock *ca = inet_csk_ca(sk);

	trace_abc_update(sk, &ca->win, ev, acked, inflight,
			 tcp_snd_cwnd(tcp_sk(sk)));
}

/*
 * Turn the ECT(1) encoding on once the peer's AccECN byte counters are
 * seen, and off if they are found broken.  Only on our own ops: under a
 * wrapper (pad_shim) abc_ect1_out() does not rewrite, and every ECT(0)
 * byte would read as a brake.  Bytes in flight when it turns on went out
 * ECT(0): the count starts past them, so they do not read as brakes.
 */
static void abc_ect1_check(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct abc_sock *ca = inet_csk_ca(sk);
	bool ok = abc_ect1_on && cc_accecn_bytes_ok(tp) &&
		  inet_csk(sk)->icsk_ca_ops == &tcp_abc_ops;

	if (likely(ok == ca->ect1))
		return;
	if (ok)
		ca->ce_counted = cc_accecn_ect0_ce_bytes(tp) +
				 (tp->snd_nxt - tp->snd_una);
	else
		ca->ce_counted = tp->delivered_ce;
	WRITE_ONCE(ca->ect1, ok);
}

/*
 * Runs twice on a passive open: from abc_main() for the ACK of the
 * SYN-ACK, then from tcp_init_transfer(), which starts over from the
 * initial window.  A second run is harmless: the ops move only away from
 * tcp_abc_ops, never from tcp_abc_noecn_ops or a wrapper's ops.
 */
static void abc_init(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct abc_sock *ca = inet_csk_ca(sk);
	u32 mss = abc_mss(tp);

	abc_window_init(&ca->win, tcp_snd_cwnd(tp), mss);
	ca->next_round_delivered = tp->delivered;
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->ce_counted = tp->delivered_ce;
	ca->ce_state = 0;
	ca->ece = 0;
	WRITE_ONCE(ca->ect1, 0);
	abc_ect1_check(sk);

	/*
	 * No ECN with the peer: our packets must not claim ECT, and
	 * tcp_init_congestion_control() sets ECT after .init for a
	 * TCP_CONG_NEEDS_ECN ops.  A socket on our own ops moves to the same
	 * callbacks without that flag, as DCTCP does.  Ops we do not own are
	 * never replaced (pad_shim's wrapper holds pad_shim's module
	 * reference): there abc_noecn_dontxmit() clears ECT before data
	 * leaves.
	 */
	if (!abc_ecn_ok(tp) && sk->sk_state != TCP_LISTEN &&
	    sk->sk_state != TCP_CLOSE) {
		INET_ECN_dontxmit(sk);
		if (inet_csk(sk)->icsk_ca_ops == &tcp_abc_ops)
			inet_csk(sk)->icsk_ca_ops = &tcp_abc_noecn_ops;
	}
}

/*
 * No ECN with the peer, under ops that keep TCP_CONG_NEEDS_ECN: the stack
 * never clears the ECT it set after .init.  Clear it on TX_START, which
 * comes before the first data packet after .init or idle gets its IP
 * header, and on every ACK, which covers a switch with data in flight.
 */
static void abc_noecn_dontxmit(struct sock *sk)
{
	if (unlikely(!abc_ecn_ok(tcp_sk(sk))))
		INET_ECN_dontxmit(sk);
}

/*
 * The brakes among the a->pkts packets this ACK delivers.  RFC 3168 with
 * an ABC receiver: ECE covers all of them or none.  AccECN: the stack
 * has added the CE packets the receiver reports to tp->delivered_ce, or
 * with the ECT(1) encoding the ECT(0) and CE bytes to its byte
 * counters; abc_brake_take() splits the count over the ACKs.
 */
static void abc_brakes(struct sock *sk, struct abc_ack *a, u32 in_flight)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct abc_sock *ca = inet_csk_ca(sk);
	u32 ce;

	if (!cc_ecn_accecn(tp)) {
		if (a->ecn && ca->ece) {
			a->ce = a->acked;
			a->ce_pkts = a->pkts;
		}
		return;
	}
	if (ca->ect1) {
		ce = abc_brake_take(&ca->ce_counted, cc_accecn_ect0_ce_bytes(tp),
				    a->acked, a->inflight);
		a->ce = ce;
		/* Packets for the counters only; a mixed ACK divides. */
		a->ce_pkts = ce == a->acked ? a->pkts :
			     min(DIV_ROUND_UP(ce, a->mss), a->pkts);
		return;
	}
	ce = abc_brake_take(&ca->ce_counted, tp->delivered_ce, a->pkts,
			    in_flight);
	a->ce_pkts = ce;
	a->ce = ce == a->pkts ? a->acked : min_t(u64, (u64)ce * a->mss, a->acked);
}

/*
 * What tcp_update_pacing_rate() sets for a CCA without cong_control:
 * the tcp_pacing_ss_ratio (200 %) or tcp_pacing_ca_ratio (120 %) of
 * cwnd x mss / srtt.  Left alone, sk_pacing_rate keeps the value from the
 * handshake (2 x the initial window over its RTT): GSO packets of two
 * segments and a TSQ limit of two of them, and under fq a hard cap.
 */
static void abc_pacing_rate(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct net *net = sock_net(sk);
	u64 rate = (u64)tp->mss_cache * ((USEC_PER_SEC / 100) << 3);
	u32 cwnd = tcp_snd_cwnd(tp);

	if (!tp->srtt_us)
		return;
	if (cwnd < tp->snd_ssthresh / 2)
		rate *= READ_ONCE(net->ipv4.sysctl_tcp_pacing_ss_ratio);
	else
		rate *= READ_ONCE(net->ipv4.sysctl_tcp_pacing_ca_ratio);
	rate *= max(cwnd, tp->packets_out);
	cc_set_pacing_rate(sk, div_u64(rate, tp->srtt_us));
}

static void abc_main(struct sock *sk, u32 ack, int flag,
		     const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct abc_sock *ca = inet_csk_ca(sk);
	u32 mss = abc_mss(tp);
	u8 state = inet_csk(sk)->icsk_ca_state;
	struct abc_ack a = {};
	enum abc_event ev;
	u32 cwnd;

	/*
	 * A passive open acks its SYN-ACK before .init runs (tcp_ack comes
	 * before tcp_init_transfer): start from the initial window then.
	 */
	if (cc_ca_uninitialised(sk))
		abc_init(sk);
	abc_noecn_dontxmit(sk);
	abc_ect1_check(sk);
	if (rs->acked_sacked > 0 &&
	    !before(rs->prior_delivered, ca->next_round_delivered)) {
		ca->next_round_delivered = tp->delivered;
		a.round_start = true;
	}
	a.pkts = rs->acked_sacked;
	a.acked = min_t(u64, (u64)a.pkts * mss, ABC_WIN_MAX);
	a.mss = mss;
	a.inflight = min_t(u64, (u64)rs->prior_in_flight * mss, ABC_WIN_MAX);
	a.now_us = (u32)tp->tcp_mstamp;
	a.rtt_us = tp->srtt_us >> 3;
	a.ecn = abc_ecn_ok(tp);
	abc_brakes(sk, &a, rs->prior_in_flight);
	a.recovery = state == TCP_CA_Recovery;

	ev = abc_on_ack(&ca->win, &a);

	cwnd = abc_cwnd_pkts(sk);
	/* Rate halving in recovery: one packet out per ACK at most. */
	if (state == TCP_CA_Recovery && a.pkts)
		cwnd = max(cwnd, tcp_packets_in_flight(tp) + 1);
	tcp_snd_cwnd_set(tp, min(cwnd, tp->snd_cwnd_clamp));
	if (a.round_start)
		abc_pacing_rate(sk);

	if (ev != ABC_EV_NONE)
		abc_trace(sk, ev, a.acked, a.inflight);
}

CC_DEFINE_CONG_CONTROL(abc_cong_control, abc_main);

static void abc_in_ack_event(struct sock *sk, u32 flags)
{
	struct abc_sock *ca = inet_csk_ca(sk);

	ca->ece = !!(flags & CA_ACK_ECE);
}

/* Receiver: ECE on our ACKs reflects the CE state ce. */
static void abc_ece_set(struct sock *sk, u8 ce)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (ce)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

/*
 * Receiver, per data packet: echo its CE state precisely.  The stack's
 * ECE stays set from the first CE until the sender's CWR; ABC needs one
 * echo per packet instead.  The delayed ACK pending for earlier packets
 * carries their state, so it goes out first; the state is set again on
 * every packet because a CWR from the sender clears it.  This is DCTCP's
 * CE state machine, dctcp_ece_ack_update() in net/ipv4/tcp_dctcp.h (a
 * header private to net/ipv4, so out of reach of this module).
 */
static void abc_ce_event(struct sock *sk, u8 ce)
{
	struct abc_sock *ca = inet_csk_ca(sk);

	/* AccECN: the stack counts CE in the ACE field; ECE is part of it. */
	if (!cc_ecn_rfc3168(tcp_sk(sk)))
		return;

	if (ca->ce_state != ce) {
		if (inet_csk(sk)->icsk_ack.pending & ICSK_ACK_TIMER) {
			abc_ece_set(sk, ca->ce_state);
			cc_send_ack(sk, ca->prior_rcv_nxt);
		}
		inet_csk(sk)->icsk_ack.pending |= ICSK_ACK_NOW;
	}
	ca->prior_rcv_nxt = tcp_sk(sk)->rcv_nxt;
	ca->ce_state = ce;
	abc_ece_set(sk, ce);
}

static void abc_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct abc_sock *ca = inet_csk_ca(sk);

	switch (ev) {
	case CA_EVENT_ECN_IS_CE:
		abc_ce_event(sk, 1);
		break;
	case CA_EVENT_ECN_NO_CE:
		abc_ce_event(sk, 0);
		break;
	case CA_EVENT_TX_START:
		abc_noecn_dontxmit(sk);
		abc_on_idle_restart(&ca->win);
		break;
	default:
		break;
	}
}

CC_DEFINE_CWND_EVENT_TX_START(abc_cwnd_event_tx_start, abc_cwnd_event);

/*
 * Loss, not ECE: CUBIC's cut of w_nonabc on entering fast recovery, and
 * a restart on RTO (only one cut when the RTO comes during recovery).
 */
static void abc_set_state(struct sock *sk, u8 new_state)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct abc_sock *ca = inet_csk_ca(sk);
	u8 old = inet_csk(sk)->icsk_ca_state;
	u32 mss = abc_mss(tp);
	u32 cwnd = min_t(u64, (u64)tcp_snd_cwnd(tp) * mss, ABC_WIN_MAX);
	enum abc_event ev;

	if (new_state == TCP_CA_Recovery && old != TCP_CA_Recovery)
		ev = abc_on_loss(&ca->win, cwnd, mss, false, true);
	else if (new_state == TCP_CA_Loss && old != TCP_CA_Loss)
		ev = abc_on_loss(&ca->win, cwnd, mss, true,
				 old != TCP_CA_Recovery);
	else
		return;
	tp->snd_ssthresh = max(ca->win.ssthresh / mss, ABC_MIN_PKTS);
	abc_trace(sk, ev, 0, tcp_packets_in_flight(tp) * mss);
}

/*
 * Called on ECE (CWR) as well as on loss: report w_nonabc's threshold as
 * it stands, so that a brake changes nothing.  Loss is handled in
 * abc_set_state(), which the stack calls right after this.
 */
static u32 abc_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct abc_sock *ca = inet_csk_ca(sk);
	u32 mss = abc_mss(tp);

	if (ca->win.ssthresh >= ABC_SSTHRESH_INF)
		return TCP_INFINITE_SSTHRESH;
	return max(ca->win.ssthresh / mss, ABC_MIN_PKTS);
}

static u32 abc_undo_cwnd(struct sock *sk)
{
	struct abc_sock *ca = inet_csk_ca(sk);
	enum abc_event ev = abc_on_undo(&ca->win);

	if (ev != ABC_EV_NONE)
		abc_trace(sk, ev, 0, 0);
	return abc_cwnd_pkts(sk);
}

/*
 * ss -ti prints "dctcp:(ce_state:N,alpha:A,ab_ecn:B,ab_tot:T)" (or
 * "dctcp:fallback_mode" without ECN); see Documentation/tcp_abc.rst:
 *   ce_state  w_nonabc in packets (65535 at most)
 *   alpha     w_abc in packets
 *   ab_ecn    packets acknowledged by brakes
 *   ab_tot    packets acknowledged by accelerates and brakes
 */
static size_t abc_get_info(struct sock *sk, u32 ext, int *attr,
			   union tcp_cc_info *info)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct abc_sock *ca = inet_csk_ca(sk);
	u32 mss = abc_mss(tp);

	if (ext & (1 << (INET_DIAG_DCTCPINFO - 1)) ||
	    ext & (1 << (INET_DIAG_VEGASINFO - 1))) {
		memset(&info->dctcp, 0, sizeof(info->dctcp));
		info->dctcp.dctcp_enabled = abc_ecn_ok(tp);
		info->dctcp.dctcp_ce_state =
			min_t(u32, ca->win.w_nonabc / mss, U16_MAX);
		info->dctcp.dctcp_alpha = ca->win.w_abc / mss;
		info->dctcp.dctcp_ab_ecn = ca->win.brake;
		info->dctcp.dctcp_ab_tot = ca->win.accel + ca->win.brake;
		*attr = INET_DIAG_DCTCPINFO;
		return sizeof(info->dctcp);
	}
	return 0;
}

static struct tcp_congestion_ops tcp_abc_ops __read_mostly = {
	.flags		= TCP_CONG_NEEDS_ECN | CC_CONG_NEEDS_ACCECN |
			  TCP_CONG_NON_RESTRICTED,
	.name		= "abc",
	.owner		= THIS_MODULE,
	.init		= abc_init,
	.cong_control	= abc_cong_control,
	.in_ack_event	= abc_in_ack_event,
	.cwnd_event	= abc_cwnd_event,
	.set_state	= abc_set_state,
	.ssthresh	= abc_ssthresh,
	.undo_cwnd	= abc_undo_cwnd,
	.get_info	= abc_get_info,
};

/*
 * For a peer without ECN, when the socket runs tcp_abc_ops: not
 * registered, same module and callbacks; getsockopt(TCP_CONGESTION) and
 * ss show "abc-noecn".
 */
static struct tcp_congestion_ops tcp_abc_noecn_ops __read_mostly = {
	.name		= "abc-noecn",
	.owner		= THIS_MODULE,
	.init		= abc_init,
	.cong_control	= abc_cong_control,
	.in_ack_event	= abc_in_ack_event,
	.cwnd_event	= abc_cwnd_event,
	.set_state	= abc_set_state,
	.ssthresh	= abc_ssthresh,
	.undo_cwnd	= abc_undo_cwnd,
	.get_info	= abc_get_info,
};

#if IS_ENABLED(CONFIG_NETFILTER)
/*
 * The ECT(1) encoding: our own sockets' ECT(0) packets leave as ECT(1).
 * LOCAL_OUT runs after the IP header and its checksum are built; a GSO
 * packet's segments copy the header.  The control sockets that send
 * resets and time-wait ACKs are raw sockets of protocol TCP, hence the
 * type test before inet_csk().
 */
static unsigned int abc_ect1_out(void *priv, struct sk_buff *skb,
				 const struct nf_hook_state *state)
{
	struct sock *sk = skb->sk;
	unsigned int nhoff = skb_network_offset(skb);

	if (!sk || !sk_fullsock(sk) || sk->sk_type != SOCK_STREAM ||
	    sk->sk_protocol != IPPROTO_TCP ||
	    READ_ONCE(inet_csk(sk)->icsk_ca_ops) != &tcp_abc_ops ||
	    !READ_ONCE(((struct abc_sock *)inet_csk_ca(sk))->ect1))
		return NF_ACCEPT;

	if (state->pf == NFPROTO_IPV4) {
		if ((ipv4_get_dsfield(ip_hdr(skb)) & INET_ECN_MASK) ==
		    INET_ECN_ECT_0 &&
		    !skb_ensure_writable(skb, nhoff + sizeof(struct iphdr)))
			ipv4_change_dsfield(ip_hdr(skb), (u8)~INET_ECN_MASK,
					    INET_ECN_ECT_1);
	} else {
		if ((ipv6_get_dsfield(ipv6_hdr(skb)) & INET_ECN_MASK) ==
		    INET_ECN_ECT_0 &&
		    !skb_ensure_writable(skb, nhoff + sizeof(struct ipv6hdr)))
			ipv6_change_dsfield(ipv6_hdr(skb), (u8)~INET_ECN_MASK,
					    INET_ECN_ECT_1);
	}
	return NF_ACCEPT;
}

static const struct nf_hook_ops abc_nf_ops[] = {
	{
		.hook		= abc_ect1_out,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_LOCAL_OUT,
		.priority	= NF_IP_PRI_LAST,
	},
#if IS_ENABLED(CONFIG_IPV6)
	{
		.hook		= abc_ect1_out,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_LOCAL_OUT,
		.priority	= NF_IP6_PRI_LAST,
	},
#endif
};

static int __net_init abc_net_init(struct net *net)
{
	return nf_register_net_hooks(net, abc_nf_ops, ARRAY_SIZE(abc_nf_ops));
}

static void __net_exit abc_net_exit(struct net *net)
{
	nf_unregister_net_hooks(net, abc_nf_ops, ARRAY_SIZE(abc_nf_ops));
}

static struct pernet_operations abc_net_ops = {
	.init = abc_net_init,
	.exit = abc_net_exit,
};

static int abc_ect1_register(void)
{
	return abc_ect1_on ? register_pernet_subsys(&abc_net_ops) : 0;
}

static void abc_ect1_unregister(void)
{
	if (abc_ect1_on)
		unregister_pernet_subsys(&abc_net_ops);
}
#else
static int abc_ect1_register(void)
{
	return 0;
}

static void abc_ect1_unregister(void)
{
}
#endif

static int __init abc_register(void)
{
	int err;

	BUILD_BUG_ON(sizeof(struct abc_sock) > ICSK_CA_PRIV_SIZE);
	cc_ops_set_tx_start(&tcp_abc_ops, abc_cwnd_event_tx_start);
	cc_ops_set_tx_start(&tcp_abc_noecn_ops, abc_cwnd_event_tx_start);
	err = abc_ect1_register();
	if (err)
		return err;
	err = tcp_register_congestion_control(&tcp_abc_ops);
	if (err)
		abc_ect1_unregister();
	return err;
}

static void __exit abc_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_abc_ops);
	abc_ect1_unregister();
}

module_init(abc_register);
module_exit(abc_unregister);

MODULE_AUTHOR("tcp_abc contributors");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ABC: Accel-Brake Control, sender and precise CE-echo receiver");
