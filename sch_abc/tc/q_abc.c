// SPDX-License-Identifier: GPL-2.0
/*
 * q_abc.c	tc plugin for the ABC qdisc (sch_abc), loaded by stock tc as
 *		q_abc.so from $TC_LIB_DIR or tc's lib dir.
 *
 * Needs only gcc and libc: the iproute2 structures and helpers it uses
 * are declared in iproute2_abi.h, as in iproute2 6.1 and 6.15.
 *
 * Numbers, rates and times are parsed here, exactly (no floating point),
 * rather than with tc's get_rate64()/get_time(): those convert negative
 * or huge input through a double without a check.  The accepted syntax
 * is tc's.
 */

#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include "iproute2_abi.h"
#include "uapi/abc_sched.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static void print_string(enum output_type t, const char *key,
			 const char *fmt, const char *value)
{
	print_color_string(t, ABC_COLOR_NONE, key, fmt, value);
}

static void print_uint(enum output_type t, const char *key, const char *fmt,
		       unsigned int value)
{
	print_color_uint(t, ABC_COLOR_NONE, key, fmt, value);
}

static void print_u64(enum output_type t, const char *key, const char *fmt,
		      uint64_t value)
{
	print_color_u64(t, ABC_COLOR_NONE, key, fmt, value);
}

static void print_bool(enum output_type t, const char *key, const char *fmt,
		       bool value)
{
	print_color_bool(t, ABC_COLOR_NONE, key, fmt, value);
}

static void print_float(enum output_type t, const char *key, const char *fmt,
			double value)
{
	print_color_float(t, ABC_COLOR_NONE, key, fmt, value);
}

/* ---- usage ---- */

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... abc [ limit PACKETS ] [ bandwidth RATE | estimate ]\n"
		"               [ eta FRACTION ] [ delta TIME ] [ dt TIME ]\n"
		"               [ window TIME ] [ tokens N ] [ topk N ]\n"
		"               [ classic on | off ] [ ect1 on | off ]\n"
		"               [ split_gso on | off | auto ]\n"
		"  RATE is tc's rate syntax (e.g. 50mbit, 6MBps; a bare number is bit/s);\n"
		"  bandwidth 0 or estimate: estimate the capacity, do not shape.\n"
		"  TIME is tc's time syntax (e.g. 20ms, 1.5s; a bare number is us).\n"
		"  FRACTION is a decimal, e.g. 0.95.  classic on (the default) finds\n"
		"  ECN flows that are not ABC and serves them unmarked, with Not-ECT.\n"
		"  ect1 on brakes an ECT(1) packet by writing ECT(0), the paper's\n"
		"  encoding (default off: CE).  split_gso on marks every segment\n"
		"  of a GSO packet, off keeps it whole and marks it as one, auto\n"
		"  (the default) is off above bandwidth 1gbit, on otherwise.\n"
		"  Omitted options keep the\n"
		"  kernel's defaults (add) or the current value (change).\n");
}

/* ---- exact decimal parsing ---- */

static int bad_value(const char *opt, const char *arg, const char *why)
{
	fprintf(stderr, "abc: illegal value for \"%s\": \"%s\" (%s)\n",
		opt, arg, why);
	return -1;
}

/*
 * Parse the number at the start of arg, "D", "D.D", "D." or ".D" (digits
 * only: no sign, no exponent), as mant / 10^fdigits; *end is what follows
 * (a unit).  Trailing zeros of the fraction are dropped, so
 * "1.000000000000000000000" fits.  On error, prints why (expected, when
 * there is no number) and returns -1.
 */
static int parse_decimal(const char *opt, const char *arg, const char *expected,
			 __u64 *mant, unsigned int *fdigits, const char **end)
{
	unsigned int zeros = 0, fd = 0;
	bool digit = false, frac = false;
	const char *s = arg;
	__u64 m = 0;

	for (;; s++) {
		unsigned int d, i, k;

		if (*s == '.' && !frac) {
			frac = true;
			continue;
		}
		if (*s < '0' || *s > '9')
			break;
		d = *s - '0';
		digit = true;
		if (frac && d == 0) {
			zeros++;
			continue;
		}
		/* Scale by the zeros held back, then this digit */
		k = frac ? zeros + 1 : 1;
		for (i = 0; i < k; i++) {
			if (m > UINT64_MAX / 10)
				return bad_value(opt, arg, "too many digits");
			m *= 10;
		}
		if (m > UINT64_MAX - d)
			return bad_value(opt, arg, "too many digits");
		m += d;
		if (frac) {
			fd += k;
			zeros = 0;
			if (fd > 30)
				return bad_value(opt, arg, "too many digits");
		}
	}
	if (!digit)
		return bad_value(opt, arg, expected);
	*mant = m;
	*fdigits = fd;
	*end = s;
	return 0;
}

