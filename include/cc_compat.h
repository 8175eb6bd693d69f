/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version compatibility for the out-of-tree congestion controls
 * and qdiscs of this tree (Debian's 6.1 and 6.12 kernels; 7.2 builds,
 * Documentation/tcp_abc.rst).  Every
 * difference between the supported kernels is handled here, so module
 * code has no version tests of its own.
 *
 * Differences are detected by Kbuild from the target kernel's headers,
 * not from LINUX_VERSION_CODE, so stable backports are handled too:
 *   CC_CONG_CONTROL_ACK_FLAG  cong_control takes (sk, ack, flag, rs) (6.10+)
 *   CC_TCP_SEND_ACK_FLAGS     __tcp_send_ack takes (sk, rcv_nxt, flags) (6.12)
 *   CC_HAVE_NET_GSO_H         skb_gso_segment() is in <net/gso.h> (6.4+)
 *   CC_CWND_EVENT_TX_START    CA_EVENT_TX_START goes to its own op (7.x)
 */
#ifndef _CC_COMPAT_H
#define _CC_COMPAT_H

#include <linux/module.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/pkt_sched.h>
/* skb_gso_segment() moved from <linux/netdevice.h> to <net/gso.h> in 6.4 */
#ifdef CC_HAVE_NET_GSO_H
#include <net/gso.h>
#endif

/*
 * A module writes its cong_control in the long form,
 *	static void foo_main(struct sock *sk, u32 ack, int flag,
 *			     const struct rate_sample *rs);
 * and defines the callback it registers with
 *	CC_DEFINE_CONG_CONTROL(foo_cong_control, foo_main);
 * On kernels without (ack, flag) both are passed as 0: read ECE from
 * in_ack_event (CA_ACK_ECE) instead, which every kernel provides.
 */
#ifdef CC_CONG_CONTROL_ACK_FLAG
#define CC_DEFINE_CONG_CONTROL(name, fn)				\
static void name(struct sock *sk, u32 ack, int flag,			\
		 const struct rate_sample *rs)				\
{									\
	fn(sk, ack, flag, rs);						\
}
#else
#define CC_DEFINE_CONG_CONTROL(name, fn)				\
static void name(struct sock *sk, const struct rate_sample *rs)	\
{									\
	fn(sk, 0, 0, rs);						\
}
#endif

/* Call another congestion control's cong_control (wrappers such as PAD). */
static inline void cc_call_cong_control(const struct tcp_congestion_ops *ops,
					struct sock *sk, u32 ack, int flag,
					const struct rate_sample *rs)
{
#ifdef CC_CONG_CONTROL_ACK_FLAG
	ops->cong_control(sk, ack, flag, rs);
#else
	ops->cong_control(sk, rs);
#endif
}

/*
 * Send an ACK for rcv_nxt now, with the socket's current ECN flags (a
 * receiver that echoes CE precisely flushes a delayed ACK this way).
 */
static inline void cc_send_ack(struct sock *sk, u32 rcv_nxt)
{
#ifdef CC_TCP_SEND_ACK_FLAGS
	__tcp_send_ack(sk, rcv_nxt, 0);
#else
	__tcp_send_ack(sk, rcv_nxt);
#endif
}

/*
 * CA_EVENT_TX_START: kernels with the cwnd_event_tx_start op (7.x) pass
 * it there instead of to cwnd_event.  A module handles every event in
 * its cwnd_event, defines the op with
 *	CC_DEFINE_CWND_EVENT_TX_START(foo_cwnd_event_tx_start, foo_cwnd_event);
 * and sets it with cc_ops_set_tx_start() before registering.  The op
 * calls the module's own function, never the socket's ops: under a
 * wrapper such as pad_shim those are the wrapper's, which calls this op.
 */
#define CC_DEFINE_CWND_EVENT_TX_START(name, cwnd_event)		\
static void name(struct sock *sk)					\
{									\
	cwnd_event(sk, CA_EVENT_TX_START);				\
}

