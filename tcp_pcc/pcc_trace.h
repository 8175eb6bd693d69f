/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint of tcp_pcc: one event per monitor-interval result, never per
 * ACK.
 *
 *   echo 1 > /sys/kernel/tracing/events/tcp_pcc/pcc_mi/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tcp_pcc

#if !defined(_PCC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _PCC_TRACE_H

#include <linux/tracepoint.h>
#include <net/inet_sock.h>
#include "pcc_core.h"

TRACE_EVENT(pcc_mi,
	    TP_PROTO(const struct sock *sk, const struct pcc_ctl *c,
		     const struct pcc_result *r, s64 utility, bool moved),
	    TP_ARGS(sk, c, r, utility, moved),
	    TP_STRUCT__entry(__field(u16, sport)
			     __field(u16, dport)
			     __field(u8, tag)
			     __field(u8, state)
			     __field(u8, moved)
			     __field(u16, eps)
			     __field(u32, mi_rate)
			     __field(u32, rate)
			     __field(u32, base)
			     __field(s64, utility)
			     __field(u64, delivered)
			     __field(u64, lost)
			     __field(u32, dur)
			     __field(u32, rtt)
			     __field(s32, grad)
			     __field(u32, rtt_dev)
			     __field(u32, dlv)
			     __field(u8, capping)),
	    TP_fast_assign(__entry->sport = ntohs(inet_sk(sk)->inet_sport);
			   __entry->dport = ntohs(inet_sk(sk)->inet_dport);
			   __entry->tag = r->tag;
			   __entry->state = c->state;
			   __entry->moved = moved;
			   __entry->eps = c->eps;
			   __entry->mi_rate = r->rate;
			   __entry->rate = c->rate;
			   __entry->base = c->base;
			   __entry->utility = utility;
			   __entry->delivered = r->delivered;
			   __entry->lost = r->lost;
			   __entry->dur = r->dur_us;
			   __entry->rtt = r->rtt_us;
			   __entry->grad = r->rtt_grad;
			   __entry->rtt_dev = r->rtt_dev_us;
			   __entry->dlv = c->dlv_rate * 2;
			   __entry->capping = pcc_ctl_capping(c);),
	    TP_printk("sport=%u dport=%u mi=%s mi_rate=%u utility=%lld delivered=%llu lost=%llu dur=%u rtt=%u grad=%d rtt_dev=%u -> state=%s%s rate=%u base=%u eps=%u dlv=%u capping=%u",
		      __entry->sport, __entry->dport,
		      __print_symbolic(__entry->tag,
				       { PCC_TAG_NONE, "hold" },
				       { PCC_TAG_START, "start" },
				       { PCC_TAG_TRIAL0, "trial0" },
				       { PCC_TAG_TRIAL0 + 1, "trial1" },
				       { PCC_TAG_TRIAL0 + 2, "trial2" },
				       { PCC_TAG_TRIAL0 + 3, "trial3" },
				       { PCC_TAG_ADJUST, "adjust" }),
		      __entry->mi_rate, __entry->utility >> FP_SHIFT,
		      __entry->delivered, __entry->lost, __entry->dur,
		      __entry->rtt, __entry->grad, __entry->rtt_dev,
		      __print_symbolic(__entry->state,
				       { PCC_STARTING, "starting" },
				       { PCC_DECISION, "decision" },
				       { PCC_ADJUSTING, "adjusting" }),
		      __entry->moved ? " (moved)" : "",
		      __entry->rate, __entry->base, __entry->eps,
		      __entry->dlv, __entry->capping)
);

#endif /* _PCC_TRACE_H */

/* Out of tree: found through -I$(src) (see Kbuild). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE pcc_trace
#include <trace/define_trace.h>
