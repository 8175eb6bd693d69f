/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint of tcp_abc: one event per window update (each ACK that
 * acknowledges data, each loss, RTO and undo), never a printk.
 *
 *   echo 1 > /sys/kernel/tracing/events/tcp_abc/abc_update/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tcp_abc

#if !defined(_ABC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _ABC_TRACE_H

#include <linux/tracepoint.h>
#include <net/inet_sock.h>
#include "abc_window.h"

TRACE_EVENT(abc_update,
	    TP_PROTO(const struct sock *sk, const struct abc_window *w,
		     int event, u32 acked, u32 inflight, u32 cwnd),
	    TP_ARGS(sk, w, event, acked, inflight, cwnd),
	    TP_STRUCT__entry(__field(u16, sport)
			     __field(u16, dport)
			     __field(u8, event)
			     __field(u8, legacy)
			     __field(s32, score)
			     __field(u32, acked)
			     __field(u32, inflight)
			     __field(u32, w_abc)
			     __field(u32, w_nonabc)
			     __field(u32, ssthresh)
			     __field(u32, cwnd)
			     __field(u32, accel)
			     __field(u32, brake)),
	    TP_fast_assign(__entry->sport = ntohs(inet_sk(sk)->inet_sport);
			   __entry->dport = ntohs(inet_sk(sk)->inet_dport);
			   __entry->event = event;
			   __entry->legacy = w->legacy;
			   __entry->score = w->score;
			   __entry->acked = acked;
			   __entry->inflight = inflight;
			   __entry->w_abc = w->w_abc;
			   __entry->w_nonabc = w->w_nonabc;
			   __entry->ssthresh = w->ssthresh;
			   __entry->cwnd = cwnd;
			   __entry->accel = w->accel;
			   __entry->brake = w->brake;),
	    TP_printk("sport=%u dport=%u ev=%s acked=%u inflight=%u w_abc=%u w_nonabc=%u ssthresh=%u cwnd=%u accel=%u brake=%u legacy=%u score=%d",
		      __entry->sport, __entry->dport,
		      __print_symbolic(__entry->event,
				       { ABC_EV_NONE, "none" },
				       { ABC_EV_ACCEL, "accel" },
				       { ABC_EV_BRAKE, "brake" },
				       { ABC_EV_ACK, "ack" },
				       { ABC_EV_LEGACY_CUT, "legacy_cut" },
				       { ABC_EV_LOSS, "loss" },
				       { ABC_EV_RTO, "rto" },
				       { ABC_EV_UNDO, "undo" }),
		      __entry->acked, __entry->inflight, __entry->w_abc,
		      __entry->w_nonabc, __entry->ssthresh, __entry->cwnd,
		      __entry->accel, __entry->brake, __entry->legacy,
		      __entry->score)
);

#endif /* _ABC_TRACE_H */

/* Out of tree: found through -I$(src) (see Kbuild). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE abc_trace
#include <trace/define_trace.h>
