// SPDX-License-Identifier: GPL-2.0
/*
 * sch_abc: the router side of ABC (Goyal et al., NSDI 2020), qdisc "abc".
 *
 * Every ECN-capable packet leaves as accelerate (its ECT codepoint kept)
 * or brake (CE; with "ect1 on" an ECT(1) packet's brake is ECT(0), the
 * paper's encoding), so that the senders' rate follows the target rate
 * of Eq. 1.  The arithmetic is in abc_mark.h (shared with the unit test);
 * this file is the qdisc around it:
 *  - two FIFOs, ABC (ECT or CE at enqueue) and other (Not-ECT, and the
 *    flows found to be classic ECN), served by byte-weighted fair queuing
 *    with weights from max-min fair allocation over each queue's top-K
 *    flows (sec. 4.3);
 *  - marking at dequeue: x is the sojourn time of the dequeued packet, cr
 *    the ABC queue's dequeue rate and mu the ABC queue's share of the link
 *    over the sliding window T;
 *  - with a bandwidth the qdisc is the bottleneck (time-based departures
 *    and a watchdog); without one, mu is estimated from the rate at which
 *    the qdisc is drained while backlogged (under a NIC or a parent shaper).
 * Parameters and statistics: include/uapi/abc_sched.h and
 * Documentation/sch_abc.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/skbuff.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/time64.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/inet_ecn.h>
#include <net/dsfield.h>

#include "cc_compat.h"
#include "uapi/abc_sched.h"
#include "abc_mark.h"

/* Defaults (paper sec. 3.1.2, 5.1 and 7.2); ranges are in abc_policy. */
#define ABC_DEF_LIMIT		1000		/* packets */
#define ABC_DEF_ETA		980000		/* ppm: 0.98, sec. 7.2 */
#define ABC_DEF_DELTA_US	(133 * USEC_PER_MSEC)	/* sec. 3.1.4, 7.2 */
#define ABC_DEF_DT_US		(20 * USEC_PER_MSEC)	/* sec. 7.3 */
#define ABC_DEF_WINDOW_US	(40 * USEC_PER_MSEC)	/* T, sec. 5.1 */
#define ABC_DEF_TOKEN_LIMIT	5		/* packets */
#define ABC_DEF_TOPK		8
/*
 * How late the watchdog may wake the shaper.  abc_shaper_sent() catches
 * lateness up, so this costs no rate and only trades a burst of at most
 * 1 ms at line rate for fewer wake-ups: one per packet at 8.3 kpkt/s
 * (100 Mbit/s) cost more CPU than the rest of the qdisc.
 */
#define ABC_WAKE_SLACK_NS	(1ULL * NSEC_PER_MSEC)

#define ABC_LIMIT_MAX		1000000		/* packets */
#define ABC_RATE_MIN		1000ULL		/* 8 kbit/s */
#define ABC_ETA_MIN		100000		/* ppm: 0.1 */
#define ABC_TOKEN_LIMIT_MIN	2		/* Alg. 1 needs token > 1 */
#define ABC_TOKEN_LIMIT_MAX	1000
/* a full-sized Ethernet frame, for mu in packets (abc_set_run()) */
#define ABC_RUN_WIRE_BYTES	1514

/* How often the queue weights are recomputed from the top-K tables. */
#define ABC_WEIGHT_PERIOD_NS	(100 * NSEC_PER_MSEC)

struct abc_skb_cb {
	u64 enqueue_ns;
	u32 hash;
	u8 ecn;
};

struct abc_params {
	u32 limit;
	u64 bandwidth;		/* bytes/s, 0 = estimate */
	u32 eta;		/* ppm */
	u32 delta_us;
	u32 dt_us;
	u32 window_us;
	u32 token_limit;	/* packets */
	u32 topk;
	u32 classic;		/* find classic-ECN flows (needs topk) */
	u32 ect1;		/* brake ECT(1) by ECT(0), not CE */
	u32 split_gso;		/* TC_ABC_SPLIT_GSO_*, abc_split_gso() */
};

struct abc_sched_data {
	struct abc_params p;
	struct qdisc_skb_head qs[TC_ABC_Q_MAX];
	struct qdisc_watchdog watchdog;

