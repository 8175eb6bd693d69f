/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Fixed-point maths for the congestion controls of this tree.
 *
 * Usable from the kernel and, for the unit tests, from userspace.  No
 * floating point, no 128-bit arithmetic and no 64-bit '/' or '%' (all
 * divisions go through the <linux/math64.h> helpers), so it links on
 * 32-bit targets too.
 *
 * Format: Q16.16.  A value v is stored as round(v * 2^16) in a u64
 * (unsigned quantities) or an s64 (signed ones); FP_ONE is 1.0.  One ulp
 * is 2^-16 ~= 1.5e-5.  Internally log2 and e^r carry 30 fractional bits,
 * so the final rounding to Q16 (half an ulp, 2^-17) dominates the bounds
 * below.  "err" is |result - exact|, where exact is the exact value of
 * the function at the (exactly representable) Q16 argument and y stands
 * for that exact value.  All bounds are checked by
 * tests/unit/test_fixedpoint.c against libm.
 *
 * fp_div(num, den)	  num, den plain integers; num / den in Q16.
 *	Exact: floor(num * 2^16 / den) for every num and den.  den == 0, or
 *	num / den >= 2^48 (does not fit), returns FP_DIV_SAT (U64_MAX).
 *
 * fp_mul(a, b)		  a * b / 2^16: Q16 * Q16 -> Q16, or integer * Q16
 *	-> integer.  Exact (floor); FP_MUL_SAT (U64_MAX) if it does not fit.
 *
 * fp_log2(x), fp_ln(x)	  x in Q16, 1 <= x <= U64_MAX (2^-16 .. 2^48);
 *	y in [-16, 48] resp. [-11.09, 33.27].
 *	err <= 2^-17 + 2^-26 everywhere, hence relative error <= 1e-4
 *	where |y| >= 0.1.  x == 0 returns FP_LOG_NEG_INF (S64_MIN).
 *
 * fp_log_base(x, base)	  log(x) / log(base); x, base and result in Q16.
 *	x as for fp_log2, FP_ONE < base <= U64_MAX.
 *	err <= 2^-17 + 2e-4 * |y| over that whole domain, so relative
 *	error <= 3e-4 where |y| >= 0.1; the 2e-4 term only matters for
 *	bases within a few ulp of 1.  For base >= 1.0625 (ETC's alpha = e
 *	included): err <= 2^-17 + 2^-25 * (1 + |y|), relative error <= 1e-4
 *	where |y| >= 0.1.  x == 0 returns FP_LOG_NEG_INF; base <= FP_ONE
 *	returns 0.
 *
 * fp_exp(x)		  e^x; x and result in Q16.
 *	FP_EXP_MIN (-12.0) <= x <= FP_EXP_MAX (~33.271, the largest Q16
 *	value below 48 ln 2): err <= 2^-17 + 1e-7 * y, so relative error
 *	<= 1e-4 for x >= -2.3 (y >= 0.1) and absolute error <= 2^-17 + 1e-7
 *	for x <= 0.  x > FP_EXP_MAX saturates to FP_EXP_SAT (U64_MAX); x <
 *	FP_EXP_MIN returns 0 (y is below half an ulp there).
 *
 * fp_sigmoid(x)	  1 / (1 + e^x) (note the sign: falls from 1 to 0);
 *	any s64 x in Q16, result in Q16 in [0, FP_ONE].  err <= 2^-17 +
 *	2^-26 everywhere, so relative error <= 1e-3 where y >= 2^-7, <= 5e-4
 *	where y >= 2^-6 and <= 1e-4 where y >= 2^-3.  No Q16 result can do
 *	better: rounding alone costs up to 2^-17.  For x >= FP_SIGMOID_SAT
 *	(22.0) the result is 0, for x <= -FP_SIGMOID_SAT it is FP_ONE
 *	(within 3e-10 of y).
 *
 * Square roots are the kernel's int_sqrt64().
 */