enum {
	ABC_DEC_OK,
	ABC_DEC_FRACTION,	/* finer than the unit it is encoded in */
	ABC_DEC_RANGE,		/* does not fit the attribute */
};

/*
 * A 128-bit unsigned integer as two 64-bit halves.  Not unsigned __int128:
 * 32-bit targets (i386, ARMv7, the MIPS routers ABC runs on) have none.
 */
struct abc_u128 {
	__u64 hi, lo;
};

static struct abc_u128 mul_u64_u64(__u64 a, __u64 b)
{
	__u64 a_lo = (__u32)a, a_hi = a >> 32, b_lo = (__u32)b, b_hi = b >> 32;
	__u64 ll = a_lo * b_lo, lh = a_lo * b_hi, hl = a_hi * b_lo;
	__u64 mid = (ll >> 32) + (__u32)lh + (__u32)hl;
	struct abc_u128 r;

	r.lo = (mid << 32) | (__u32)ll;
	r.hi = a_hi * b_hi + (lh >> 32) + (hl >> 32) + (mid >> 32);
	return r;
}

/* *v /= d, returning the remainder; d > 0 */
static __u32 divmod_u128_u32(struct abc_u128 *v, __u32 d)
{
	__u32 limb[4] = { v->hi >> 32, (__u32)v->hi, v->lo >> 32, (__u32)v->lo };
	__u64 rem = 0;
	int i;

	/* Long division by 32-bit limbs: rem < d keeps each step in 64 bits */
	for (i = 0; i < 4; i++) {
		__u64 cur = (rem << 32) | limb[i];

		limb[i] = cur / d;
		rem = cur % d;
	}
	v->hi = (__u64)limb[0] << 32 | limb[1];
	v->lo = (__u64)limb[2] << 32 | limb[3];
	return rem;
}

/*
 * res = mant * mult / (div * 10^fd), rounded down; ABC_DEC_FRACTION when
 * that dropped a remainder (res is still set), ABC_DEC_RANGE above max.
 */
static int decimal_scale(__u64 mant, unsigned int fd, __u64 mult, __u32 div,
			 __u64 max, __u64 *res)
{
	struct abc_u128 v = mul_u64_u64(mant, mult);
	bool whole = true;

	while (fd--)
		whole = !divmod_u128_u32(&v, 10) && whole;
	whole = !divmod_u128_u32(&v, div) && whole;
	if (v.hi || v.lo > max)
		return ABC_DEC_RANGE;
	*res = v.lo;
	return whole ? ABC_DEC_OK : ABC_DEC_FRACTION;
}

/* A packet count or other plain number */
static int parse_count(const char *opt, const char *arg, __u32 *val)
{
	const char *end;
	unsigned int fd;
	__u64 mant, v;

	if (parse_decimal(opt, arg, "expected a whole number", &mant, &fd, &end))
		return -1;
	if (*end)
		return bad_value(opt, arg, "expected a whole number");
	switch (decimal_scale(mant, fd, 1, 1, UINT32_MAX, &v)) {
	case ABC_DEC_FRACTION:
		return bad_value(opt, arg, "expected a whole number");
	case ABC_DEC_RANGE:
		return bad_value(opt, arg, "does not fit 32 bits");
	}
	*val = v;
	return 0;
}

/* eta as parts per million: "0.95" -> 950000 */
static int parse_fraction(const char *opt, const char *arg, __u32 *ppm)
{
	const char *end;
	unsigned int fd;
	__u64 mant, v;

	if (parse_decimal(opt, arg, "expected a decimal fraction such as 0.95",
			  &mant, &fd, &end))
		return -1;
	if (*end)
		return bad_value(opt, arg, "expected a decimal fraction such as 0.95");
	switch (decimal_scale(mant, fd, 1000000, 1, UINT32_MAX, &v)) {
	case ABC_DEC_FRACTION:
		return bad_value(opt, arg, "more precise than 0.000001");
	case ABC_DEC_RANGE:
		return bad_value(opt, arg, "too large");
	}
	*ppm = v;
	return 0;
}