	struct abc_shaper shaper;	/* rate is p.bandwidth */
	/* Eq. 1 at p.bandwidth: for the whole link and the ABC queue's share */
	struct abc_law law[2];

	/* weighted fair queuing between the two queues */
	u64 vtime[TC_ABC_Q_MAX];
	u64 vcost[TC_ABC_Q_MAX];	/* ABC_PPM / weight, Q16 */
	u32 weight[TC_ABC_Q_MAX];	/* ppm */
	u64 period_start;
	struct abc_topk topk[TC_ABC_Q_MAX];
	struct abc_classic classic;
	u64 period_brakes;	/* q->brakes when the period started */

	/* Alg. 1 and the rates behind Eq. 1-2 */
	struct abc_win win;
	u64 last_deq_ns;
	bool backlogged;	/* the last dequeue left packets queued */
	u32 token;		/* Q16 */
	s32 owed;		/* segments, abc_token_mark_segs() */
	bool last_accel;	/* the last mark, abc_token_mark_segs() */
	u32 run_segs;		/* its run, abc_set_run() */
	bool split;		/* split GSO packets, abc_split_gso() */

	/* statistics (struct tc_abc_xstats) */
	u64 accelerates;
	u64 brakes;
	u64 target_rate;
	u64 capacity;
	u64 dequeue_rate;
	u32 accel_frac;		/* Q16 */
	u64 qdelay_ns;
	u32 drop_overlimit;	/* drops because the limit was reached */
	u64 classic_packets;	/* ECN packets of classic flows sent to other */
};

static struct abc_skb_cb *abc_cb(const struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct abc_skb_cb));
	return (struct abc_skb_cb *)qdisc_skb_cb(skb)->data;
}

/*
 * ECN field of an IPv4/IPv6 packet (INET_ECN_NOT_ECT for anything else).
 * An ECT packet is one this qdisc may have to set CE on at dequeue: its IP
 * header is made linear and private now, so that marking can never fail
 * (or write into a clone) later.  Returns -ENOMEM if that fails.
 */
static int abc_classify(struct sk_buff *skb)
{
	unsigned int nhoff = skb_network_offset(skb), hlen;
	u8 ecn;

	switch (skb_protocol(skb, true)) {
	case htons(ETH_P_IP):
		hlen = sizeof(struct iphdr);
		if (!pskb_may_pull(skb, nhoff + hlen))
			return INET_ECN_NOT_ECT;
		ecn = ipv4_get_dsfield(ip_hdr(skb)) & INET_ECN_MASK;
		break;
	case htons(ETH_P_IPV6):
		hlen = sizeof(struct ipv6hdr);
		if (!pskb_may_pull(skb, nhoff + hlen))
			return INET_ECN_NOT_ECT;
		ecn = ipv6_get_dsfield(ipv6_hdr(skb)) & INET_ECN_MASK;
		break;
	default:
		return INET_ECN_NOT_ECT;
	}
	if (ecn == INET_ECN_ECT_0 || ecn == INET_ECN_ECT_1) {
		if (skb_ensure_writable(skb, nhoff + hlen))
			return -ENOMEM;
	}
	return ecn;
}

/* The paper's brake (sec. 4.2): ECT(1) becomes ECT(0). */
static void abc_set_ect0(struct sk_buff *skb)
{
	switch (skb_protocol(skb, true)) {
	case htons(ETH_P_IP):
		ipv4_change_dsfield(ip_hdr(skb), (u8)~INET_ECN_MASK,
				    INET_ECN_ECT_0);
		break;
	case htons(ETH_P_IPV6):
		ipv6_change_dsfield(ipv6_hdr(skb), (u8)~INET_ECN_MASK,
				    INET_ECN_ECT_0);
		break;
	}
}

static bool abc_empty(const struct abc_sched_data *q)
{
	return !q->qs[TC_ABC_Q_ABC].qlen && !q->qs[TC_ABC_Q_OTHER].qlen;
}

static int abc_enqueue_one(struct sk_buff *skb, struct Qdisc *sch,
			   struct sk_buff **to_free, u64 now)
{
	struct abc_sched_data *q = qdisc_priv(sch);
	struct abc_skb_cb *cb;
	int ecn, qi;
	bool full;
	u32 hash;

