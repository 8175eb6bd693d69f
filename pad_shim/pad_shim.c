// SPDX-License-Identifier: GPL-2.0
/*
 * PAD (Zhu et al., "Robustifying Measurement-Based Congestion Control
 * Algorithms") as a wrapper congestion control.
 *
 * "modprobe pad_shim inner=bbr" registers "pad_bbr": the inner CCA's own
 * callbacks, except that cong_control first passes the rate sample through
 * PAD (pad_core.h), which hands the inner CCA a modified local copy when
 * its ACK buffer holds packets.  The stack's sample is never written.
 *
 * The inner CCA is found by name without unexported symbols: a kernel TCP
 * socket is given TCP_CONGESTION (through its proto_ops, as userspace
 * would) and its icsk_ca_ops is read.  The inner module is pinned with
 * try_module_get() for as long as the wrapper is registered, so it cannot
 * be unloaded under pad_<name>; sockets using pad_<name> pin pad_shim
 * through the wrapper's owner, as for any CCA.
 *
 * PAD's per-socket state: ICSK_CA_PRIV_SIZE (104 bytes) is shared with
 * the inner CCA, which uses it from the start.  When the inner CCA's
 * declared size leaves room, PAD's state goes at the end of it; BBR and
 * ETC use all 104 bytes, so by default PAD's state lives in a table of
 * "slots" allocated at load, claimed in .init (no allocation there) and
 * freed in .release.  A socket that finds no free slot runs the inner
 * CCA unchanged (counted in "stats").
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/bpf.h>
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/sockptr.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include <net/tcp.h>

#include "cc_compat.h"
#include "cc_param.h"
#include "pad_core.h"

#define CREATE_TRACE_POINTS
#include "pad_trace.h"

#define PAD_MAX_INNER	4
#define PAD_PREFIX	"pad_"
/* longest inner name so that "pad_" + name fits TCP_CA_NAME_MAX */
#define PAD_NAME_MAX	(TCP_CA_NAME_MAX - sizeof(PAD_PREFIX))
#define PAD_INNER_LEN	128
#define PAD_SLOTS_MAX	65536
/* slots probed per socket in the table (open addressing) */
#define PAD_PROBES	16
/* PAD's state at the end of icsk_ca_priv, 8-byte aligned, if it fits */
#define PAD_FITS_INLINE	(sizeof(struct pad_core) <= ICSK_CA_PRIV_SIZE)
#define PAD_INLINE_OFF	(PAD_FITS_INLINE ? \
			 (ICSK_CA_PRIV_SIZE - sizeof(struct pad_core)) & ~7UL : 0)

struct pad_wrapper {
	struct tcp_congestion_ops ops;
	const struct tcp_congestion_ops *inner;
	int state_off;		/* offset in icsk_ca_priv, < 0: slot table */
	bool registered;
};

struct pad_inner_spec {
	char name[TCP_CA_NAME_MAX];
	u32 priv;		/* bytes of icsk_ca_priv the inner CCA uses */
};

static struct pad_wrapper pad_wrappers[PAD_MAX_INNER];
static int pad_nr_wrappers;

/* ---- parameters ---- */

static char pad_inner[PAD_INNER_LEN] = "bbr";
static struct cc_q16_param pad_k = CC_Q16_PARAM(1, 250, 1, 10, 2, 0);
static unsigned int pad_w = 16;
static struct cc_q16_param pad_lift = CC_Q16_PARAM(2, 0, 0, 0, 16, 0);
static bool pad_hold_acked = true;
static bool pad_rx_clock = true;
static unsigned int pad_slots = 1024;

/*
 * "name[:bytes][,name[:bytes]...]": at most PAD_MAX_INNER distinct CCA
 * names of up to PAD_NAME_MAX characters; bytes is the inner CCA's
 * private size (default: all of ICSK_CA_PRIV_SIZE).
 */
