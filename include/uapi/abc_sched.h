/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Netlink interface of the ABC qdisc (sch_abc) shared by the kernel module
 * and the tc plugin q_abc.so.  Out of tree, so it lives here rather than in
 * <linux/pkt_sched.h>; the attribute numbers are this project's ABI.
 */
#ifndef _UAPI_ABC_SCHED_H
#define _UAPI_ABC_SCHED_H

#include <linux/types.h>

/* TCA_OPTIONS nest of qdisc kind "abc" */
enum {
	TCA_ABC_UNSPEC,
	TCA_ABC_LIMIT,		/* u32: queue limit in packets (both queues) */
	TCA_ABC_BANDWIDTH,	/* u64: link capacity in bytes/s; 0 = estimate
				 * it from the dequeue rate, do not shape
				 */
	TCA_ABC_ETA,		/* u32: target utilisation eta, parts per million */
	TCA_ABC_DELTA,		/* u32: delta of Eq. 1, in microseconds */
	TCA_ABC_DT,		/* u32: delay threshold d_t, in microseconds */
	TCA_ABC_WINDOW,		/* u32: rate measurement window T, in microseconds */
	TCA_ABC_TOKEN_LIMIT,	/* u32: token bucket limit of Alg. 1, in packets */
	TCA_ABC_TOPK,		/* u32: flows tracked per queue for the max-min
				 * weights; 0 = no weighting (ABC and non-ABC
				 * queues served round robin by bytes)
				 */
	TCA_ABC_PAD,
	TCA_ABC_CLASSIC,	/* u32: 1 = find classic-ECN flows (ECT, but
				 * not ABC) and serve them in the other queue,
				 * unmarked; 0 = every ECT flow is ABC
				 */
	TCA_ABC_ECT1,		/* u32: 1 = brake an ECT(1) packet by writing
				 * ECT(0) (the paper's encoding); 0 = by CE.
				 * ECT(0) packets are braked by CE either way
				 */
	TCA_ABC_SPLIT_GSO,	/* u32: TC_ABC_SPLIT_GSO_*; default auto */
	__TCA_ABC_MAX
};

#define TCA_ABC_MAX	(__TCA_ABC_MAX - 1)

/*
 * TCA_ABC_SPLIT_GSO values.  ON splits GSO packets and marks each segment;
 * OFF keeps them whole and marks each as one (limit and qlen then count
 * packets as queued, a GSO packet once); AUTO is OFF when a bandwidth
 * above TC_ABC_SPLIT_GSO_AUTO_RATE is configured, ON otherwise (also when
 * the capacity is estimated).
 */
enum {
	TC_ABC_SPLIT_GSO_OFF,
	TC_ABC_SPLIT_GSO_ON,
	TC_ABC_SPLIT_GSO_AUTO,
	__TC_ABC_SPLIT_GSO_MAX
};

#define TC_ABC_SPLIT_GSO_MAX		(__TC_ABC_SPLIT_GSO_MAX - 1)
/* bytes/s: 1 Gbit/s, where a 64 KB GSO packet lasts half a millisecond */
#define TC_ABC_SPLIT_GSO_AUTO_RATE	125000000ULL

/* Per-queue index in struct tc_abc_xstats */
enum {
	TC_ABC_Q_ABC,		/* ECN-capable (ECT/CE) traffic, marked */
	TC_ABC_Q_OTHER,		/* Not-ECT traffic and classic-ECN flows,
				 * never marked
				 */
	TC_ABC_Q_MAX
};

/* TCA_STATS_APP of qdisc kind "abc" */
struct tc_abc_xstats {
	__u64	accelerates;	/* segments left ECT (accelerate) */
	__u64	brakes;		/* segments set to CE (brake) */
	__u64	target_rate;	/* tr of Eq. 1, bytes/s */
	__u64	capacity;	/* mu: configured or estimated, bytes/s */
	__u64	dequeue_rate;	/* cr, bytes/s over the window */
	__u32	accel_frac;	/* f of Eq. 2, parts per million */
	__u32	qdelay_us;	/* sojourn time of the last dequeued packet */
	__u32	drops;		/* drops at the packet limit (tail, the other
				 * queue's head, or a smaller new limit);
				 * other drops only in the qdisc's qstats
				 */
	__u32	estimating;	/* 1 when mu is estimated (no bandwidth set) */
	__u32	qlen[TC_ABC_Q_MAX];	/* packets queued */
	__u32	weight[TC_ABC_Q_MAX];	/* scheduling weight, parts per million */
	__u64	classic_packets;	/* ECN packets of classic-ECN flows
					 * sent to the other queue (a drop
					 * at the limit included)
					 */
	__u32	classic_found;	/* flows found to be classic ECN */
	__u32	classic_flows;	/* of them, still tracked now */
};

#endif /* _UAPI_ABC_SCHED_H */