	ecn = abc_classify(skb);
	if (unlikely(ecn < 0))
		return qdisc_drop(skb, sch, to_free);
	hash = q->p.topk ? skb_get_hash(skb) : 0;
	qi = ecn == INET_ECN_NOT_ECT ? TC_ABC_Q_OTHER : TC_ABC_Q_ABC;
	if (qi == TC_ABC_Q_ABC && abc_classic_has(&q->classic, hash)) {
		qi = TC_ABC_Q_OTHER;
		q->classic_packets++;
	}

	/*
	 * Full: the longer queue pays, so that a flow filling the buffer
	 * (CUBIC, or unresponsive Not-ECT traffic) cannot take the ABC
	 * queue's room: tail drop if this packet's queue is the longer one,
	 * else the other queue's head goes (below, once this packet is in).
	 */
	full = sch->q.qlen >= q->p.limit;
	if (unlikely(full && q->qs[!qi].qlen <= q->qs[qi].qlen)) {
		q->drop_overlimit++;
		return qdisc_drop(skb, sch, to_free);
	}

	cb = abc_cb(skb);
	cb->enqueue_ns = now;
	cb->ecn = ecn;
	cb->hash = hash;

	/* A queue back from idle competes from now on, not with old credit. */
	if (!q->qs[qi].qlen) {
		u64 other = q->vtime[!qi];

		if (q->qs[!qi].qlen && (s64)(other - q->vtime[qi]) > 0)
			q->vtime[qi] = other;
	}
	if (abc_empty(q))
		abc_shaper_wake(&q->shaper, now);

	__qdisc_enqueue_tail(skb, &q->qs[qi]);
	qdisc_qstats_backlog_inc(sch, skb);
	sch->q.qlen++;

	if (unlikely(full)) {
		struct sk_buff *old = __qdisc_dequeue_head(&q->qs[!qi]);
		unsigned int olen = qdisc_pkt_len(old);

		sch->q.qlen--;
		qdisc_qstats_backlog_dec(sch, old);
		q->drop_overlimit++;
		qdisc_drop(old, sch, to_free);
		/* The parents counted it; qlen stays > 0, no class goes idle. */
		qdisc_tree_reduce_backlog(sch, 1, olen);
	}
	return NET_XMIT_SUCCESS;
}

/* Segments of a packet as the marking sees it: 1 unless kept whole. */
static u32 abc_segs(const struct sk_buff *skb)
{
	return skb_is_gso(skb) ? max_t(u32, skb_shinfo(skb)->gso_segs, 1) : 1;
}

/*
 * Below 1 Gbit/s GSO packets are split here by default: marking is per
 * packet (Alg. 1 counts packets, a CE on a super-packet brakes all its
 * segments) and the shaper spaces packets, not bursts.  Above it, or with
 * split_gso off, they stay whole (up to ABC_GSO_SEGS_MAX segments),
 * marked as one by abc_token_mark_segs(): a burst of up to 64 KB at the
 * shaper's rate, for far less work per byte here and at the receiver,
 * whose GRO cannot merge segments that alternate between accelerate and
 * brake.
 */
static int abc_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		       struct sk_buff **to_free)
{
	struct abc_sched_data *q = qdisc_priv(sch);
	unsigned int prev_len = qdisc_pkt_len(skb), len = 0;
	struct sk_buff *segs, *nskb;
	u64 now = ktime_get_ns();
	int nb = 0, ret;

	if (!skb_is_gso(skb) ||
	    (!q->split && abc_segs(skb) <= ABC_GSO_SEGS_MAX))
		return abc_enqueue_one(skb, sch, to_free, now);

	segs = skb_gso_segment(skb, netif_skb_features(skb) & ~NETIF_F_GSO_MASK);
	if (IS_ERR_OR_NULL(segs))
		return qdisc_drop(skb, sch, to_free);
	skb_list_walk_safe(segs, segs, nskb) {
		unsigned int slen;

		skb_mark_not_on_list(segs);
		qdisc_skb_cb(segs)->pkt_len = segs->len;
		slen = segs->len;
		ret = abc_enqueue_one(segs, sch, to_free, now);
		if (ret == NET_XMIT_SUCCESS) {
			nb++;
			len += slen;
		}
	}
	/* Parents counted one packet of prev_len bytes. */
	if (nb > 0)
		qdisc_tree_reduce_backlog(sch, 1 - nb, prev_len - len);
	consume_skb(skb);
	return nb > 0 ? NET_XMIT_SUCCESS : NET_XMIT_DROP;
}