static int pad_parse_inner(const char *val, struct pad_inner_spec *spec,
			   int *nr)
{
	char buf[PAD_INNER_LEN], *s, *tok, *colon;
	size_t len = strcspn(val, "\n");
	int i, n = 0;

	if (!len || len >= sizeof(buf)) {
		pr_err("inner: a list of 1 to %d congestion control names expected\n",
		       PAD_MAX_INNER);
		return -EINVAL;
	}
	memcpy(buf, val, len);
	buf[len] = '\0';
	s = buf;
	while ((tok = strsep(&s, ","))) {
		size_t nl;

		if (n == PAD_MAX_INNER) {
			pr_err("inner: at most %d congestion controls\n",
			       PAD_MAX_INNER);
			return -EINVAL;
		}
		colon = strchr(tok, ':');
		if (colon)
			*colon++ = '\0';
		nl = strlen(tok);
		if (!nl || nl > PAD_NAME_MAX ||
		    strspn(tok, "abcdefghijklmnopqrstuvwxyz0123456789_-") != nl) {
			pr_err("inner: \"%s\" refused: a name of 1 to %zu characters [a-z0-9_-] expected\n",
			       tok, PAD_NAME_MAX);
			return -EINVAL;
		}
		if (!strncmp(tok, PAD_PREFIX, strlen(PAD_PREFIX))) {
			pr_err("inner: \"%s\" refused: PAD does not wrap itself\n",
			       tok);
			return -EINVAL;
		}
		strscpy(spec[n].name, tok, sizeof(spec[n].name));
		spec[n].priv = ICSK_CA_PRIV_SIZE;
		if (colon && (kstrtou32(colon, 10, &spec[n].priv) ||
			      spec[n].priv > ICSK_CA_PRIV_SIZE)) {
			pr_err("inner: %s: private size \"%s\" refused: 0 to %zu bytes expected\n",
			       tok, colon, ICSK_CA_PRIV_SIZE);
			return -EINVAL;
		}
		for (i = 0; i < n; i++) {
			if (!strcmp(spec[i].name, spec[n].name)) {
				pr_err("inner: \"%s\" listed twice\n",
				       tok);
				return -EINVAL;
			}
		}
		n++;
	}
	*nr = n;
	return 0;
}

static int pad_inner_set(const char *val, const struct kernel_param *kp)
{
	struct pad_inner_spec spec[PAD_MAX_INNER];
	int nr, err;

	err = pad_parse_inner(val, spec, &nr);
	if (err)
		return err;
	strscpy(pad_inner, val, min_t(size_t, sizeof(pad_inner),
				      strcspn(val, "\n") + 1));
	return 0;
}

static int pad_inner_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%s\n", pad_inner);
}

static const struct kernel_param_ops pad_inner_ops = {
	.set = pad_inner_set,
	.get = pad_inner_get,
};

static int pad_uint_set(const char *val, const struct kernel_param *kp,
			unsigned int lo, unsigned int hi)
{
	if (param_set_uint_minmax(val, kp, lo, hi)) {
		pr_err("%s: \"%.*s\" refused: an integer from %u to %u expected\n",
		       kp->name, (int)strcspn(val, "\n"), val, lo, hi);
		return -EINVAL;
	}
	return 0;
}

static int pad_w_set(const char *val, const struct kernel_param *kp)
{
	return pad_uint_set(val, kp, PAD_W_MIN, PAD_W_MAX);
}

static const struct kernel_param_ops pad_w_ops = {
	.set = pad_w_set,
	.get = param_get_uint,
};

static int pad_slots_set(const char *val, const struct kernel_param *kp)
{
	return pad_uint_set(val, kp, 0, PAD_SLOTS_MAX);
}

static const struct kernel_param_ops pad_slots_ops = {
	.set = pad_slots_set,
	.get = param_get_uint,
};

/* ---- statistics: per CPU, summed when read ---- */

struct pad_stats {
	u64 acks;		/* ACKs that went through PAD */
	u64 positive_acks;	/* ACKs after which packets were held */
	u64 held_pkts;		/* packets that entered the ACK buffer */
	u64 engage;		/* passive -> positive */
	u64 release;		/* positive -> passive on schedule */
	u64 probe;		/* positive -> passive, sender probing */
	u64 flush;		/* positive -> passive, recovery/app-limited */
	u64 reset;		/* RTO or idle restart */
	u64 no_slot;		/* sockets that found no free slot */
	u64 ops_restored;	/* inner .init replaced the socket's ops */
	u64 rx_bounded;		/* samples cut to the receiver's rate */
};

