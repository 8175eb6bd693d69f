/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Socket-side helpers the congestion controls of this tree share:
 * pacing, the get_info layout and the first-ACK initialisation.
 * Differences between kernel versions live in cc_compat.h, not here.
 */
#ifndef _CC_TCP_H
#define _CC_TCP_H

#include <linux/inet_diag.h>
#include <net/inet_connection_sock.h>
#include <net/tcp.h>

/*
 * True until tcp_init_congestion_control() has run .init.  A passive
 * open processes the ACK of its SYN-ACK (and so calls cong_control)
 * before tcp_init_transfer() initialises the congestion control; a
 * cong_control that needs its state initialises it then.
 */
static inline bool cc_ca_uninitialised(const struct sock *sk)
{
	return unlikely(!inet_csk(sk)->icsk_ca_initialized);
}

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
 * get_info in the INET_DIAG_BBRINFO layout, which `ss -ti` prints as
 * bbr:(bw,mrtt,pacing_gain,cwnd_gain) for any CCA: @bw in bytes/s,
 * @min_rtt_us, and the two gains in 1/256 units.  VEGASINFO requests
 * (`ss` asks for it too) get the same answer, as tcp_bbr.c does.
 */
static inline size_t cc_bbr_info(u32 ext, int *attr, union tcp_cc_info *info,
				 u64 bw, u32 min_rtt_us, u32 pacing_gain,
				 u32 cwnd_gain)
{
	if (!(ext & (1 << (INET_DIAG_BBRINFO - 1))) &&
	    !(ext & (1 << (INET_DIAG_VEGASINFO - 1))))
		return 0;
	memset(&info->bbr, 0, sizeof(info->bbr));
	info->bbr.bbr_bw_lo = (u32)bw;
	info->bbr.bbr_bw_hi = (u32)(bw >> 32);
	info->bbr.bbr_min_rtt = min_rtt_us;
	info->bbr.bbr_pacing_gain = pacing_gain;
	info->bbr.bbr_cwnd_gain = cwnd_gain;
	*attr = INET_DIAG_BBRINFO;
	return sizeof(info->bbr);
}

#endif /* _CC_TCP_H */