/*
 * With GSO packets kept whole, marks come in runs of about 1 ms of the
 * link at f = 1/2 (abc_token_mark_segs(), a run of a quarter of that):
 * alternating marks would keep the receiver's GRO from merging a flow's
 * packets, and the sender, clocked by an ACK per packet, from building
 * GSO packets of more than two segments.
 */
static void abc_set_run(struct abc_sched_data *q, u64 mu)
{
	u64 run = div_u64(mu, 4 * ABC_RUN_WIRE_BYTES * MSEC_PER_SEC);

	q->run_segs = q->split ? 0 : (u32)min_t(u64, run, ABC_RUN_SEGS_MAX);
}

/*
 * Eq. 1 at the configured bandwidth depends on the parameters and the
 * weights only: computed when they change, not per packet.
 */
static void abc_refresh_laws(struct abc_sched_data *q)
{
	u64 bw = q->p.bandwidth;

	abc_law_set(&q->law[0], bw, q->p.eta, q->p.delta_us, q->p.dt_us);
	abc_law_set(&q->law[1], div_u64(bw * q->weight[TC_ABC_Q_ABC], ABC_PPM),
		    q->p.eta, q->p.delta_us, q->p.dt_us);
	q->split = abc_split_gso(q->p.split_gso, bw);
	abc_set_run(q, bw ? bw : q->capacity);
}

/*
 * Start a weight period at @now with weights @w (ppm) and empty top-K
 * tables.  A queue's virtual time advances by len * vcost, vcost being
 * ABC_PPM / weight in Q16 (the division is done here, not per packet).
 */
static void abc_new_period(struct abc_sched_data *q, const u32 w[TC_ABC_Q_MAX],
			   u64 now)
{
	u32 qi;

	for (qi = 0; qi < TC_ABC_Q_MAX; qi++) {
		q->weight[qi] = w[qi];
		q->vcost[qi] = fp_div(ABC_PPM, w[qi]);
		abc_topk_reset(&q->topk[qi], q->p.topk);
	}
	q->period_start = now;
	abc_refresh_laws(q);
}

static const u32 abc_even_weights[TC_ABC_Q_MAX] = { ABC_PPM / 2, ABC_PPM / 2 };

/* Recompute the queue weights once per period (sec. 4.3). */
static void abc_update_weights(struct abc_sched_data *q, u64 now)
{
	const struct abc_topk *t[TC_ABC_Q_MAX] = {
		[TC_ABC_Q_ABC] = &q->topk[TC_ABC_Q_ABC],
		[TC_ABC_Q_OTHER] = &q->topk[TC_ABC_Q_OTHER],
	};
	u64 elapsed = now - q->period_start, mu, cap;
	u32 w[TC_ABC_Q_MAX];

	if (elapsed < ABC_WEIGHT_PERIOD_NS)
		return;
	if (!q->p.topk) {
		abc_new_period(q, abc_even_weights, now);
		return;
	}
	/* bytes the link could carry in the period; mu <= 2^37 */
	mu = q->p.bandwidth ? q->p.bandwidth : q->capacity;
	cap = mu;
	if (elapsed < 100ULL * NSEC_PER_SEC)
		cap = div64_u64(mu * div64_u64(elapsed, NSEC_PER_USEC),
				USEC_PER_SEC);
	abc_maxmin_weights(t, cap, w);
	if (q->p.classic)
		abc_classic_period(&q->classic, t[TC_ABC_Q_ABC],
				   t[TC_ABC_Q_OTHER],
				   q->brakes != q->period_brakes);
	q->period_brakes = q->brakes;
	abc_new_period(q, w, now);
}

/* The non-empty queue with the smaller virtual time goes next. */
static int abc_pick(const struct abc_sched_data *q)
{
	if (!q->qs[TC_ABC_Q_OTHER].qlen)
		return TC_ABC_Q_ABC;
	if (!q->qs[TC_ABC_Q_ABC].qlen)
		return TC_ABC_Q_OTHER;
	return (s64)(q->vtime[TC_ABC_Q_OTHER] - q->vtime[TC_ABC_Q_ABC]) < 0 ?
		TC_ABC_Q_OTHER : TC_ABC_Q_ABC;
}