#ifndef _CC_FIXEDPOINT_H
#define _CC_FIXEDPOINT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/limits.h>
#include <linux/bitops.h>
#include <linux/math64.h>
#else
#include "cc_user.h"
#endif /* __KERNEL__ */

#define FP_SHIFT	16
#define FP_ONE		BIT_ULL(FP_SHIFT)
/* e, rounded to Q16 */
#define FP_E		178145U

#define FP_DIV_SAT	U64_MAX
#define FP_MUL_SAT	U64_MAX
#define FP_LOG_NEG_INF	S64_MIN
#define FP_EXP_SAT	U64_MAX
/* Largest Q16 x with e^x * 2^16 < 2^64: floor(48 * ln 2 * 2^16). */
#define FP_EXP_MAX	2180452LL
#define FP_EXP_MIN	(-12LL * (s64)FP_ONE)
/* |x| beyond which 1 / (1 + e^x) rounds to exactly 0 or FP_ONE */
#define FP_SIGMOID_SAT	(22LL * (s64)FP_ONE)

/* Internal precision of log2 and e^r, in fractional bits. */
#define FP_LOG2_FRAC	30
#define FP_EXP_FRAC	30
#define FP_EXP_DEGREE	9
/* ln 2 rounded to Q32 and Q46 */
#define FP_LN2_Q32	2977044472U
#define FP_LN2_Q46	48775896626292ULL
/* e^x is split as x = k * ln 2 + r with k >= -FP_EXP_KBIAS */
#define FP_EXP_KBIAS	32

/* Round a signed value to nearest (halves away from 0) while dividing by 2^s. */
static inline s64 __fp_round_shr(s64 v, unsigned int s)
{
	u64 m = v < 0 ? -(u64)v : (u64)v;

	m = (m + (1ULL << (s - 1))) >> s;
	return v < 0 ? -(s64)m : (s64)m;
}

/**
 * fp_div() - Quotient of two plain integers, in Q16.
 * @num: dividend
 * @den: divisor
 *
 * Return: floor(@num * 2^16 / @den), exact; FP_DIV_SAT if @den is zero or
 * the quotient does not fit in a u64 (@num / @den >= 2^48).
 */
static inline u64 fp_div(u64 num, u64 den)
{
	u64 q, r;
	int i;

	if (!den)
		return FP_DIV_SAT;
	if (num <= U64_MAX >> FP_SHIFT)
		return div64_u64(num << FP_SHIFT, den);

	q = div64_u64_rem(num, den, &r);
	if (q > U64_MAX >> FP_SHIFT)
		return FP_DIV_SAT;
	q <<= FP_SHIFT;
	if (den <= U64_MAX >> FP_SHIFT)	/* r < den, so r << 16 fits */
		return q | div64_u64(r << FP_SHIFT, den);

	/* Huge divisor: long division, one fraction bit at a time. */
	for (i = FP_SHIFT - 1; i >= 0; i--) {
		u64 carry = r >> 63;

		r <<= 1;
		/* With carry, 2r exceeds den; the wrapped difference is exact. */
		if (carry || r >= den) {
			r -= den;
			q |= 1ULL << i;
		}
	}
	return q;
}

/**
 * fp_mul() - Product of two Q16 values, or of an integer and a Q16 value.
 * @a: first factor
 * @b: second factor
 *
 * Return: floor(@a * @b / 2^16), exact; FP_MUL_SAT if it does not fit.
 */
static inline u64 fp_mul(u64 a, u64 b)
{
	u64 al = (u32)a, ah = a >> 32;
	u64 bl = (u32)b, bh = b >> 32;
	u64 ll = al * bl, lh = al * bh, hl = ah * bl;
	u64 mid = (ll >> 32) + (u32)lh + (u32)hl;
	u64 hi = ah * bh + (lh >> 32) + (hl >> 32) + (mid >> 32);
	u64 lo = (mid << 32) | (u32)ll;

	if (hi >> FP_SHIFT)
		return FP_MUL_SAT;
	return (hi << (64 - FP_SHIFT)) | (lo >> FP_SHIFT);
}

