/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint of tcp_etc: one event per rate update (increase, decrease,
 * drain, hold, RTO, heavy loss, a phase ended by sending after idle, a
 * window-law round, its probe drain, a switch to the rate law), never
 * per ACK.  law: rate (no window-law state), compete (the rate law runs
 * beside a loss-based flow or on a noisy path) or window; spread: how
 * far a round's mean RTT stands above its lowest, us (ETC_NOISE_US);
 * mean: the window law's mean RTT of the last round, us; nbase: its min
 * RTT under noise, us (0: none).
 *
 *   echo 1 > /sys/kernel/tracing/events/tcp_etc/etc_update/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tcp_etc

#if !defined(_ETC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _ETC_TRACE_H

#include <linux/tracepoint.h>
#include <net/inet_sock.h>
#include "etc_core.h"

TRACE_EVENT(etc_update,
	    TP_PROTO(const struct sock *sk, const struct etc_core *e, int event),
	    TP_ARGS(sk, e, event),
	    TP_STRUCT__entry(__field(u16, sport)
			     __field(u16, dport)
			     __field(u8, event)
			     __field(u8, stage)
			     __field(u8, phase)
			     __field(u64, rate)
			     __field(u64, rp)
			     __field(u64, rcv)
			     __field(u64, rcv_max)
			     __field(u32, min_rtt)
			     __field(u32, rtt)
			     __field(u32, phase_us)
			     __field(u32, cwnd_cap)
			     __field(u8, burst_shift)
			     __field(u8, law)
			     __field(u32, window)
			     __field(u32, spread)
			     __field(u32, mean)
			     __field(u32, nbase)),
	    TP_fast_assign(__entry->sport = ntohs(inet_sk(sk)->inet_sport);
			   __entry->dport = ntohs(inet_sk(sk)->inet_dport);
			   __entry->event = event;
			   __entry->stage = e->stage;
			   __entry->phase = e->phase;
			   __entry->rate = e->rate;
			   __entry->rp = etc_rp(e);
			   __entry->rcv = e->rcv;
			   __entry->rcv_max = e->rcv_max;
			   __entry->min_rtt = e->min_rtt_us;
			   __entry->rtt = e->phase == ETC_CRUISE ?
					  e->rtt_ref_us : 0;
			   __entry->phase_us = e->phase == ETC_CRUISE ?
					       0 : e->phase_us;
			   __entry->cwnd_cap = e->inflight_hi;
			   __entry->burst_shift = e->burst_shift;
			   __entry->law = !e->fast ? 0 : e->fast->compete ? 1 : 2;
			   __entry->window = e->fast ? e->fast->w : 0;
			   __entry->spread = e->fast ? e->fast->spread_us : 0;
			   __entry->mean = e->fast ? e->fast->mean_us : 0;
			   __entry->nbase = e->fast ? e->fast->noise_base_us : 0;),
	    TP_printk("sport=%u dport=%u ev=%s stage=%s phase=%u rate=%llu rp=%llu rcv=%llu rcv_max=%llu min_rtt=%u rtt_ref=%u phase_us=%u cwnd_cap=%u burst_shift=%u law=%s window=%u spread=%u mean=%u nbase=%u",
		      __entry->sport, __entry->dport,
		      __print_symbolic(__entry->event,
				       { ETC_EV_INCREASE, "increase" },
				       { ETC_EV_DECREASE, "decrease" },
				       { ETC_EV_DRAIN, "drain" },
				       { ETC_EV_HOLD, "hold" },
				       { ETC_EV_CRUISE, "cruise" },
				       { ETC_EV_RTO, "rto" },
				       { ETC_EV_LOSS, "loss" },
				       { ETC_EV_RESTART, "restart" },
				       { ETC_EV_KEEP, "keep" },
				       { ETC_EV_WINDOW, "window" },
				       { ETC_EV_PROBE, "probe" },
				       { ETC_EV_COMPETE, "compete" }),
		      __entry->stage == ETC_STABLE ? "stable" : "detect",
		      __entry->phase, __entry->rate, __entry->rp,
		      __entry->rcv, __entry->rcv_max, __entry->min_rtt,
		      __entry->rtt, __entry->phase_us, __entry->cwnd_cap,
		      __entry->burst_shift,
		      __print_symbolic(__entry->law, { 0, "rate" },
				       { 1, "compete" }, { 2, "window" }),
		      __entry->window, __entry->spread, __entry->mean,
		      __entry->nbase)
);

#endif /* _ETC_TRACE_H */

/* Out of tree: found through -I$(src) (see Kbuild). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE etc_trace
#include <trace/define_trace.h>
