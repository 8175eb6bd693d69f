/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decimal module parameters held in Q16 fixed point, with a range that is
 * checked on load and on every write: a value out of range is refused with
 * a message naming the accepted range and the old value is kept.
 *
 *	static struct cc_q16_param foo_eta = CC_Q16_PARAM(0, 3000, 0, 500, 0, 9500);
 *	module_param_cb(eta, &cc_q16_param_ops, &foo_eta, 0644);
 *	... READ_ONCE(foo_eta.val) ...
 *
 * The message gets its "module: " prefix from the pr_fmt() every module
 * defines.  The parser and cc_q16_split() are pure, so tests/unit/test_cc_param.c
 * builds them in userspace; the kernel_param glue is kernel only.
 */
#ifndef _CC_PARAM_H
#define _CC_PARAM_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#else
#include <errno.h>
#endif

#include "cc_fixedpoint.h"

/* Fraction digits parsed; more are accepted and ignored (beyond Q16). */
#define CC_Q16_FRAC_DIGITS	6

/* The Q16 value of i + f_1e4 / 10000, rounded to nearest. */
#define CC_Q16(i, f_1e4)	((u32)(((u64)(i) << FP_SHIFT) + \
				       (((u64)(f_1e4) << FP_SHIFT) + 5000) / 10000))

/* Q16 of e, the one named value accepted (ETC's alpha takes "e"). */
#define CC_Q16_E		FP_E

struct cc_q16_param {
	u32 val;
	u32 min;	/* inclusive */
	u32 max;	/* inclusive */
};

#define CC_Q16_PARAM(vi, vf, mini, minf, maxi, maxf) {		\
	.val = CC_Q16(vi, vf),					\
	.min = CC_Q16(mini, minf),				\
	.max = CC_Q16(maxi, maxf),				\
}

/*
 * Parse "I[.F]" or "e" (optionally newline-terminated) into Q16, rounded to
 * nearest.  The kernel has no decimal fixed-point parser.  -ERANGE if the
 * rounded value does not fit a u32 (65535.999993 and up), -EINVAL if it is
 * not a number.
 */
static inline int cc_parse_q16(const char *s, u32 *out)
{
	u64 ip = 0, fp = 0, scale = 1, v;
	int nd = 0, nf = 0;

	if (s[0] == 'e' && (!s[1] || (s[1] == '\n' && !s[2]))) {
		*out = CC_Q16_E;
		return 0;
	}
	for (; *s >= '0' && *s <= '9'; s++, nd++) {
		ip = ip * 10 + (*s - '0');
		if (ip > 0xffff)
			return -ERANGE;
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++) {
			if (nf == CC_Q16_FRAC_DIGITS)
				continue;
			fp = fp * 10 + (*s - '0');
			scale *= 10;
			nf++;
		}
	}
	if (*s == '\n')
		s++;
	if (*s || (!nd && !nf))
		return -EINVAL;
	/* Rounding can carry into bit 32: 65535.999993 rounds to 65536. */
	v = (ip << FP_SHIFT) +
	    div64_u64((fp << FP_SHIFT) + (scale >> 1), scale);
	if (v > U32_MAX)
		return -ERANGE;
	*out = (u32)v;
	return 0;
}

/* Q16 as integer part and four rounded decimals, for messages and sysfs. */
static inline void cc_q16_split(u32 v, u32 *ip, u32 *frac_1e4)
{
	u32 f = (u32)(((u64)(v & 0xffff) * 10000 + 32768) >> FP_SHIFT);

	*ip = v >> FP_SHIFT;
	if (f >= 10000) {	/* rounding carried into the integer part */
		(*ip)++;
		f -= 10000;
	}
	*frac_1e4 = f;
}

#ifdef __KERNEL__
static int cc_q16_param_set(const char *val, const struct kernel_param *kp)
{
	struct cc_q16_param *q = kp->arg;
	u32 v, lo, lo_f, hi, hi_f;
	int err;

	err = cc_parse_q16(val, &v);
	if (err || v < q->min || v > q->max) {
		cc_q16_split(q->min, &lo, &lo_f);
		cc_q16_split(q->max, &hi, &hi_f);
		pr_err("%s: \"%.*s\" refused: a decimal number from %u.%04u to %u.%04u expected\n",
		       kp->name, (int)strcspn(val, "\n"), val,
		       lo, lo_f, hi, hi_f);
		return -EINVAL;
	}
	WRITE_ONCE(q->val, v);
	return 0;
}

static int cc_q16_param_get(char *buffer, const struct kernel_param *kp)
{
	const struct cc_q16_param *q = kp->arg;
	u32 ip, f;

	cc_q16_split(READ_ONCE(q->val), &ip, &f);
	return sysfs_emit(buffer, "%u.%04u\n", ip, f);
}

static const struct kernel_param_ops cc_q16_param_ops = {
	.set = cc_q16_param_set,
	.get = cc_q16_param_get,
};
#endif /* __KERNEL__ */

#endif /* _CC_PARAM_H */