static inline void cc_ops_set_tx_start(struct tcp_congestion_ops *ops,
				       void (*fn)(struct sock *sk))
{
#ifdef CC_CWND_EVENT_TX_START
	ops->cwnd_event_tx_start = fn;
#endif
}

/* Pass an event to another congestion control as tcp_ca_event() would. */
static inline void cc_call_cwnd_event(const struct tcp_congestion_ops *ops,
				      struct sock *sk, enum tcp_ca_event ev)
{
#ifdef CC_CWND_EVENT_TX_START
	if (ev == CA_EVENT_TX_START) {
		if (ops->cwnd_event_tx_start)
			ops->cwnd_event_tx_start(sk);
		return;
	}
#endif
	if (ops->cwnd_event)
		ops->cwnd_event(sk, ev);
}

/*
 * The connection runs RFC 3168 ECN.  7.x replaced TCP_ECN_OK with ECN
 * modes, one of which is Accurate ECN (AccECN), whose ECE bit is part of a
 * counter and means nothing on its own.
 */
static inline bool cc_ecn_rfc3168(const struct tcp_sock *tp)
{
#ifdef TCP_ECN_OK
	return tp->ecn_flags & TCP_ECN_OK;
#else
	return tcp_ecn_mode_rfc3168(tp);
#endif
}

/* The connection runs AccECN (7.x): per-ACK counts of CE packets. */
static inline bool cc_ecn_accecn(const struct tcp_sock *tp)
{
#ifdef TCP_ECN_MODE_ACCECN
	return tcp_ecn_mode_accecn(tp);
#else
	return false;
#endif
}

/*
 * AccECN's byte counters (7.x): the peer's AccECN option has been seen
 * and not found broken, so tp->delivered_ecn_bytes[] counts the payload
 * bytes it received as ECT(1), ECT(0) and CE.
 */
#ifdef TCP_ECN_MODE_ACCECN
#define CC_HAVE_ACCECN	1
#include <net/tcp_ecn.h>
#else
#define CC_HAVE_ACCECN	0
#endif

static inline bool cc_accecn_bytes_ok(const struct tcp_sock *tp)
{
#if CC_HAVE_ACCECN
	return tcp_ecn_mode_accecn(tp) &&
	       tp->saw_accecn_opt == TCP_ACCECN_OPT_COUNTER_SEEN &&
	       !tcp_accecn_opt_fail_recv(tp);
#else
	return false;
#endif
}

/* Bytes the peer received as ECT(0) or CE (0 without AccECN). */
static inline u32 cc_accecn_ect0_ce_bytes(const struct tcp_sock *tp)
{
#if CC_HAVE_ACCECN
	return tp->delivered_ecn_bytes[INET_ECN_ECT_0 - 1] +
	       tp->delivered_ecn_bytes[INET_ECN_CE - 1];
#else
	return 0;
#endif
}

/* Ask for AccECN where the kernel has it (falls back to RFC 3168 ECN). */
#ifdef TCP_CONG_NEEDS_ACCECN
#define CC_CONG_NEEDS_ACCECN	TCP_CONG_NEEDS_ACCECN
#else
#define CC_CONG_NEEDS_ACCECN	0
#endif

/*
 * A BPF struct_ops congestion control (bpf_struct_ops, 5.6+) has this
 * owner: it can go away without a module reference.  Kernels without
 * BPF_MODULE_OWNER have no other owner than a module.
 */
static inline bool cc_ops_owned_by_bpf(const struct tcp_congestion_ops *ops)
{
#ifdef BPF_MODULE_OWNER
	return ops->owner == BPF_MODULE_OWNER;
#else
	return false;
#endif
}

/*
 * Qdisc autoload: 6.1 requests "sch_<kind>" (the module name), 6.9 and
 * later request "net-sch-<kind>" and provide MODULE_ALIAS_NET_SCH.
 */
#ifndef MODULE_ALIAS_NET_SCH
#define MODULE_ALIAS_NET_SCH(kind)	MODULE_ALIAS("net-sch-" kind)
#endif

#endif /* _CC_COMPAT_H */