/*
 * Eq. 1 when mu is estimated: it changes with every packet, so nothing
 * is precomputed.
 */
static u64 abc_estimated_target(struct abc_sched_data *q, u64 cr_abc,
				u64 now, u64 x_ns)
{
	u64 cr_other = abc_win_rate(&q->win, now, TC_ABC_Q_OTHER), mu;

	mu = abc_estimate_mu(abc_win_busy_rate(&q->win), cr_abc + cr_other);
	q->capacity = mu;
	/* The ABC queue's share of the link while the other one is in use. */
	if (cr_other)
		mu = div_u64(mu * q->weight[TC_ABC_Q_ABC], ABC_PPM);
	return abc_target_rate(mu, q->p.eta, q->p.delta_us, q->p.dt_us,
			       div_u64(x_ns, NSEC_PER_USEC));
}

/*
 * Eq. 1, Eq. 2 and Alg. 1 for one packet leaving the ABC queue.  The
 * target rate is per packet, as x is; at a configured bandwidth only
 * x and whether the other queue has bytes in the window vary, the rest
 * is in q->law.
 */
static void abc_mark(struct abc_sched_data *q, struct sk_buff *skb, u64 now)
{
	const struct abc_skb_cb *cb = abc_cb(skb);
	u64 cr_abc, x_ns = now - cb->enqueue_ns;
	u32 f, segs = abc_segs(skb);
	bool accel, shared;

	cr_abc = abc_win_rate(&q->win, now, TC_ABC_Q_ABC);
	if (q->p.bandwidth) {
		q->capacity = q->p.bandwidth;
		shared = abc_win_bytes(&q->win, TC_ABC_Q_OTHER) != 0;
		q->target_rate = abc_law_rate(&q->law[shared], x_ns);
	} else {
		q->target_rate = abc_estimated_target(q, cr_abc, now, x_ns);
	}
	q->qdelay_ns = x_ns;
	q->dequeue_rate = cr_abc;
	f = abc_accel_frac(q->target_rate, cr_abc);
	q->accel_frac = f;

	accel = abc_token_mark_segs(&q->token, &q->owed, &q->last_accel, f,
				    q->p.token_limit << FP_SHIFT,
				    cb->ecn != INET_ECN_CE, segs, q->run_segs);
	if (cb->ecn == INET_ECN_CE)
		return;
	if (accel) {
		q->accelerates += segs;
		return;
	}
	/* The header was made writable at enqueue (abc_classify). */
	if (cb->ecn == INET_ECN_ECT_1 && q->p.ect1)
		abc_set_ect0(skb);
	else
		INET_ECN_set_ce(skb);
	q->brakes += segs;
}

static struct sk_buff *abc_dequeue(struct Qdisc *sch)
{
	struct abc_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;
	u64 now, busy_ns = 0;
	u32 len;
	int qi;

	if (abc_empty(q))
		return NULL;
	now = ktime_get_ns();
	if (!abc_shaper_ready(&q->shaper, now)) {
		qdisc_watchdog_schedule_range_ns(&q->watchdog, q->shaper.t_next,
						 ABC_WAKE_SLACK_NS);
		return NULL;
	}

	qi = abc_pick(q);
	skb = __qdisc_dequeue_head(&q->qs[qi]);
	len = qdisc_pkt_len(skb);
	sch->q.qlen--;
	qdisc_qstats_backlog_dec(sch, skb);
	qdisc_bstats_update(sch, skb);

	abc_shaper_sent(&q->shaper, now, len);
	q->vtime[qi] += (len * q->vcost[qi]) >> FP_SHIFT;

	/* The link was busy since the last dequeue if that one left a queue. */
	if (q->backlogged)
		busy_ns = now - q->last_deq_ns;
	q->backlogged = !abc_empty(q);
	q->last_deq_ns = now;
	abc_win_add(&q->win, now, qi, len, busy_ns);
	abc_topk_add(&q->topk[qi], abc_cb(skb)->hash, len);
	abc_update_weights(q, now);

	if (qi == TC_ABC_Q_ABC)
		abc_mark(q, skb, now);
	return skb;
}

