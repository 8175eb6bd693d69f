// SPDX-License-Identifier: GPL-2.0
/*
 * The tc plugin (sch_abc/tc/q_abc.c) on the host, against stand-ins for
 * the tc helpers it calls: every option encodes to the exact attribute
 * value, malformed input is refused with nothing added to the request,
 * and what show prints parses back to the same value.  The real tc and
 * the real qdisc are exercised by tests/vm/tc_abc.sh.
 */
#include <stdarg.h>
#include <string.h>

#include "unit_tap.h"
#include "../../sch_abc/tc/q_abc.c"

/* ---- stand-ins for tc's helpers (same behaviour, text output only) ---- */

static char out[4096];

static void outf(const char *fmt, ...)
{
	size_t len = strlen(out);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out + len, sizeof(out) - len, fmt, ap);
	va_end(ap);
}

static int fp(enum output_type t)
{
	return t == PRINT_FP || t == PRINT_ANY;
}

int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data,
	      int alen)
{
	int len = RTA_LENGTH(alen);
	struct rtattr *rta;

	if ((int)(NLMSG_ALIGN(n->nlmsg_len) + RTA_ALIGN(len)) > maxlen)
		return -1;
	rta = (struct rtattr *)((char *)n + NLMSG_ALIGN(n->nlmsg_len));
	rta->rta_type = type;
	rta->rta_len = len;
	if (alen)
		memcpy(RTA_DATA(rta), data, alen);
	n->nlmsg_len = NLMSG_ALIGN(n->nlmsg_len) + RTA_ALIGN(len);
	return 0;
}

struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type)
{
	struct rtattr *nest = (struct rtattr *)((char *)n +
						NLMSG_ALIGN(n->nlmsg_len));

	addattr_l(n, maxlen, type, NULL, 0);
	return nest;
}

int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest)
{
	nest->rta_len = (char *)n + NLMSG_ALIGN(n->nlmsg_len) - (char *)nest;
	return n->nlmsg_len;
}

void open_json_object(const char *str) { (void)str; }
void close_json_object(void) { }
void open_json_array(enum output_type t, const char *d) { (void)t; (void)d; }
void close_json_array(enum output_type t, const char *d) { (void)t; (void)d; }
void print_nl(void) { outf("\n"); }

int print_color_string(enum output_type t, int color, const char *key,
		       const char *fmt, const char *value)
{
	(void)color; (void)key;
	if (fp(t))
		outf(fmt, value);
	return 0;
}

int print_color_uint(enum output_type t, int color, const char *key,
		     const char *fmt, unsigned int value)
{
	(void)color; (void)key;
	if (fp(t))
		outf(fmt, value);
	return 0;
}

int print_color_u64(enum output_type t, int color, const char *key,
		    const char *fmt, uint64_t value)
{
	(void)color; (void)key;
	if (fp(t))
		outf(fmt, value);
	return 0;
}

int print_color_bool(enum output_type t, int color, const char *key,
		     const char *fmt, bool value)
{
	(void)color; (void)key;
	if (fp(t))
		outf(fmt, value ? "true" : "false");
	return 0;
}

int print_color_float(enum output_type t, int color, const char *key,
		      const char *fmt, double value)
{
	(void)color; (void)key;
	if (fp(t))
		outf(fmt, value);
	return 0;
}

/* tc's print_color_rate() without -iec */
void tc_print_rate(enum output_type t, const char *key, const char *fmt,
		   unsigned long long rate)
{
	static const char * const units[] = { "", "K", "M", "G", "T" };
	char buf[64];
	unsigned int i;

	(void)key;
	rate <<= 3;
	for (i = 0; i < ARRAY_SIZE(units) - 1; i++) {
		if (rate < 1000)
			break;
		if (rate % 1000 && rate < 1000 * 1000)
			break;
		rate /= 1000;
	}
	snprintf(buf, sizeof(buf), "%.0f%sbit", (double)rate, units[i]);
	if (fp(t))
		outf(fmt, buf);
}

/* tc's sprint_time() */
char *sprint_time(__u32 time, char *buf)
{
	double tmp = time;

	if (tmp >= 1000000)
		snprintf(buf, ABC_SPRINT_BSIZE, "%.3gs", tmp / 1000000);
	else if (tmp >= 1000)
		snprintf(buf, ABC_SPRINT_BSIZE, "%.3gms", tmp / 1000);
	else
		snprintf(buf, ABC_SPRINT_BSIZE, "%uus", time);
	return buf;
}