/* tc's time syntax (get_time()): a bare number is microseconds */
static const struct {
	const char *name;
	__u64 usec;
} time_units[] = {
	{ "s", 1000000 }, { "sec", 1000000 }, { "secs", 1000000 },
	{ "ms", 1000 }, { "msec", 1000 }, { "msecs", 1000 },
	{ "us", 1 }, { "usec", 1 }, { "usecs", 1 },
	{ "", 1 },
};

static int parse_time_us(const char *opt, const char *arg, __u32 *us)
{
	const char *end;
	unsigned int fd, i;
	__u64 mant, v;

	if (parse_decimal(opt, arg, "expected a time such as 20ms", &mant, &fd,
			  &end))
		return -1;
	for (i = 0; i < ARRAY_SIZE(time_units); i++)
		if (strcasecmp(end, time_units[i].name) == 0)
			break;
	if (i == ARRAY_SIZE(time_units))
		return bad_value(opt, arg, "unknown time unit; use s, ms or us");
	switch (decimal_scale(mant, fd, time_units[i].usec, 1, UINT32_MAX, &v)) {
	case ABC_DEC_FRACTION:
		return bad_value(opt, arg, "finer than 1us");
	case ABC_DEC_RANGE:
		return bad_value(opt, arg, "too long for 32-bit microseconds");
	}
	*us = v;
	return 0;
}

/* tc's rate suffixes (get_rate64()), in bit/s; a bare number is bit/s */
static const struct {
	const char *name;
	__u64 bits;
} rate_units[] = {
	{ "bit", 1 },
	{ "kibit", 1ULL << 10 }, { "kbit", 1000ULL },
	{ "mibit", 1ULL << 20 }, { "mbit", 1000000ULL },
	{ "gibit", 1ULL << 30 }, { "gbit", 1000000000ULL },
	{ "tibit", 1ULL << 40 }, { "tbit", 1000000000000ULL },
	{ "bps", 8 },
	{ "kibps", 8ULL << 10 }, { "kbps", 8000ULL },
	{ "mibps", 8ULL << 20 }, { "mbps", 8000000ULL },
	{ "gibps", 8ULL << 30 }, { "gbps", 8000000000ULL },
	{ "tibps", 8ULL << 40 }, { "tbps", 8000000000000ULL },
	{ "", 1 },
};

/* bandwidth in bytes/s; "estimate" (or any zero rate) is 0 */
static int parse_bandwidth(const char *opt, const char *arg, __u64 *bps)
{
	const char *end;
	unsigned int fd, i;
	__u64 mant;

	if (strcmp(arg, "estimate") == 0) {
		*bps = 0;
		return 0;
	}
	if (parse_decimal(opt, arg, "expected a rate such as 50mbit, or estimate",
			  &mant, &fd, &end))
		return -1;
	for (i = 0; i < ARRAY_SIZE(rate_units); i++)
		if (strcasecmp(end, rate_units[i].name) == 0)
			break;
	if (i == ARRAY_SIZE(rate_units))
		return bad_value(opt, arg, "unknown rate unit; use e.g. kbit, mbit, gbit, MBps");
	switch (decimal_scale(mant, fd, rate_units[i].bits, 8, UINT64_MAX, bps)) {
	case ABC_DEC_FRACTION:
		/*
		 * Rounded down to whole bytes/s, as tc does for every rate
		 * (netlab writes any integer bit/s); but never to 0, which
		 * would silently mean estimate mode.
		 */
		if (!*bps)
			return bad_value(opt, arg,
					 "below 1 byte/s (8bit); for estimate mode say estimate");
		break;
	case ABC_DEC_RANGE:
		return bad_value(opt, arg, "too large");
	}
	return 0;
}

/* on or off */
static int parse_on_off(const char *opt, const char *arg, __u32 *val)
{
	if (strcmp(arg, "on") == 0)
		*val = 1;
	else if (strcmp(arg, "off") == 0)
		*val = 0;
	else
		return bad_value(opt, arg, "expected on or off");
	return 0;
}