static DEFINE_PER_CPU(struct pad_stats, pad_stats);

static int pad_stats_get(char *buffer, const struct kernel_param *kp)
{
	struct pad_stats t = {};
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct pad_stats *s = per_cpu_ptr(&pad_stats, cpu);

		t.acks += READ_ONCE(s->acks);
		t.positive_acks += READ_ONCE(s->positive_acks);
		t.held_pkts += READ_ONCE(s->held_pkts);
		t.engage += READ_ONCE(s->engage);
		t.release += READ_ONCE(s->release);
		t.probe += READ_ONCE(s->probe);
		t.flush += READ_ONCE(s->flush);
		t.reset += READ_ONCE(s->reset);
		t.no_slot += READ_ONCE(s->no_slot);
		t.ops_restored += READ_ONCE(s->ops_restored);
		t.rx_bounded += READ_ONCE(s->rx_bounded);
	}
	return sysfs_emit(buffer,
			  "acks %llu positive_acks %llu held_pkts %llu engage %llu release %llu probe %llu flush %llu reset %llu no_slot %llu ops_restored %llu rx_bounded %llu\n",
			  t.acks, t.positive_acks, t.held_pkts, t.engage,
			  t.release, t.probe, t.flush, t.reset, t.no_slot,
			  t.ops_restored, t.rx_bounded);
}

static int pad_stats_set(const char *val, const struct kernel_param *kp)
{
	pr_err("stats is read-only\n");
	return -EPERM;
}

static const struct kernel_param_ops pad_stats_ops = {
	.set = pad_stats_set,
	.get = pad_stats_get,
};

module_param_cb(inner, &pad_inner_ops, NULL, 0444);
MODULE_PARM_DESC(inner, "CCAs to wrap, comma-separated, each NAME or NAME:PRIVATE_BYTES (default bbr; load time only)");
module_param_cb(k, &cc_q16_param_ops, &pad_k, 0644);
MODULE_PARM_DESC(k, "ACK release rate mu = k x lambda, Eq. 1 (1.001 .. 2; default 1.025)");
module_param_cb(w, &pad_w_ops, &pad_w, 0644);
MODULE_PARM_DESC(w, "window of the ACK rate estimator in RTTs, Eq. 2 (1 .. 64; default 16)");
module_param_cb(jitter_lift, &cc_q16_param_ops, &pad_lift, 0644);
MODULE_PARM_DESC(jitter_lift, "RTT samples shown raised by this x the mean change between consecutive ones (0 .. 16; default 2; 0: off)");
module_param_named(hold_acked, pad_hold_acked, bool, 0644);
MODULE_PARM_DESC(hold_acked, "hold acked_sacked with delivered (Y, default) or show the stack's (N): cwnd growth and ACK-aggregation estimates then see every ACK");
module_param_named(rx_clock, pad_rx_clock, bool, 0644);
MODULE_PARM_DESC(rx_clock, "bound each rate sample by the receiver's rate over it, on the peer's TCP timestamps (Y, default) or not (N)");
module_param_cb(slots, &pad_slots_ops, &pad_slots, 0444);
MODULE_PARM_DESC(slots, "sockets whose PAD state lives outside icsk_ca_priv (0 .. 65536; default 1024; load time only)");
module_param_cb(stats, &pad_stats_ops, NULL, 0444);
MODULE_PARM_DESC(stats, "counters of all sockets (read-only)");

/* ---- per-socket state: inline or in the slot table ---- */

static struct sock **pad_owner;
static struct pad_core *pad_table;
static u32 pad_nr_slots;

/*
 * Open addressing: PAD_PROBES slots from one picked by the socket's hash,
 * wrapping at the end of the table.  pad_slot_find() runs on every ACK,
 * so the hash is scaled into the table by a multiplication and the next
 * slot found by a compare, not by two divisions ('%').
 */
