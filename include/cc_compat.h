/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version compatibility for the out-of-tree congestion controls
 * and qdiscs of this tree (Debian's 6.1 and 6.12 kernels).  Every
 * difference between the supported kernels is handled here, so module
 * code has no version tests of its own.
 *
 * Differences are detected by Kbuild from the target kernel's headers,
 * not from LINUX_VERSION_CODE, so stable backports are handled too:
 *   CC_CONG_CONTROL_ACK_FLAG  cong_control takes (sk, ack, flag, rs) (6.10+)
 *   CC_TCP_SEND_ACK_FLAGS     __tcp_send_ack takes (sk, rcv_nxt, flags) (6.12)
 *   CC_HAVE_NET_GSO_H         skb_gso_segment() is in <net/gso.h> (6.4+)
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