/* on, off or auto */
static int parse_split_gso(const char *opt, const char *arg, __u32 *val)
{
	if (strcmp(arg, "on") == 0)
		*val = TC_ABC_SPLIT_GSO_ON;
	else if (strcmp(arg, "off") == 0)
		*val = TC_ABC_SPLIT_GSO_OFF;
	else if (strcmp(arg, "auto") == 0)
		*val = TC_ABC_SPLIT_GSO_AUTO;
	else
		return bad_value(opt, arg, "expected on, off or auto");
	return 0;
}

static const char *split_gso_name(__u32 v)
{
	switch (v) {
	case TC_ABC_SPLIT_GSO_OFF:
		return "off";
	case TC_ABC_SPLIT_GSO_ON:
		return "on";
	case TC_ABC_SPLIT_GSO_AUTO:
		return "auto";
	}
	return "unknown";
}

/* ---- add / change / replace ---- */

static int abc_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			 struct nlmsghdr *n, const char *dev)
{
	bool has_limit = false, has_bw = false, has_eta = false;
	bool has_delta = false, has_dt = false, has_window = false;
	bool has_tokens = false, has_topk = false, has_classic = false;
	bool has_ect1 = false, has_split = false;
	__u32 limit = 0, eta = 0, delta = 0, dt = 0, window = 0;
	__u32 tokens = 0, topk = 0, classic = 0, ect1 = 0, split = 0;
	struct rtattr *tail;
	__u64 bw = 0;

	(void)qu;
	(void)dev;

	for (; argc > 0; argc--, argv++) {
		const char *opt = *argv;
		int err;

		if (strcmp(opt, "help") == 0) {
			explain();
			return -1;
		}
		if (strcmp(opt, "limit") && strcmp(opt, "bandwidth") &&
		    strcmp(opt, "eta") && strcmp(opt, "delta") &&
		    strcmp(opt, "dt") && strcmp(opt, "window") &&
		    strcmp(opt, "tokens") && strcmp(opt, "topk") &&
		    strcmp(opt, "classic") && strcmp(opt, "ect1") &&
		    strcmp(opt, "split_gso")) {
			fprintf(stderr, "abc: unknown option \"%s\"\n", opt);
			explain();
			return -1;
		}
		if (argc < 2) {
			fprintf(stderr, "abc: option \"%s\" needs a value\n", opt);
			explain();
			return -1;
		}
		argc--;
		argv++;

		if (strcmp(opt, "limit") == 0) {
			err = parse_count(opt, *argv, &limit);
			has_limit = true;
		} else if (strcmp(opt, "bandwidth") == 0) {
			err = parse_bandwidth(opt, *argv, &bw);
			has_bw = true;
		} else if (strcmp(opt, "eta") == 0) {
			err = parse_fraction(opt, *argv, &eta);
			has_eta = true;
		} else if (strcmp(opt, "delta") == 0) {
			err = parse_time_us(opt, *argv, &delta);
			has_delta = true;
		} else if (strcmp(opt, "dt") == 0) {
			err = parse_time_us(opt, *argv, &dt);
			has_dt = true;
		} else if (strcmp(opt, "window") == 0) {
			err = parse_time_us(opt, *argv, &window);
			has_window = true;
		} else if (strcmp(opt, "tokens") == 0) {
			err = parse_count(opt, *argv, &tokens);
			has_tokens = true;
		} else if (strcmp(opt, "topk") == 0) {
			err = parse_count(opt, *argv, &topk);
			has_topk = true;
		} else if (strcmp(opt, "classic") == 0) {
			err = parse_on_off(opt, *argv, &classic);
			has_classic = true;
		} else if (strcmp(opt, "ect1") == 0) {
			err = parse_on_off(opt, *argv, &ect1);
			has_ect1 = true;
		} else {
			err = parse_split_gso(opt, *argv, &split);
			has_split = true;
		}
		if (err) {
			explain();
			return -1;
		}
	}

	/* Only what was given: change leaves the rest as it is. */
	tail = addattr_nest(n, ABC_OPT_MAXLEN, TCA_OPTIONS | NLA_F_NESTED);
	if (has_limit)
		addattr_l(n, ABC_OPT_MAXLEN, TCA_ABC_LIMIT, &limit, sizeof(limit));
	if (has_bw)
		addattr_l(n, ABC_OPT_MAXLEN, TCA_ABC_BANDWIDTH, &bw, sizeof(bw));
	if (has_eta)
		addattr_l(n, ABC_OPT_MAXLEN, TCA_ABC_ETA, &eta, sizeof(eta));
	if (has_delta)
		addattr_l(n, ABC_OPT_MAXLEN, TCA_ABC_DELTA, &delta, sizeof(delta));
	if (has_dt)
		addattr_l(n, ABC_OPT_MAXLEN, TCA_ABC_DT, &dt, sizeof(dt));
	if (has_window)
		addattr_l(n, ABC_OPT_MAXLEN, TCA_ABC_WINDOW, &window,
			  sizeof(window));
	if (has_tokens)
		addattr_l(n, ABC_OPT_MAXLEN, TCA_ABC_TOKEN_LIMIT, &tokens,
			  sizeof(tokens));
	if (has_topk)
		addattr_l(n, ABC_OPT_MAXLEN, TCA_ABC_TOPK, &topk, sizeof(topk));
	if (has_classic)
		addattr_l(n, ABC_OPT_MAXLEN, TCA_ABC_CLASSIC, &classic,
			  sizeof(classic));
	if (has_ect1)
		addattr_l(n, ABC_OPT_MAXLEN, TCA_ABC_ECT1, &ect1, sizeof(ect1));
	if (has_split)
		addattr_l(n, ABC_OPT_MAXLEN, TCA_ABC_SPLIT_GSO, &split,
			  sizeof(split));
	addattr_nest_end(n, tail);
	return 0;
}