static u32 pad_slot_hash(const struct sock *sk)
{
	return reciprocal_scale(hash_ptr(sk, 32), pad_nr_slots);
}

static u32 pad_slot_next(u32 idx)
{
	return idx + 1 < pad_nr_slots ? idx + 1 : 0;
}

/* The slot a socket claimed; only its owner reads or writes the state. */
static struct pad_core *pad_slot_find(const struct sock *sk)
{
	u32 i, idx;

	if (!pad_nr_slots)
		return NULL;
	idx = pad_slot_hash(sk);
	for (i = 0; i < PAD_PROBES && i < pad_nr_slots; i++) {
		if (READ_ONCE(pad_owner[idx]) == sk)
			return &pad_table[idx];
		idx = pad_slot_next(idx);
	}
	return NULL;
}

static struct pad_core *pad_slot_claim(struct sock *sk)
{
	struct pad_core *c = pad_slot_find(sk);
	u32 i, idx;

	if (c || !pad_nr_slots)
		return c;
	idx = pad_slot_hash(sk);
	for (i = 0; i < PAD_PROBES && i < pad_nr_slots; i++) {
		if (!READ_ONCE(pad_owner[idx]) &&
		    !cmpxchg(&pad_owner[idx], NULL, sk))
			return &pad_table[idx];
		idx = pad_slot_next(idx);
	}
	return NULL;
}

static void pad_slot_free(const struct sock *sk)
{
	u32 i, idx;

	if (!pad_nr_slots)
		return;
	idx = pad_slot_hash(sk);
	for (i = 0; i < PAD_PROBES && i < pad_nr_slots; i++) {
		if (READ_ONCE(pad_owner[idx]) == sk) {
			/* our last state writes before the slot can be claimed */
			smp_store_release(&pad_owner[idx], NULL);
		}
		idx = pad_slot_next(idx);
	}
}

static const struct pad_wrapper *pad_wrapper_of(const struct sock *sk)
{
	return container_of(inet_csk(sk)->icsk_ca_ops,
			    const struct pad_wrapper, ops);
}

static struct pad_core *pad_state(struct sock *sk,
				  const struct pad_wrapper *pw)
{
	if (pw->state_off >= 0)
		return (struct pad_core *)((u8 *)inet_csk_ca(sk) +
					   pw->state_off);
	return pad_slot_find(sk);
}

/* ---- callbacks ---- */

static void pad_init(struct sock *sk)
{
	const struct pad_wrapper *pw = pad_wrapper_of(sk);
	struct pad_core *c;

	if (pw->state_off >= 0)
		c = pad_state(sk, pw);
	else
		c = pad_slot_claim(sk);
	if (c)
		pad_reset(c);
	else
		this_cpu_inc(pad_stats.no_slot);
	if (pw->inner->init)
		pw->inner->init(sk);
	/*
	 * The socket holds a reference on pad_shim, dropped at close by the
	 * owner of whatever ops it then runs, and only our .release frees
	 * the slot: an inner CCA that replaced the ops (DCTCP does, for a
	 * peer without ECN) would make close put the wrong module.  Such
	 * CCAs are refused at load; one that is not known gets its change
	 * undone here, so the references stay right.
	 */
	if (unlikely(inet_csk(sk)->icsk_ca_ops != &pw->ops)) {
		pr_warn_once("inner \"%s\" replaced a socket's congestion control ops in .init; PAD keeps its wrapper\n",
			     pw->inner->name);
		this_cpu_inc(pad_stats.ops_restored);
		inet_csk(sk)->icsk_ca_ops = &pw->ops;
	}
}

static void pad_release(struct sock *sk)
{
	const struct pad_wrapper *pw = pad_wrapper_of(sk);

	if (pw->inner->release)
		pw->inner->release(sk);
	if (pw->state_off < 0)
		pad_slot_free(sk);
}