static void abc_reset(struct Qdisc *sch)
{
	struct abc_sched_data *q = qdisc_priv(sch);
	u32 qi;

	for (qi = 0; qi < TC_ABC_Q_MAX; qi++)
		__qdisc_reset_queue(&q->qs[qi]);
	sch->q.qlen = 0;
	sch->qstats.backlog = 0;
	qdisc_watchdog_cancel(&q->watchdog);
	q->backlogged = false;
	q->token = 0;
	q->owed = 0;
}

/*
 * Ranges beyond the s16 of NLA_POLICY_RANGE().  Not const: 6.1's
 * nla_policy points to a mutable one.
 */
static struct netlink_range_validation abc_limit_range = {
	.min = 1, .max = ABC_LIMIT_MAX,
};

static struct netlink_range_validation abc_eta_range = {
	.min = ABC_ETA_MIN, .max = ABC_PPM,
};

static struct netlink_range_validation abc_delta_range = {
	.min = USEC_PER_MSEC, .max = ABC_TIME_MAX_US,
};

static struct netlink_range_validation abc_dt_range = {
	.max = ABC_TIME_MAX_US,
};

static struct netlink_range_validation abc_window_range = {
	.min = USEC_PER_MSEC, .max = USEC_PER_SEC,
};

/* Out-of-range values are refused by the netlink core, with an extack. */
static const struct nla_policy abc_policy[TCA_ABC_MAX + 1] = {
	[TCA_ABC_LIMIT]		= NLA_POLICY_FULL_RANGE(NLA_U32, &abc_limit_range),
	[TCA_ABC_BANDWIDTH]	= { .type = NLA_U64 },
	[TCA_ABC_ETA]		= NLA_POLICY_FULL_RANGE(NLA_U32, &abc_eta_range),
	[TCA_ABC_DELTA]		= NLA_POLICY_FULL_RANGE(NLA_U32, &abc_delta_range),
	[TCA_ABC_DT]		= NLA_POLICY_FULL_RANGE(NLA_U32, &abc_dt_range),
	[TCA_ABC_WINDOW]	= NLA_POLICY_FULL_RANGE(NLA_U32, &abc_window_range),
	[TCA_ABC_TOKEN_LIMIT]	= NLA_POLICY_RANGE(NLA_U32, ABC_TOKEN_LIMIT_MIN,
						   ABC_TOKEN_LIMIT_MAX),
	[TCA_ABC_TOPK]		= NLA_POLICY_MAX(NLA_U32, ABC_TOPK_MAX),
	[TCA_ABC_CLASSIC]	= NLA_POLICY_MAX(NLA_U32, 1),
	[TCA_ABC_ECT1]		= NLA_POLICY_MAX(NLA_U32, 1),
	[TCA_ABC_SPLIT_GSO]	= NLA_POLICY_MAX(NLA_U32, TC_ABC_SPLIT_GSO_MAX),
};

static void abc_get_u32(const struct nlattr *attr, u32 *dst)
{
	if (attr)
		*dst = nla_get_u32(attr);
}

/* Parse and check everything into *p (a copy); nothing is applied here. */
static int abc_validate(struct nlattr *opt, struct abc_params *p,
			struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TCA_ABC_MAX + 1];
	int err;

	err = nla_parse_nested(tb, TCA_ABC_MAX, opt, abc_policy, extack);
	if (err < 0)
		return err;

	/* 0 (estimate) or a rate: one range cannot say it */
	if (tb[TCA_ABC_BANDWIDTH]) {
		u64 bw = nla_get_u64(tb[TCA_ABC_BANDWIDTH]);

		if (bw && (bw < ABC_RATE_MIN || bw > ABC_RATE_MAX)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_ABC_BANDWIDTH],
					    "abc: bandwidth must be 0 (estimate) or 1000..125000000000 bytes/s (8 kbit/s..1 Tbit/s)");
			return -EINVAL;
		}
		p->bandwidth = bw;
	}
	abc_get_u32(tb[TCA_ABC_LIMIT], &p->limit);
	abc_get_u32(tb[TCA_ABC_ETA], &p->eta);
	abc_get_u32(tb[TCA_ABC_DELTA], &p->delta_us);
	abc_get_u32(tb[TCA_ABC_DT], &p->dt_us);
	abc_get_u32(tb[TCA_ABC_WINDOW], &p->window_us);
	abc_get_u32(tb[TCA_ABC_TOKEN_LIMIT], &p->token_limit);
	abc_get_u32(tb[TCA_ABC_TOPK], &p->topk);
	abc_get_u32(tb[TCA_ABC_CLASSIC], &p->classic);
	abc_get_u32(tb[TCA_ABC_ECT1], &p->ect1);
	abc_get_u32(tb[TCA_ABC_SPLIT_GSO], &p->split_gso);
	return 0;
}