/* ---- show ---- */

/* parts per million as a decimal fraction: 950000 -> "0.95" */
static const char *sprint_ppm(__u32 ppm, char *buf, size_t len)
{
	unsigned int frac = ppm % 1000000, digits = 6;

	if (!frac) {
		snprintf(buf, len, "%u", ppm / 1000000);
		return buf;
	}
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	snprintf(buf, len, "%u.%0*u", ppm / 1000000, (int)digits, frac);
	return buf;
}

/* Fraction: text as an exact decimal, JSON as a number */
static void print_ppm(const char *key, const char *fmt, __u32 ppm)
{
	char buf[32];

	print_float(PRINT_JSON, key, NULL, ppm / 1e6);
	print_string(PRINT_FP, NULL, fmt, sprint_ppm(ppm, buf, sizeof(buf)));
}

/* Time: text in tc's time format, JSON in microseconds */
static void print_time_us(const char *key, const char *fmt, __u32 us)
{
	char buf[ABC_SPRINT_BSIZE];

	print_uint(PRINT_JSON, key, NULL, us);
	print_string(PRINT_FP, NULL, fmt, sprint_time(us, buf));
}

static void parse_nested(struct rtattr *tb[], int max, struct rtattr *nest)
{
	struct rtattr *rta = RTA_DATA(nest);
	int len = RTA_PAYLOAD(nest);

	memset(tb, 0, sizeof(*tb) * (max + 1));
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		unsigned short type = rta->rta_type & NLA_TYPE_MASK;

		if (type <= max && !tb[type])
			tb[type] = rta;
	}
}

static bool get_u32_attr(struct rtattr *tb[], int type, __u32 *val)
{
	if (!tb[type] || RTA_PAYLOAD(tb[type]) < sizeof(__u32))
		return false;
	memcpy(val, RTA_DATA(tb[type]), sizeof(*val));
	return true;
}