static void pad_count(enum pad_event ev)
{
	switch (ev) {
	case PAD_EV_ENGAGE:
		this_cpu_inc(pad_stats.engage);
		break;
	case PAD_EV_RELEASE:
		this_cpu_inc(pad_stats.release);
		break;
	case PAD_EV_PROBE:
		this_cpu_inc(pad_stats.probe);
		break;
	case PAD_EV_FLUSH:
		this_cpu_inc(pad_stats.flush);
		break;
	case PAD_EV_RESET:
		this_cpu_inc(pad_stats.reset);
		break;
	default:
		break;
	}
}

/* The ACK, as the core takes it. */
static void pad_ack_of(const struct sock *sk, const struct rate_sample *rs,
		       struct pad_ack *a)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	a->now_us = (u32)tp->tcp_mstamp;
	a->delivered = tp->delivered;
	a->acked = rs->acked_sacked;
	a->rs_delivered = rs->delivered;
	a->snd_interval_us = rs->snd_interval_us;
	a->interval_us = rs->interval_us > 0 ?
			 (u32)min_t(unsigned long, rs->interval_us, U32_MAX) :
			 0;
	a->srtt_us = tp->srtt_us >> 3;
	a->rtt_us = (s32)clamp_t(long, rs->rtt_us, -1, S32_MAX);
	a->ack_delayed = rs->is_ack_delayed;
	a->app_limited = rs->is_app_limited;
	a->recovery = inet_csk(sk)->icsk_ca_state >= TCP_CA_CWR ||
		      rs->losses > 0;
	/* cong_control runs inside tcp_ack(): rx_opt is this ACK's */
	a->has_tsv = tp->rx_opt.tstamp_ok && tp->rx_opt.saw_tstamp;
	a->tsv = tp->rx_opt.rcv_tsval;
}

static void pad_main(struct sock *sk, u32 ack, int flag,
		     const struct rate_sample *rs)
{
	const struct pad_wrapper *pw = pad_wrapper_of(sk);
	struct pad_core *c = pad_state(sk, pw);
	struct rate_sample shown;
	struct pad_params p;
	enum pad_event ev;
	struct pad_ack a;
	struct pad_out o;
	u32 acked;

	if (!c) {
		cc_call_cong_control(pw->inner, sk, ack, flag, rs);
		return;
	}
	p.k = READ_ONCE(pad_k.val);
	p.w = READ_ONCE(pad_w);
	p.lift = READ_ONCE(pad_lift.val);
	p.rx_clock = READ_ONCE(pad_rx_clock);
	pad_ack_of(sk, rs, &a);
	ev = pad_on_ack(c, &p, &a, &o);

	this_cpu_inc(pad_stats.acks);
	if (o.rx_bounded)
		this_cpu_inc(pad_stats.rx_bounded);
	if (c->held) {
		this_cpu_inc(pad_stats.positive_acks);
		if (o.queued)
			this_cpu_add(pad_stats.held_pkts, o.queued);
	}
	if (ev != PAD_EV_NONE) {
		pad_count(ev);
		trace_pad_event(sk, c, ev, pad_mu(c, &p));
	}

	acked = READ_ONCE(pad_hold_acked) ? o.acked : rs->acked_sacked;
	if (acked == rs->acked_sacked && o.delivered == rs->delivered &&
	    o.rtt_us == rs->rtt_us) {
		cc_call_cong_control(pw->inner, sk, ack, flag, rs);
		return;
	}
	/* the stack's sample is read-only: the inner CCA gets a copy */
	shown = *rs;
	shown.acked_sacked = acked;
	shown.delivered = o.delivered;
	shown.rtt_us = o.rtt_us;
	cc_call_cong_control(pw->inner, sk, ack, flag, &shown);
}

CC_DEFINE_CONG_CONTROL(pad_cong_control, pad_main);

/* An RTO or idle restart: PAD's state cleared, counted and traced. */
static void pad_clear(struct sock *sk, struct pad_core *c)
{
	pad_restart(c);
	pad_count(PAD_EV_RESET);
	trace_pad_event(sk, c, PAD_EV_RESET, 0);
}

