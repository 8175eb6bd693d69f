/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint of pad_shim: one event when a socket's ACK buffer changes
 * mode (passive <-> positive) or its state is cleared, never per ACK.
 *
 *   echo 1 > /sys/kernel/tracing/events/pad_shim/pad_event/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM pad_shim

#if !defined(_PAD_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _PAD_TRACE_H

#include <linux/tracepoint.h>
#include <net/inet_sock.h>
#include "pad_core.h"

TRACE_EVENT(pad_event,
	    TP_PROTO(const struct sock *sk, const struct pad_core *c,
		     int event, u64 mu),
	    TP_ARGS(sk, c, event, mu),
	    TP_STRUCT__entry(__field(u16, sport)
			     __field(u16, dport)
			     __field(u8, event)
			     __field(u64, lambda_pps)
			     __field(u64, mu_pps)
			     __field(u32, held)),
	    TP_fast_assign(__entry->sport = ntohs(inet_sk(sk)->inet_sport);
			   __entry->dport = ntohs(inet_sk(sk)->inet_dport);
			   __entry->event = event;
			   /* packets per second, from packets/us << 24 */
			   __entry->lambda_pps = (c->lambda * USEC_PER_SEC) >>
						 PAD_RATE_SHIFT;
			   __entry->mu_pps = (mu * USEC_PER_SEC) >> PAD_RATE_SHIFT;
			   __entry->held = c->held;),
	    TP_printk("sport=%u dport=%u ev=%s lambda=%llu mu=%llu held=%u (pkt/s, pkts)",
		      __entry->sport, __entry->dport,
		      __print_symbolic(__entry->event,
				       { PAD_EV_ENGAGE, "engage" },
				       { PAD_EV_RELEASE, "release" },
				       { PAD_EV_PROBE, "probe" },
				       { PAD_EV_FLUSH, "flush" },
				       { PAD_EV_RESET, "reset" }),
		      __entry->lambda_pps, __entry->mu_pps, __entry->held)
);

#endif /* _PAD_TRACE_H */

/* Out of tree: found through -I$(src) (see Kbuild). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE pad_trace
#include <trace/define_trace.h>