/* Apply validated parameters: called under sch_tree_lock (or at init). */
static void abc_apply(struct Qdisc *sch, const struct abc_params *p, u64 now)
{
	struct abc_sched_data *q = qdisc_priv(sch);
	const struct abc_params old = q->p;

	q->p = *p;
	abc_shaper_set_rate(&q->shaper, p->bandwidth, now);
	if (p->window_us != old.window_us)
		abc_win_init(&q->win, now, (u64)p->window_us * NSEC_PER_USEC);
	if (q->token > (p->token_limit << FP_SHIFT))
		q->token = p->token_limit << FP_SHIFT;
	if (p->topk != old.topk)
		abc_new_period(q, abc_even_weights, now);
	/* Without detection (or top-K), every ECT flow is ABC again. */
	if (!p->classic || !p->topk)
		abc_classic_clear(&q->classic);
	abc_refresh_laws(q);
}

/* Drop from the head of the longer queue until qlen fits the limit. */
static void abc_trim(struct Qdisc *sch)
{
	struct abc_sched_data *q = qdisc_priv(sch);
	unsigned int n = 0, bytes = 0;

	while (sch->q.qlen > q->p.limit) {
		int qi = q->qs[TC_ABC_Q_ABC].qlen >= q->qs[TC_ABC_Q_OTHER].qlen ?
			 TC_ABC_Q_ABC : TC_ABC_Q_OTHER;
		struct sk_buff *skb = __qdisc_dequeue_head(&q->qs[qi]);

		sch->q.qlen--;
		qdisc_qstats_backlog_dec(sch, skb);
		qdisc_qstats_drop(sch);
		q->drop_overlimit++;
		n++;
		bytes += qdisc_pkt_len(skb);
		rtnl_kfree_skbs(skb, skb);
	}
	/* The counts above were ours; tell the parents too. */
	qdisc_tree_reduce_backlog(sch, n, bytes);
}

static int abc_change(struct Qdisc *sch, struct nlattr *opt,
		      struct netlink_ext_ack *extack)
{
	struct abc_sched_data *q = qdisc_priv(sch);
	struct abc_params p = q->p;
	u64 now, old_bw;
	int err;

	if (!opt) {
		NL_SET_ERR_MSG(extack, "abc: no options given");
		return -EINVAL;
	}
	err = abc_validate(opt, &p, extack);
	if (err)
		return err;

	sch_tree_lock(sch);
	now = ktime_get_ns();
	old_bw = q->p.bandwidth;
	abc_apply(sch, &p, now);
	abc_trim(sch);
	/*
	 * A backlog may wait on a watchdog armed for the old rate's departure
	 * time, with nothing else to wake it: re-arm it for the new one (now,
	 * if no longer shaping).
	 */
	if (p.bandwidth != old_bw && sch->q.qlen)
		qdisc_watchdog_schedule_ns(&q->watchdog,
					   p.bandwidth ? q->shaper.t_next : now);
	sch_tree_unlock(sch);
	return 0;
}

static int abc_init(struct Qdisc *sch, struct nlattr *opt,
		    struct netlink_ext_ack *extack)
{
	struct abc_sched_data *q = qdisc_priv(sch);
	struct abc_params p = {
		.limit = ABC_DEF_LIMIT,
		.bandwidth = 0,
		.eta = ABC_DEF_ETA,
		.delta_us = ABC_DEF_DELTA_US,
		.dt_us = ABC_DEF_DT_US,
		.window_us = ABC_DEF_WINDOW_US,
		.token_limit = ABC_DEF_TOKEN_LIMIT,
		.topk = ABC_DEF_TOPK,
		.classic = 1,
		.split_gso = TC_ABC_SPLIT_GSO_AUTO,
	};
	u64 now = ktime_get_ns();
	int err;