/* An RTO clears PAD's history (paper sec. 1 and 3.3). */
static void pad_set_state(struct sock *sk, u8 new_state)
{
	const struct pad_wrapper *pw = pad_wrapper_of(sk);
	struct pad_core *c;

	if (new_state == TCP_CA_Loss &&
	    inet_csk(sk)->icsk_ca_state != TCP_CA_Loss) {
		c = pad_state(sk, pw);
		if (c)
			pad_clear(sk, c);
	}
	if (pw->inner->set_state)
		pw->inner->set_state(sk, new_state);
}

/* After idle the ACK rate history says nothing about the path: clear it. */
static void pad_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	const struct pad_wrapper *pw = pad_wrapper_of(sk);
	struct pad_core *c;

	if (ev == CA_EVENT_TX_START) {
		const struct tcp_sock *tp = tcp_sk(sk);

		c = pad_state(sk, pw);
		if (c && pad_idle(c, (u32)tp->tcp_mstamp, tp->srtt_us >> 3,
				  tcp_jiffies32 - tp->rcv_tstamp >= HZ))
			pad_clear(sk, c);
	}
	cc_call_cwnd_event(pw->inner, sk, ev);
}

CC_DEFINE_CWND_EVENT_TX_START(pad_cwnd_event_tx_start, pad_cwnd_event);

/* ---- finding and pinning the inner CCA ---- */

/*
 * The CCA a socket gets for TCP_CONGESTION @name, found the way userspace
 * finds it (no unexported symbols) on @sock, a kernel socket that never
 * connects.  The stack loads "tcp_<name>" when no CCA of that name is
 * registered (we run as root at insmod time).  @sock holds the CCA, and
 * a reference on its module, until it gets another or is released.
 */
static const struct tcp_congestion_ops * __init
pad_lookup(struct socket *sock, const char *name)
{
	const struct tcp_congestion_ops *ca;
	char buf[TCP_CA_NAME_MAX];
	int err;

	strscpy(buf, name, sizeof(buf));
	err = sock->ops->setsockopt(sock, SOL_TCP, TCP_CONGESTION,
				    KERNEL_SOCKPTR(buf), strlen(buf));
	if (err)
		return ERR_PTR(err);
	lock_sock(sock->sk);
	ca = inet_csk(sock->sk)->icsk_ca_ops;
	release_sock(sock->sk);
	return ca;
}

/* The inner CCA @name, its module pinned for as long as we wrap it. */
static int __init pad_find_inner(struct socket *sock, const char *name,
				 const struct tcp_congestion_ops **out)
{
	const struct tcp_congestion_ops *ca = pad_lookup(sock, name);
	int err;

	if (IS_ERR(ca)) {
		err = PTR_ERR(ca);
		pr_err("inner congestion control \"%s\" not found (%d): load it first (modprobe tcp_%s)\n",
		       name, err, name);
		return err;
	}
	if (strcmp(ca->name, name)) {
		pr_err("inner \"%s\": the socket got \"%s\"\n", name, ca->name);
		return -ENOENT;
	}
	if (cc_ops_owned_by_bpf(ca)) {
		/* a BPF struct_ops CCA can go away without a module ref */
		pr_err("inner \"%s\" refused: BPF congestion controls cannot be pinned\n",
		       name);
		return -EOPNOTSUPP;
	}
	if (ca->owner == THIS_MODULE) {
		pr_err("inner \"%s\" refused: PAD does not wrap itself\n", name);
		return -EINVAL;
	}
	if (!try_module_get(ca->owner)) {
		pr_err("inner \"%s\" is being unloaded\n", name);
		return -EBUSY;
	}
	*out = ca;
	return 0;
}

/* Is a CCA of this name registered? */
static bool __init pad_name_taken(struct socket *sock, const char *name)
{
	const struct tcp_congestion_ops *ca = pad_lookup(sock, name);

	return !IS_ERR(ca) && !strcmp(ca->name, name);
}

/*
 * CCAs known to replace a socket's icsk_ca_ops (DCTCP, for a peer without
 * ECN): the socket would then leave PAD's wrapper without its .release.
 */
static const char * const pad_switchers[] __initconst = { "dctcp" };

static bool __init pad_switches_ops(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pad_switchers); i++)
		if (!strcmp(name, pad_switchers[i]))
			return true;
	return false;
}