static int abc_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_ABC_MAX + 1];
	__u32 v;

	(void)qu;
	(void)f;

	if (!opt)
		return 0;
	parse_nested(tb, TCA_ABC_MAX, opt);

	if (get_u32_attr(tb, TCA_ABC_LIMIT, &v))
		print_uint(PRINT_ANY, "limit", "limit %u ", v);
	if (tb[TCA_ABC_BANDWIDTH] &&
	    RTA_PAYLOAD(tb[TCA_ABC_BANDWIDTH]) >= sizeof(__u64)) {
		__u64 bw;

		memcpy(&bw, RTA_DATA(tb[TCA_ABC_BANDWIDTH]), sizeof(bw));
		if (bw) {
			tc_print_rate(PRINT_ANY, "bandwidth", "bandwidth %s ", bw);
		} else {
			print_u64(PRINT_JSON, "bandwidth", NULL, 0);
			print_string(PRINT_FP, NULL, "bandwidth %s ", "estimate");
		}
	}
	if (get_u32_attr(tb, TCA_ABC_ETA, &v))
		print_ppm("eta", "eta %s ", v);
	if (get_u32_attr(tb, TCA_ABC_DELTA, &v))
		print_time_us("delta", "delta %s ", v);
	if (get_u32_attr(tb, TCA_ABC_DT, &v))
		print_time_us("dt", "dt %s ", v);
	if (get_u32_attr(tb, TCA_ABC_WINDOW, &v))
		print_time_us("window", "window %s ", v);
	if (get_u32_attr(tb, TCA_ABC_TOKEN_LIMIT, &v))
		print_uint(PRINT_ANY, "tokens", "tokens %u ", v);
	if (get_u32_attr(tb, TCA_ABC_TOPK, &v))
		print_uint(PRINT_ANY, "topk", "topk %u ", v);
	if (get_u32_attr(tb, TCA_ABC_CLASSIC, &v)) {
		print_bool(PRINT_JSON, "classic", NULL, v);
		print_string(PRINT_FP, NULL, "classic %s ", v ? "on" : "off");
	}
	if (get_u32_attr(tb, TCA_ABC_ECT1, &v)) {
		print_bool(PRINT_JSON, "ect1", NULL, v);
		print_string(PRINT_FP, NULL, "ect1 %s ", v ? "on" : "off");
	}
	if (get_u32_attr(tb, TCA_ABC_SPLIT_GSO, &v)) {
		print_string(PRINT_ANY, "split_gso", "split_gso %s ",
			     split_gso_name(v));
	}
	return 0;
}

static int abc_print_xstats(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats)
{
	static const char * const qname[TC_ABC_Q_MAX] = {
		[TC_ABC_Q_ABC] = "abc",
		[TC_ABC_Q_OTHER] = "other",
	};
	struct tc_abc_xstats st = {};
	size_t len;
	int i;

	(void)qu;
	(void)f;

	if (!xstats)
		return 0;
	/* A shorter block (another version of the module) reads as zeros */
	len = RTA_PAYLOAD(xstats);
	memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));

	print_u64(PRINT_ANY, "accelerates", "  accelerates %" PRIu64, st.accelerates);
	print_u64(PRINT_ANY, "brakes", " brakes %" PRIu64, st.brakes);
	print_ppm("accel_frac", " accel_frac %s", st.accel_frac);
	print_nl();
	tc_print_rate(PRINT_ANY, "target_rate", "  target_rate %s", st.target_rate);
	tc_print_rate(PRINT_ANY, "capacity", " capacity %s", st.capacity);
	print_bool(PRINT_JSON, "estimating", NULL, st.estimating);
	if (st.estimating)
		print_string(PRINT_FP, NULL, "%s", " estimated");
	tc_print_rate(PRINT_ANY, "dequeue_rate", " dequeue_rate %s",
		      st.dequeue_rate);
	print_nl();
	print_time_us("qdelay", "  qdelay %s", st.qdelay_us);
	print_uint(PRINT_ANY, "drop_overlimit", " drop_overlimit %u", st.drops);

	open_json_array(PRINT_JSON, "queues");
	for (i = 0; i < TC_ABC_Q_MAX; i++) {
		open_json_object(NULL);
		print_nl();
		print_string(PRINT_ANY, "queue", "  queue %s", qname[i]);
		print_uint(PRINT_ANY, "qlen", " qlen %u", st.qlen[i]);
		print_ppm("weight", " weight %s", st.weight[i]);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	print_nl();
	print_uint(PRINT_ANY, "classic_found", "  classic_found %u",
		   st.classic_found);
	print_uint(PRINT_ANY, "classic_flows", " classic_flows %u",
		   st.classic_flows);
	print_u64(PRINT_ANY, "classic_packets", " classic_packets %" PRIu64,
		  st.classic_packets);
	return 0;
}

struct qdisc_util abc_qdisc_util = {
	.id		= "abc",
	.parse_qopt	= abc_parse_opt,
	.print_qopt	= abc_print_opt,
	.print_xstats	= abc_print_xstats,
};
