// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the decimal parser of include/cc_param.h, in TAP.
 *
 *  - Fixed cases: integers, fractions, "e", a trailing newline, malformed
 *    strings (-EINVAL).
 *  - The top of the range: 65535.999992 is the largest Q16 value, from
 *    65535.999993 up the rounded value is 2^32 and must be refused
 *    (-ERANGE), never wrapped to 0; the output is left alone on errors.
 *  - Every Q16 value printed with six decimals parses back to itself
 *    (sampled), and random decimals match a double reference or are
 *    refused exactly when that reference does not fit a u32.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cc_param.h"
#include "unit_tap.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define SENTINEL	0x5a5a5a5aU

struct pcase {
	const char *s;
	int err;
	u32 want;	/* if !err */
};

static const struct pcase cases[] = {
	{ "0", 0, 0 },
	{ "1", 0, 1U << 16 },
	{ "1\n", 0, 1U << 16 },
	{ "1.", 0, 1U << 16 },
	{ ".5", 0, 1U << 15 },
	{ "0.3", 0, 19661 },		/* 19660.8 rounds up */
	{ "0.000007", 0, 0 },		/* 0.46 ulp */
	{ "0.000008", 0, 1 },		/* 0.52 ulp */
	{ "0.0000089", 0, 1 },		/* digits past six ignored */
	{ "2.71828", 0, CC_Q16_E },
	{ "e", 0, CC_Q16_E },
	{ "e\n", 0, CC_Q16_E },
	{ "65535", 0, 0xffff0000U },
	{ "65535.99999", 0, 0xffffffffU },
	{ "65535.999992", 0, 0xffffffffU },
	{ "65535.9999929", 0, 0xffffffffU },	/* digits past six ignored */
	{ "65535.999993", -ERANGE, 0 },
	{ "65535.999999", -ERANGE, 0 },
	{ "65535.9999999999", -ERANGE, 0 },
	{ "65535.999999\n", -ERANGE, 0 },
	{ "65536", -ERANGE, 0 },
	{ "99999999999999999999999", -ERANGE, 0 },
	{ "", -EINVAL, 0 },
	{ "\n", -EINVAL, 0 },
	{ ".", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "1 ", -EINVAL, 0 },
	{ "1.2.3", -EINVAL, 0 },
	{ "1\n\n", -EINVAL, 0 },
	{ "e1", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
};

static void test_cases(void)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct pcase *c = &cases[i];
		u32 out = SENTINEL, n;
		int err = cc_parse_q16(c->s, &out);
		char desc[96];
		const char *p;

		n = snprintf(desc, sizeof(desc), "parse \"");
		for (p = c->s; *p && n < sizeof(desc) - 8; p++)
			n += snprintf(desc + n, sizeof(desc) - n,
				      *p == '\n' ? "\\n" : "%c", *p);
		snprintf(desc + n, sizeof(desc) - n, "\"");
		if (c->err)
			tap(err == c->err && out == SENTINEL, desc,
			    "err %d out %#x, want err %d out untouched",
			    err, out, c->err);
		else
			tap(!err && out == c->want, desc,
			    "err %d out %#x, want %#x", err, out, c->want);
	}
}

/* Q16 v as "I.FFFFFF", the fraction rounded to six decimals. */
static void fmt_q16(char *buf, size_t len, u32 v)
{
	u64 ip = v >> 16;
	u64 f = ((u64)(v & 0xffff) * 1000000 + 32768) >> 16;

	if (f >= 1000000) {
		ip++;
		f -= 1000000;
	}
	snprintf(buf, len, "%llu.%06llu", (unsigned long long)ip,
		 (unsigned long long)f);
}

static void test_roundtrip(void)
{
	u32 i, bad = 0, bad_v = 0;
	char buf[32];

	/* Six decimals resolve 1e-6, far below half an ulp (7.6e-6). */
	for (i = 0; i < 2000000; i++) {
		u32 v = (u32)rnd64(), out = SENTINEL;

		/* both ends of the range in full, random values between */
		if (i < 70000)
			v = i;
		else if (i < 140000)
			v = 0xffffffffU - (i - 70000);
		fmt_q16(buf, sizeof(buf), v);
		if (cc_parse_q16(buf, &out) || out != v) {
			if (!bad++)
				bad_v = v;
		}
	}
	tap(!bad, "Q16 values printed with six decimals parse back exactly",
	    "%u off, first %#x", bad, bad_v);
}

static void test_fuzz(void)
{
	u32 i, bad = 0, wrapped = 0;
	char buf[48], first[48] = "";

	for (i = 0; i < 2000000; i++) {
		/* Mostly near the top of the range, where rounding carries. */
		u32 ip = rnd64() % 4 ? 65535 - (u32)(rnd64() % 3) :
			 (u32)(rnd64() % 65536);
		u32 nf = (u32)(rnd64() % 9), k, out = SENTINEL;
		u64 f6 = 0;
		double ref;
		int n, err;

		n = snprintf(buf, sizeof(buf), "%u.", ip);
		for (k = 0; k < nf; k++) {
			u32 d = rnd64() % 4 ? 9 : (u32)(rnd64() % 10);

			buf[n++] = (char)('0' + d);
			if (k < CC_Q16_FRAC_DIGITS)
				f6 = f6 * 10 + d;
		}
		buf[n] = '\0';
		for (k = nf; k < CC_Q16_FRAC_DIGITS; k++)
			f6 *= 10;
		/* No ties: 65536 f6 / 1e6 is never an odd multiple of 0.5. */
		ref = nearbyint(((double)ip + (double)f6 / 1e6) * 65536.0);
		err = cc_parse_q16(buf, &out);
		if (ref > 4294967295.0) {
			if (err != -ERANGE || out != SENTINEL) {
				if (!err)
					wrapped++;
				if (!bad++)
					snprintf(first, sizeof(first), "%s", buf);
			}
		} else if (err || out != (u32)ref) {
			if (!bad++)
				snprintf(first, sizeof(first), "%s", buf);
		}
	}
	tap(!bad, "random decimals: the rounded value, or -ERANGE past 2^32 - 1",
	    "%u off (%u wrapped), first \"%s\"", bad, wrapped, first);
}

static void test_split(void)
{
	u32 ip, f;

	cc_q16_split(0xffffffffU, &ip, &f);
	tap(ip == 65536 && f == 0, "split: the largest value prints as 65536.0000",
	    "%u.%04u", ip, f);
	cc_q16_split(CC_Q16(0, 3000), &ip, &f);
	tap(ip == 0 && f == 3000, "split: 0.3 prints as 0.3000", "%u.%04u", ip, f);
}

int main(void)
{
	test_cases();
	test_roundtrip();
	test_fuzz();
	test_split();
	return tap_finish();
}