/* The key tcp_register_congestion_control() gives a name. */
static u32 __init pad_ca_key(const struct tcp_congestion_ops *ops)
{
	return jhash(ops->name, sizeof(ops->name), strlen(ops->name));
}

/* Build pad_<name> around an inner CCA; nothing is registered yet. */
static int __init pad_prepare(struct pad_wrapper *pw,
			      const struct pad_inner_spec *spec,
			      struct socket *sock)
{
	const struct tcp_congestion_ops *in;
	struct tcp_congestion_ops *ops = &pw->ops;
	int err, len;

	if (pad_switches_ops(spec->name)) {
		pr_err("inner \"%s\" refused: it replaces a socket's congestion control ops, which would bypass PAD's wrapper\n",
		       spec->name);
		return -EINVAL;
	}
	err = pad_find_inner(sock, spec->name, &in);
	if (err)
		return err;
	if (!in->cong_control) {
		pr_err("inner \"%s\" refused: it has no cong_control, and PAD reshapes the rate samples only cong_control receives\n",
		       spec->name);
		err = -EINVAL;
		goto put;
	}
	if (PAD_FITS_INLINE && spec->priv <= PAD_INLINE_OFF) {
		pw->state_off = PAD_INLINE_OFF;
	} else if (pad_nr_slots) {
		pw->state_off = -1;
	} else {
		pr_err("inner \"%s\" refused: its %u bytes of private state and PAD's %zu do not fit in %zu (and slots=0)\n",
		       spec->name, spec->priv, sizeof(struct pad_core),
		       ICSK_CA_PRIV_SIZE);
		err = -ENOSPC;
		goto put;
	}
	/*
	 * The parser keeps names within PAD_NAME_MAX, so this never cuts;
	 * checking says so to gcc, which on some targets (ARMv7) cannot
	 * bound spec->name and warns (-Wformat-truncation, W=1).
	 */
	len = snprintf(ops->name, sizeof(ops->name), PAD_PREFIX "%s", spec->name);
	if (len >= (int)sizeof(ops->name)) {
		pr_err("inner \"%s\" refused: pad_%s is longer than %d characters\n",
		       spec->name, spec->name, TCP_CA_NAME_MAX - 1);
		err = -ENAMETOOLONG;
		goto put;
	}
	if (pad_name_taken(sock, ops->name)) {
		pr_err("\"%s\" is already registered\n", ops->name);
		err = -EEXIST;
		goto put;
	}
	/* the inner CCA's callbacks, called directly */
	ops->ssthresh = in->ssthresh;
	ops->cong_avoid = in->cong_avoid;
	ops->in_ack_event = in->in_ack_event;
	ops->pkts_acked = in->pkts_acked;
	ops->min_tso_segs = in->min_tso_segs;
	ops->undo_cwnd = in->undo_cwnd;
	ops->sndbuf_expand = in->sndbuf_expand;
	ops->get_info = in->get_info;
	/* PAD's, which call the inner CCA's */
	ops->init = pad_init;
	ops->release = pad_release;
	ops->set_state = pad_set_state;
	ops->cwnd_event = pad_cwnd_event;
	cc_ops_set_tx_start(ops, pad_cwnd_event_tx_start);
	ops->cong_control = pad_cong_control;
	ops->flags = in->flags;
	ops->owner = THIS_MODULE;
	pw->inner = in;
	return 0;
put:
	module_put(in->owner);
	return err;
}

static void pad_unbind(struct pad_wrapper *pw)
{
	if (pw->registered)
		tcp_unregister_congestion_control(&pw->ops);
	pw->registered = false;
	if (pw->inner)
		module_put(pw->inner->owner);
	pw->inner = NULL;
}

static void pad_free_table(void)
{
	kvfree(pad_owner);
	kvfree(pad_table);
	pad_owner = NULL;
	pad_table = NULL;
	pad_nr_slots = 0;
}