	/* The queues, counters and tables start zeroed (qdisc_alloc). */
	qdisc_watchdog_init(&q->watchdog, sch);
	q->p = p;
	abc_new_period(q, abc_even_weights, now);
	abc_win_init(&q->win, now, (u64)p.window_us * NSEC_PER_USEC);

	if (opt) {
		err = abc_validate(opt, &p, extack);
		if (err)
			return err;
	}
	abc_apply(sch, &p, now);
	return 0;
}

static void abc_destroy(struct Qdisc *sch)
{
	struct abc_sched_data *q = qdisc_priv(sch);

	qdisc_watchdog_cancel(&q->watchdog);
}

static int abc_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct abc_sched_data *q = qdisc_priv(sch);
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;
	if (nla_put_u32(skb, TCA_ABC_LIMIT, q->p.limit) ||
	    nla_put_u64_64bit(skb, TCA_ABC_BANDWIDTH, q->p.bandwidth,
			      TCA_ABC_PAD) ||
	    nla_put_u32(skb, TCA_ABC_ETA, q->p.eta) ||
	    nla_put_u32(skb, TCA_ABC_DELTA, q->p.delta_us) ||
	    nla_put_u32(skb, TCA_ABC_DT, q->p.dt_us) ||
	    nla_put_u32(skb, TCA_ABC_WINDOW, q->p.window_us) ||
	    nla_put_u32(skb, TCA_ABC_TOKEN_LIMIT, q->p.token_limit) ||
	    nla_put_u32(skb, TCA_ABC_TOPK, q->p.topk) ||
	    nla_put_u32(skb, TCA_ABC_CLASSIC, q->p.classic) ||
	    nla_put_u32(skb, TCA_ABC_ECT1, q->p.ect1) ||
	    nla_put_u32(skb, TCA_ABC_SPLIT_GSO, q->p.split_gso))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int abc_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct abc_sched_data *q = qdisc_priv(sch);
	struct tc_abc_xstats st = { };
	u32 qi;

	/*
	 * Enqueue and dequeue write these under the root lock; without it a
	 * dump could mix two packets' values, and a u64 tears on 32-bit.
	 */
	sch_tree_lock(sch);
	st.accelerates = q->accelerates;
	st.brakes = q->brakes;
	st.target_rate = q->target_rate;
	st.capacity = q->p.bandwidth ? q->p.bandwidth : q->capacity;
	st.dequeue_rate = q->dequeue_rate;
	/* Q16 to ppm: f <= 2^16, so the product fits easily */
	st.accel_frac = (u32)(((u64)q->accel_frac * ABC_PPM) >> FP_SHIFT);
	st.qdelay_us = min_t(u64, div_u64(q->qdelay_ns, NSEC_PER_USEC),
			     U32_MAX);
	st.drops = q->drop_overlimit;
	st.estimating = !q->p.bandwidth;
	st.classic_packets = q->classic_packets;
	st.classic_found = q->classic.found;
	st.classic_flows = abc_classic_flows(&q->classic);
	for (qi = 0; qi < TC_ABC_Q_MAX; qi++) {
		st.qlen[qi] = q->qs[qi].qlen;
		st.weight[qi] = q->weight[qi];
	}
	sch_tree_unlock(sch);

	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static struct Qdisc_ops abc_qdisc_ops __read_mostly = {
	.id		= "abc",
	.priv_size	= sizeof(struct abc_sched_data),
	.enqueue	= abc_enqueue,
	.dequeue	= abc_dequeue,
	.peek		= qdisc_peek_dequeued,
	.init		= abc_init,
	.reset		= abc_reset,
	.destroy	= abc_destroy,
	.change		= abc_change,
	.dump		= abc_dump,
	.dump_stats	= abc_dump_stats,
	.owner		= THIS_MODULE,
};

static int __init abc_module_init(void)
{
	BUILD_BUG_ON(sizeof(struct abc_skb_cb) > QDISC_CB_PRIV_LEN);
	return register_qdisc(&abc_qdisc_ops);
}

static void __exit abc_module_exit(void)
{
	unregister_qdisc(&abc_qdisc_ops);
}

module_init(abc_module_init);
module_exit(abc_module_exit);

MODULE_AUTHOR("sch_abc contributors");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ABC router: accelerate/brake marking qdisc (NSDI 2020)");
MODULE_ALIAS_NET_SCH("abc");