/*
 * log2 of the Q16 value x (x > 0): returns the integer part and stores
 * the fraction, in Q30, in *frac.  The integer part is the position of
 * the leading bit; the fraction is found bit by bit by repeatedly
 * squaring the mantissa m in [1, 2), kept as a Q31 u32 so each square is
 * one 32x32->64 multiply.  The mantissa of x and each square are
 * rounded to nearest, a relative error <= 2^-32 that costs <= 2^-31.5 /
 * 2^i at bit i, and the last bit is rounded: |error| < 2^-29 in all.
 */
static inline int __fp_log2_parts(u64 x, u32 *frac)
{
	int n = fls64(x) - 1;
	u32 m, f = 0;
	int i;

	if (n > 31) {
		u64 t = ((x >> (n - 32)) + 1) >> 1;

		if (t >> 32) {		/* rounded up to 2.0 */
			t >>= 1;
			n++;
		}
		m = (u32)t;
	} else {
		m = (u32)(x << (31 - n));
	}
	for (i = FP_LOG2_FRAC - 1; i >= 0; i--) {
		u64 sq = (u64)m * m;	/* m^2 in Q62, in [1, 4) */

		/* Does m^2 round to 2.0 or more in Q31? */
		if (sq >= BIT_ULL(63) - BIT_ULL(30)) {
			m = (sq + BIT_ULL(31)) >> 32;
			f |= 1U << i;
		} else {
			m = (sq + BIT_ULL(30)) >> 31;
		}
	}
	/* Round to nearest on the next bit; f may become 2^30 */
	if ((u64)m * m >= BIT_ULL(63) - BIT_ULL(30))
		f++;
	*frac = f;
	return n - FP_SHIFT;
}

/* log2 of the Q16 value x (x > 0), in Q30, in [-2^34, 2^35.6) */
static inline s64 __fp_log2_q30(u64 x)
{
	u32 frac;
	s64 ip = __fp_log2_parts(x, &frac);

	return ip * (s64)BIT_ULL(FP_LOG2_FRAC) + frac;
}

/**
 * fp_log2() - Base-2 logarithm.
 * @x: argument, Q16
 *
 * Return: log2(@x) in Q16, or FP_LOG_NEG_INF if @x is zero.
 */
static inline s64 fp_log2(u64 x)
{
	if (!x)
		return FP_LOG_NEG_INF;
	return __fp_round_shr(__fp_log2_q30(x), FP_LOG2_FRAC - FP_SHIFT);
}

/**
 * fp_ln() - Natural logarithm.
 * @x: argument, Q16
 *
 * Return: ln(@x) in Q16, or FP_LOG_NEG_INF if @x is zero.
 */
static inline s64 fp_ln(u64 x)
{
	u32 frac;
	s64 ip, q46;

	if (!x)
		return FP_LOG_NEG_INF;
	/* ln x = (ip + frac) * ln 2, in Q46: |ip| * ln 2 < 2^51.1 */
	ip = __fp_log2_parts(x, &frac);
	q46 = ip * (s64)FP_LN2_Q46 + (((u64)frac * FP_LN2_Q32) >> 16);
	return __fp_round_shr(q46, 46 - FP_SHIFT);
}

/**
 * fp_log_base() - Logarithm to an arbitrary base.
 * @x: argument, Q16
 * @base: base, Q16, must be above FP_ONE
 *
 * Return: log(@x) / log(@base) in Q16; FP_LOG_NEG_INF if @x is zero, 0 if
 * @base <= FP_ONE.
 */
static inline s64 fp_log_base(u64 x, u64 base)
{
	s64 lx, lb;
	u64 mag;

	if (!x)
		return FP_LOG_NEG_INF;
	if (base <= FP_ONE)
		return 0;

	lx = __fp_log2_q30(x);
	lb = __fp_log2_q30(base);	/* >= 2^30 * log2(1 + 2^-16) > 0 */
	/* |lx| < 2^36, so the shifted dividend stays below 2^52. */
	mag = lx < 0 ? -(u64)lx : (u64)lx;
	mag = div64_u64((mag << FP_SHIFT) + ((u64)lb >> 1), lb);
	return lx < 0 ? -(s64)mag : (s64)mag;
}