static int __init pad_alloc_table(void)
{
	pad_nr_slots = pad_slots;
	if (!pad_nr_slots)
		return 0;
	pad_owner = kvcalloc(pad_nr_slots, sizeof(*pad_owner), GFP_KERNEL);
	pad_table = kvcalloc(pad_nr_slots, sizeof(*pad_table), GFP_KERNEL);
	if (!pad_owner || !pad_table) {
		pad_free_table();
		return -ENOMEM;
	}
	return 0;
}

/* tcp_register_congestion_control() refuses a key that is taken. */
static int __init pad_check_key(int i)
{
	int j;

	for (j = 0; j < i; j++) {
		if (pad_ca_key(&pad_wrappers[i].ops) !=
		    pad_ca_key(&pad_wrappers[j].ops))
			continue;
		pr_err("%s and %s have the same key (jhash of the name): register them in two loads\n",
		       pad_wrappers[j].ops.name, pad_wrappers[i].ops.name);
		return -EEXIST;
	}
	return 0;
}

/* Every check before any registration: a failed load leaves no CCA. */
static int __init pad_prepare_all(const struct pad_inner_spec *spec, int nr)
{
	struct socket *sock;
	int i, err;

	err = sock_create_kern(&init_net, PF_INET, SOCK_STREAM, IPPROTO_TCP,
			       &sock);
	if (err) {
		pr_err("no kernel TCP socket to look up congestion controls (%d)\n",
		       err);
		return err;
	}
	for (i = 0; i < nr; i++) {
		err = pad_prepare(&pad_wrappers[i], &spec[i], sock);
		if (err)
			break;
		pad_nr_wrappers = i + 1;
		err = pad_check_key(i);
		if (err)
			break;
	}
	sock_release(sock);
	return err;
}

static int __init pad_register(void)
{
	struct pad_inner_spec spec[PAD_MAX_INNER];
	int i, nr, err;

	err = pad_parse_inner(pad_inner, spec, &nr);
	if (err)
		return err;
	err = pad_alloc_table();
	if (err)
		return err;
	err = pad_prepare_all(spec, nr);
	if (err)
		goto fail;
	for (i = 0; i < nr; i++) {
		err = tcp_register_congestion_control(&pad_wrappers[i].ops);
		if (err) {
			pr_err("registering %s failed (%d)\n",
			       pad_wrappers[i].ops.name, err);
			goto unregister;
		}
		pad_wrappers[i].registered = true;
	}
	for (i = 0; i < nr; i++)
		pr_info("%s registered (PAD state %s)\n",
			pad_wrappers[i].ops.name,
			pad_wrappers[i].state_off >= 0 ? "in icsk_ca_priv" :
			"in the slot table");
	return 0;
unregister:
	/*
	 * Only a race or a key taken by a CCA of another name gets here.  A
	 * socket may have taken an earlier wrapper, and with it a reference
	 * on this module, which a failed init would free under it.  Once
	 * unregistered (which waits for RCU readers, and every lookup is
	 * one), only the reference the loader holds during init is left
	 * unless a socket took one: then stay loaded, with nothing
	 * registered, until it closes.
	 */
	for (i = 0; i < nr; i++) {
		if (pad_wrappers[i].registered)
			tcp_unregister_congestion_control(&pad_wrappers[i].ops);
		pad_wrappers[i].registered = false;
	}
	if (module_refcount(THIS_MODULE) > 1) {
		pr_err("a socket took a wrapper before the failure: loaded with none registered; rmmod pad_shim once it closes\n");
		return 0;
	}
fail:
	for (i = 0; i < pad_nr_wrappers; i++)
		pad_unbind(&pad_wrappers[i]);
	pad_nr_wrappers = 0;
	pad_free_table();
	return err;
}

static void __exit pad_unregister(void)
{
	int i;

	/* no socket uses a wrapper now: each would hold a module ref */
	for (i = 0; i < pad_nr_wrappers; i++)
		pad_unbind(&pad_wrappers[i]);
	pad_free_table();
}

module_init(pad_register);
module_exit(pad_unregister);

MODULE_AUTHOR("pad_shim contributors");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("PAD: ACK-rate shim that reshapes rate samples for a measurement-based CCA (pad_<inner>)");
