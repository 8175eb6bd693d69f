/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version compatibility for the out-of-tree congestion controls
 * and qdiscs of this tree.  Supported: Debian's 6.1 and 6.12 kernels.
 * Every version test of the tree lives here, so module code stays free
 * of #if LINUX_VERSION_CODE.
 */
#ifndef _CC_COMPAT_H
#define _CC_COMPAT_H

#include <linux/version.h>
#include <linux/module.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/pkt_sched.h>

/*
 * tcp_congestion_ops.cong_control gained (ack, flag) in 6.10.  Define the
 * callback as
 *	static void foo_cong_control(CC_CONG_CONTROL_PARAMS)
 * and, in a wrapper, forward to another CCA's callback with
 *	inner->cong_control(CC_CONG_CONTROL_ARGS);
 * sk and rs are named the same on every kernel.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define CC_CONG_CONTROL_PARAMS \
	struct sock *sk, u32 ack, int flag, const struct rate_sample *rs
#define CC_CONG_CONTROL_ARGS	sk, ack, flag, rs
#else
#define CC_CONG_CONTROL_PARAMS \
	struct sock *sk, const struct rate_sample *rs
#define CC_CONG_CONTROL_ARGS	sk, rs
#endif

/*
 * Ask the stack to pace this socket: with fq as root qdisc it paces
 * already, otherwise TCP's internal pacing timer does.
 */
static inline void cc_enable_pacing(struct sock *sk)
{
	cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED);
}

/* Set the pacing rate in bytes per second, honouring SO_MAX_PACING_RATE. */
static inline void cc_set_pacing_rate(struct sock *sk, u64 rate)
{
	u64 max = READ_ONCE(sk->sk_max_pacing_rate);

	WRITE_ONCE(sk->sk_pacing_rate, min(rate, max));
}

/*
 * Qdisc autoload: 6.1 requests "sch_<kind>" (the module name), 6.9 and
 * later request "net-sch-<kind>" and provide MODULE_ALIAS_NET_SCH.
 */
#ifndef MODULE_ALIAS_NET_SCH
#define MODULE_ALIAS_NET_SCH(kind)	MODULE_ALIAS("net-sch-" kind)
#endif

#endif /* _CC_COMPAT_H */