/*
 * e^r for 0 <= r < ln 2, r and result in Q30: Horner on the Taylor series
 * to degree 9.  The truncation error is < 1.4e-8, the rounding of the
 * coefficients and of each Horner step < 1e-8, and the result < 2^31.
 */
static inline u64 __fp_exp_frac_q30(u64 r)
{
	/* 1/i! in Q30, i = 9 .. 0 */
	static const u32 coef[FP_EXP_DEGREE + 1] = {
		2959, 26631, 213044, 1491308, 8947849, 44739243,
		178956971, 536870912, 1073741824, 1073741824,
	};
	u64 p = coef[0];
	unsigned int i;

	for (i = 1; i <= FP_EXP_DEGREE; i++)
		p = coef[i] + ((p * r) >> FP_EXP_FRAC);
	return p;
}

/*
 * Split the Q16 value x, -FP_EXP_KBIAS * ln 2 <= x <= FP_EXP_MAX, into
 * x = k * ln 2 + r with 0 <= r < ln 2.  Stores k, in [-32, 47], and
 * returns e^r in Q30, so that e^x = return value * 2^(k - 30).
 */
static inline u64 __fp_exp_split(s64 x, int *k)
{
	/* x in Q32 plus the bias is in [0, 2^38) */
	u64 xb = (u64)(x * (s64)FP_ONE) +
		 (u64)FP_EXP_KBIAS * FP_LN2_Q32;
	u32 r;

	*k = (int)div_u64_rem(xb, FP_LN2_Q32, &r) - FP_EXP_KBIAS;
	return __fp_exp_frac_q30(r >> (32 - FP_EXP_FRAC));
}

/**
 * fp_exp() - Exponential function.
 * @x: exponent, Q16
 *
 * Return: e^@x in Q16; FP_EXP_SAT if @x > FP_EXP_MAX, 0 if @x < FP_EXP_MIN.
 */
static inline u64 fp_exp(s64 x)
{
	u64 p;
	int k, s;

	if (x > FP_EXP_MAX)
		return FP_EXP_SAT;
	if (x < FP_EXP_MIN)
		return 0;

	p = __fp_exp_split(x, &k);
	s = k + FP_SHIFT - FP_EXP_FRAC;
	/*
	 * s <= 33.  For k == 47, r <= ln 2 - 0.49 * 2^-16 (FP_EXP_MAX is
	 * 0.494 ulp below 48 ln 2), so e^r <= 2 - 1.5e-5 and p < 2^31: the
	 * shift cannot overflow.
	 */
	if (s >= 0)
		return p << s;
	return (p + (1ULL << (-s - 1))) >> -s;
}

/**
 * fp_sigmoid() - Logistic function 1 / (1 + e^x).
 * @x: argument, Q16
 *
 * Return: 1 / (1 + e^@x) in Q16, in [0, FP_ONE]; decreasing in @x.
 */
static inline u64 fp_sigmoid(s64 x)
{
	u64 e, den;
	int k;

	if (x >= FP_SIGMOID_SAT)
		return 0;
	if (x <= -FP_SIGMOID_SAT)
		return FP_ONE;

	/* e = e^-|x| in Q30, in [0, 2^30] */
	e = __fp_exp_split(x < 0 ? x : -x, &k);
	if (k < 0)
		e = (e + (1ULL << (-k - 1))) >> -k;
	den = (1ULL << FP_EXP_FRAC) + e;

	/* x >= 0: e / (1 + e), else 1 / (1 + e) */
	return div64_u64(((x >= 0 ? e : 1ULL << FP_EXP_FRAC) << FP_SHIFT) +
			 (den >> 1), den);
}

#endif /* _CC_FIXEDPOINT_H */