/* out on one line, for a TAP comment */
static const char *flat(void)
{
	static char buf[sizeof(out)];
	char *p;

	snprintf(buf, sizeof(buf), "%s", out);
	for (p = buf; *p; p++)
		if (*p == '\n')
			*p = '|';
	return buf;
}

/* ---- a request as tc builds it ---- */

static union {
	struct nlmsghdr n;
	char buf[2048];
} req;

static void req_reset(void)
{
	memset(&req, 0, sizeof(req));
	req.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg));
}

/* Run the plugin's parser on a space-separated option string. */
static int parse(const char *opts)
{
	char copy[512], *argv[32], *tok, *save;
	int argc = 0, err;
	FILE *saved = stderr;

	snprintf(copy, sizeof(copy), "%s", opts);
	for (tok = strtok_r(copy, " ", &save); tok && argc < 32;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	req_reset();
	/* The messages are checked in the VM test; keep TAP clean here. */
	stderr = fopen("/dev/null", "w");
	err = abc_qdisc_util.parse_qopt(&abc_qdisc_util, argc, argv, &req.n,
					"abc0");
	fclose(stderr);
	stderr = saved;
	return err;
}

static struct rtattr *options(void)
{
	return (struct rtattr *)((char *)&req.n +
				 NLMSG_LENGTH(sizeof(struct tcmsg)));
}

/* Value of attribute type in the TCA_OPTIONS nest of the last parse */
static int attr(int type, __u64 *val)
{
	struct rtattr *tb[TCA_ABC_MAX + 1];
	struct rtattr *nest = options();

	if ((nest->rta_type & NLA_TYPE_MASK) != TCA_OPTIONS)
		return -1;
	parse_nested(tb, TCA_ABC_MAX, nest);
	if (!tb[type])
		return -1;
	/* By its size: a u32 copied into a u64 is off by 2^32 on big-endian */
	if (RTA_PAYLOAD(tb[type]) == sizeof(__u32)) {
		__u32 v32;

		memcpy(&v32, RTA_DATA(tb[type]), sizeof(v32));
		*val = v32;
	} else if (RTA_PAYLOAD(tb[type]) == sizeof(__u64)) {
		memcpy(val, RTA_DATA(tb[type]), sizeof(*val));
	} else {
		return -1;
	}
	return RTA_PAYLOAD(tb[type]);
}

static int nattrs(void)
{
	struct rtattr *nest = options(), *rta;
	int len = RTA_PAYLOAD(nest), n = 0;

	for (rta = RTA_DATA(nest); RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		n++;
	return n;
}

static const char * const names[] = {
	[TCA_ABC_LIMIT] = "limit", [TCA_ABC_BANDWIDTH] = "bandwidth",
	[TCA_ABC_ETA] = "eta", [TCA_ABC_DELTA] = "delta", [TCA_ABC_DT] = "dt",
	[TCA_ABC_WINDOW] = "window", [TCA_ABC_TOKEN_LIMIT] = "tokens",
	[TCA_ABC_TOPK] = "topk", [TCA_ABC_CLASSIC] = "classic",
	[TCA_ABC_ECT1] = "ect1", [TCA_ABC_SPLIT_GSO] = "split_gso",
};

static const struct good {
	int type;
	const char *arg;
	__u64 val;
} goods[] = {
	{ TCA_ABC_LIMIT, "500", 500 },
	{ TCA_ABC_LIMIT, "0", 0 },
	{ TCA_ABC_LIMIT, "4294967295", 4294967295ULL },
	{ TCA_ABC_LIMIT, "007", 7 },
	{ TCA_ABC_TOKEN_LIMIT, "20", 20 },
	{ TCA_ABC_TOPK, "0", 0 },
	{ TCA_ABC_CLASSIC, "on", 1 },
	{ TCA_ABC_CLASSIC, "off", 0 },
	{ TCA_ABC_ECT1, "on", 1 },
	{ TCA_ABC_ECT1, "off", 0 },
	{ TCA_ABC_SPLIT_GSO, "on", 1 },
	{ TCA_ABC_SPLIT_GSO, "off", 0 },
	{ TCA_ABC_SPLIT_GSO, "auto", 2 },
	{ TCA_ABC_BANDWIDTH, "50mbit", 6250000 },
	{ TCA_ABC_BANDWIDTH, "50Mbit", 6250000 },
	{ TCA_ABC_BANDWIDTH, "6250000Bps", 6250000 },
	{ TCA_ABC_BANDWIDTH, "6.25MBps", 6250000 },
	{ TCA_ABC_BANDWIDTH, "1.5gbit", 187500000 },
	{ TCA_ABC_BANDWIDTH, "8Mibit", 1048576 },
	{ TCA_ABC_BANDWIDTH, "1kbit", 125 },
	{ TCA_ABC_BANDWIDTH, "8Kibit", 1024 },
	{ TCA_ABC_BANDWIDTH, "100000000", 12500000 },
	{ TCA_ABC_BANDWIDTH, "1TiBps", 1ULL << 40 },
	{ TCA_ABC_BANDWIDTH, "8tbit", 1000000000000ULL },
	{ TCA_ABC_BANDWIDTH, "0.5KBps", 500 },
	/* rounded down to whole bytes/s, as tc does */
	{ TCA_ABC_BANDWIDTH, "12345677bit", 1543209 },
	{ TCA_ABC_BANDWIDTH, "1.5kbit", 187 },
	{ TCA_ABC_BANDWIDTH, "8bit", 1 },
	{ TCA_ABC_BANDWIDTH, "15bit", 1 },
	{ TCA_ABC_BANDWIDTH, "estimate", 0 },
	{ TCA_ABC_BANDWIDTH, "0", 0 },
	{ TCA_ABC_BANDWIDTH, "0mbit", 0 },
	{ TCA_ABC_ETA, "0.95", 950000 },
	{ TCA_ABC_ETA, ".9", 900000 },
	{ TCA_ABC_ETA, "1", 1000000 },
	{ TCA_ABC_ETA, "1.", 1000000 },
	{ TCA_ABC_ETA, "0.000001", 1 },
	{ TCA_ABC_ETA, "0.9500000000000000000000000", 950000 },
	{ TCA_ABC_ETA, "1.5", 1500000 },	/* the kernel refuses it */
	{ TCA_ABC_ETA, "0", 0 },		/* likewise */
	{ TCA_ABC_DELTA, "133ms", 133000 },
	{ TCA_ABC_DELTA, "0.15s", 150000 },
	{ TCA_ABC_DELTA, "2500us", 2500 },
	{ TCA_ABC_DELTA, "2500", 2500 },
	{ TCA_ABC_DELTA, "1.5MS", 1500 },
	{ TCA_ABC_DT, "20msec", 20000 },
	{ TCA_ABC_DT, "1secs", 1000000 },
	{ TCA_ABC_DT, "0", 0 },
	{ TCA_ABC_WINDOW, "4294s", 4294000000ULL },
	{ TCA_ABC_WINDOW, "4294967295us", 4294967295ULL },
};

static const char opts_all[] =
	"limit 500 bandwidth 50mbit eta 0.9 delta 150ms dt 25ms window 50ms tokens 20 topk 4 classic off ect1 on split_gso off";
static const char opts_shown[] =
	"limit 500 bandwidth 50Mbit eta 0.9 delta 150ms dt 25ms window 50ms tokens 20 topk 4 classic off ect1 on split_gso off ";

static const char * const bads[] = {
	/* not a number of the right form */
	"limit x", "limit -1", "limit +1", "limit 1e3", "limit 0x10",
	"limit 1.5", "limit .", "limit 1..2", "limit 10p",
	"eta abc", "eta -0.5", "eta nan", "eta inf", "eta 0.95%",
	"delta 5parsecs", "delta -1ms", "delta 1ns", "delta 10 ms",
	"bandwidth 12furlong", "bandwidth -5mbit", "bandwidth mbit",
	"bandwidth Estimate", "classic 1", "classic yes", "classic On",
	"classic", "ect1 1", "ect1 yes", "ect1", "split_gso 0", "split_gso",
	"split-gso off", "no_split_gso", "split_gso 2", "split_gso Auto",
	/* cannot be encoded in the attribute */
	"limit 4294967296", "topk 99999999999999999999999",
	"eta 0.1234567", "eta 4294.967296",
	"dt 1.5us", "window 4295s", "window 4294967296",
	"bandwidth 1bit", "bandwidth 7bit", "bandwidth 0.1Bps",
	"bandwidth 20000000000TiBps",
	"eta 1.0000000000000000000000000000001",
	/* the option itself */
	"limit", "eta 0.9 window", "frobnicate 1", "Limit 5", "", "help",
	"limit 5 help",
};

static void test_parse(void)
{
	__u64 v;
	unsigned int i;
	char opt[128];
	int ok, bad = 0;

	/* Every option at once */
	ok = parse(opts_all) == 0 && nattrs() == 11;
	ok = ok && attr(TCA_ABC_LIMIT, &v) == 4 && v == 500;
	ok = ok && attr(TCA_ABC_BANDWIDTH, &v) == 8 && v == 6250000;
	ok = ok && attr(TCA_ABC_ETA, &v) == 4 && v == 900000;
	ok = ok && attr(TCA_ABC_DELTA, &v) == 4 && v == 150000;
	ok = ok && attr(TCA_ABC_DT, &v) == 4 && v == 25000;
	ok = ok && attr(TCA_ABC_WINDOW, &v) == 4 && v == 50000;
	ok = ok && attr(TCA_ABC_TOKEN_LIMIT, &v) == 4 && v == 20;
	ok = ok && attr(TCA_ABC_TOPK, &v) == 4 && v == 4;
	ok = ok && attr(TCA_ABC_CLASSIC, &v) == 4 && v == 0;
	ok = ok && attr(TCA_ABC_ECT1, &v) == 4 && v == 1;
	tap(ok, "every option encodes to its attribute, u32s and a u64", NULL);

	tap((options()->rta_type & NLA_F_NESTED) != 0,
	    "TCA_OPTIONS carries NLA_F_NESTED (strict nla_parse_nested)", NULL);

	ok = parse("bandwidth 20mbit") == 0 && nattrs() == 1 &&
	     attr(TCA_ABC_BANDWIDTH, &v) == 8 && v == 2500000;
	tap(ok, "only the options given are sent (change keeps the rest)", NULL);

	ok = parse("") == 0 && nattrs() == 0;
	tap(ok, "no options: an empty nest, the kernel's defaults", NULL);

	ok = parse("limit 5 limit 6") == 0 && nattrs() == 1 &&
	     attr(TCA_ABC_LIMIT, &v) == 4 && v == 6;
	tap(ok, "an option given twice counts once, the last", NULL);

	for (i = 0; i < ARRAY_SIZE(goods); i++) {
		snprintf(opt, sizeof(opt), "%s %s", names[goods[i].type],
			 goods[i].arg);
		if (parse(opt) || attr(goods[i].type, &v) < 0 ||
		    v != goods[i].val) {
			bad++;
			tap(0, "accepted form", "%s -> %llu", opt,
			    (unsigned long long)v);
		}
	}
	tap(!bad, "accepted forms encode exactly", "%zu forms",
	    ARRAY_SIZE(goods));

	bad = 0;
	for (i = 0; i < ARRAY_SIZE(bads); i++) {
		if (!*bads[i])
			continue;
		if (parse(bads[i]) != -1 ||
		    req.n.nlmsg_len != NLMSG_LENGTH(sizeof(struct tcmsg))) {
			bad++;
			tap(0, "refused before netlink", "\"%s\"", bads[i]);
		}
	}
	tap(!bad, "malformed options refused, nothing added to the request",
	    "%zu cases", ARRAY_SIZE(bads) - 1);
}

/* Build a dump nest of the given attributes and print it. */
static const char *show(const __u64 *vals, unsigned int present)
{
	struct rtattr *nest;
	int t;

	req_reset();
	nest = addattr_nest(&req.n, sizeof(req), TCA_OPTIONS);
	for (t = 1; t <= TCA_ABC_MAX; t++) {
		__u32 v32 = vals[t];

		if (!(present & (1U << t)) || t == TCA_ABC_PAD)
			continue;
		if (t == TCA_ABC_BANDWIDTH)
			addattr_l(&req.n, sizeof(req), t, &vals[t], 8);
		else
			addattr_l(&req.n, sizeof(req), t, &v32, 4);
	}
	addattr_nest_end(&req.n, nest);
	out[0] = 0;
	abc_qdisc_util.print_qopt(&abc_qdisc_util, stdout, nest);
	return out;
}

static void test_show(void)
{
	__u64 vals[TCA_ABC_MAX + 1] = {
		[TCA_ABC_LIMIT] = 500, [TCA_ABC_BANDWIDTH] = 6250000,
		[TCA_ABC_ETA] = 900000, [TCA_ABC_DELTA] = 150000,
		[TCA_ABC_DT] = 25000, [TCA_ABC_WINDOW] = 50000,
		[TCA_ABC_TOKEN_LIMIT] = 20, [TCA_ABC_TOPK] = 4,
		[TCA_ABC_CLASSIC] = 0, [TCA_ABC_ECT1] = 1,
		[TCA_ABC_SPLIT_GSO] = 0,
	};
	const char *want = opts_shown;
	char shown[512];
	unsigned int i, bad = 0;
	const char *s;

	s = show(vals, ~0U);
	tap(!strcmp(s, want), "show prints every option in add's syntax", "%s", s);

	snprintf(shown, sizeof(shown), "%s", s);
	out[0] = 0;
	if (!parse(shown))
		abc_qdisc_util.print_qopt(&abc_qdisc_util, stdout, options());
	tap(!strcmp(out, want), "show's output parses back to the same options",
	    "%s", out);

	vals[TCA_ABC_BANDWIDTH] = 0;
	s = show(vals, 1U << TCA_ABC_BANDWIDTH);
	tap(!strcmp(s, "bandwidth estimate "), "bandwidth 0 shows as estimate",
	    "%s", s);

	vals[TCA_ABC_SPLIT_GSO] = TC_ABC_SPLIT_GSO_AUTO;
	s = show(vals, 1U << TCA_ABC_SPLIT_GSO);
	tap(!strcmp(s, "split_gso auto "), "split_gso shows auto, the default",
	    "%s", s);

	vals[TCA_ABC_SPLIT_GSO] = 7;
	s = show(vals, 1U << TCA_ABC_SPLIT_GSO);
	tap(!strcmp(s, "split_gso unknown "),
	    "a split_gso value of a newer module shows as unknown", "%s", s);

	s = show(vals, 1U << TCA_ABC_LIMIT | 1U << TCA_ABC_TOPK);
	tap(!strcmp(s, "limit 500 topk 4 "), "attributes not dumped are not printed",
	    "%s", s);

	/* eta: every ppm prints as a decimal that parses back to it */
	for (i = 0; i < 200000; i++) {
		__u32 ppm = i < 100000 ? i * 10 + 1 : (__u32)rnd64();
		char buf[32], opt[48];
		__u64 v;

		snprintf(opt, sizeof(opt), "eta %s", sprint_ppm(ppm, buf, sizeof(buf)));
		if (parse(opt) || attr(TCA_ABC_ETA, &v) != 4 || v != ppm) {
			if (!bad)
				tap(0, "eta round trip", "%u -> %s", ppm, opt);
			bad++;
		}
	}
	tap(!bad, "eta prints exactly: 200000 ppm values parse back", "%u bad", bad);
}

static void test_xstats(void)
{
	struct tc_abc_xstats st = {
		.accelerates = 7, .brakes = 3, .target_rate = 5000000,
		.capacity = 6250000, .dequeue_rate = 6000000,
		.accel_frac = 437500, .qdelay_us = 1500, .drops = 2,
		.estimating = 1, .qlen = { 4, 1 }, .weight = { 750000, 250000 },
		.classic_packets = 40, .classic_found = 2, .classic_flows = 1,
	};
	/* As tc gets it: the block right after a 4-byte attribute header */
	union {
		struct rtattr rta;
		char buf[RTA_LENGTH(sizeof(struct tc_abc_xstats) + 16)];
	} x = {};
	const char *want =
		"  accelerates 7 brakes 3 accel_frac 0.4375\n"
		"  target_rate 40Mbit capacity 50Mbit estimated dequeue_rate 48Mbit\n"
		"  qdelay 1.5ms drop_overlimit 2\n"
		"  queue abc qlen 4 weight 0.75\n"
		"  queue other qlen 1 weight 0.25\n"
		"  classic_found 2 classic_flows 1 classic_packets 40";

	memcpy(RTA_DATA(&x.rta), &st, sizeof(st));
	x.rta.rta_len = RTA_LENGTH(sizeof(st));
	out[0] = 0;
	abc_qdisc_util.print_xstats(&abc_qdisc_util, stdout, &x.rta);
	tap(!strcmp(out, want), "-s prints every statistic", "%s", flat());

	/* A longer block from a newer module: the known part is read */
	x.rta.rta_len = RTA_LENGTH(sizeof(st) + 16);
	out[0] = 0;
	abc_qdisc_util.print_xstats(&abc_qdisc_util, stdout, &x.rta);
	tap(!strcmp(out, want), "a longer xstats block prints the same", NULL);

	/* A shorter one: what is missing reads as zero */
	x.rta.rta_len = RTA_LENGTH(8);
	out[0] = 0;
	abc_qdisc_util.print_xstats(&abc_qdisc_util, stdout, &x.rta);
	tap(!strncmp(out, "  accelerates 7 brakes 0 accel_frac 0\n", 38),
	    "a short xstats block reads as zeros past its end", "%.40s", flat());
}

int main(void)
{
	test_parse();
	test_show();
	test_xstats();
	return tap_finish();
}
