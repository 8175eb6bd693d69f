// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/cc_fixedpoint.h against libm, in TAP.
 *
 * Every function is swept over its whole documented domain (exhaustively
 * where that is a few million points, otherwise log-spaced plus random
 * points from a fixed seed) and the documented error bounds and
 * saturation behaviour are asserted.  The maximum errors measured are
 * printed as TAP diagnostics.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc_fixedpoint.h"
#include "unit_tap.h"

#define Q	65536.0			/* FP_ONE as a double */
#define E_Q16	178145ULL		/* e in Q16, ETC's default alpha */
#define FUZZ_ITERS	1000000
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Documented bounds, see the comment at the top of cc_fixedpoint.h */
#define LOG_ABS		(ldexp(1, -17) + ldexp(1, -26))
#define LOG_REL		0.0001
#define LOG_REL_FLOOR	0.1
#define LOGB_ABS	ldexp(1, -17)
#define LOGB_RELTERM	0.0002
#define LOGB_REL	0.0003
#define LOGB_BIG_BASE	(FP_ONE + FP_ONE / 16)	/* 1.0625 */
#define LOGB_BIG_ABS	(ldexp(1, -17) + ldexp(1, -25))
#define LOGB_BIG_RELTERM ldexp(1, -25)
#define LOGB_BIG_REL	0.0001
#define EXP_ABS		ldexp(1, -17)
#define EXP_RELTERM	(0.1 / 1e6)
#define EXP_REL		0.0001
#define EXP_REL_FLOOR	0.1
#define SIG_ABS		(ldexp(1, -17) + ldexp(1, -26))
#define SIG_REL3	0.001
#define SIG_REL3_FLOOR	ldexp(1, -7)
#define SIG_REL5	0.0005
#define SIG_REL5_FLOOR	ldexp(1, -6)
#define SIG_REL4	0.0001
#define SIG_REL4_FLOOR	ldexp(1, -3)

/* Random value with a uniformly random bit length in [0, 64] */
static u64 rnd_bits(void)
{
	unsigned int len = rnd64() % 65;

	if (!len)
		return 0;
	return (rnd64() >> (64 - len)) | (1ULL << (len - 1));
}

/* Mostly rnd_bits(), sometimes an edge value */
static u64 rnd_edgy(void)
{
	static const u64 edges[] = {
		0, 1, 2, 3, 0xffff, 0x10000, 0x10001, 0xfffffffeULL,
		0xffffffffULL, 0x100000000ULL, 1ULL << 48, (1ULL << 48) - 1,
		1ULL << 62, 1ULL << 63, (1ULL << 63) - 1, U64_MAX, U64_MAX - 1,
	};
	u64 r = rnd64();

	if (r % 8 == 0)
		return edges[(r >> 8) % ARRAY_SIZE(edges)];
	return rnd_bits();
}

struct errstat {
	const char *name;
	double max_abs, max_abs_at;
	double max_rel, max_rel_at;
	double rel_floor;
	double abs_bound, rel_term;	/* allowed: abs_bound + rel_term*|y| */
	unsigned long n, n_rel, bad;
	double bad_at, bad_got, bad_want;
};

static void es_init(struct errstat *es, const char *name, double rel_floor,
		    double abs_bound, double rel_term)
{
	*es = (struct errstat){ .name = name, .rel_floor = rel_floor,
				.abs_bound = abs_bound, .rel_term = rel_term };
}

static void es_add(struct errstat *es, double at, double got, double want)
{
	double err = fabs(got - want);

	es->n++;
	if (!(err <= es->abs_bound + es->rel_term * fabs(want))) {
		if (!es->bad++) {
			es->bad_at = at;
			es->bad_got = got;
			es->bad_want = want;
		}
	}
	/* Absolute error is only meaningful where the result is small */
	if (fabs(want) <= 1.0 && err > es->max_abs) {
		es->max_abs = err;
		es->max_abs_at = at;
	}
	if (fabs(want) >= es->rel_floor) {
		es->n_rel++;
		if (err / fabs(want) > es->max_rel) {
			es->max_rel = err / fabs(want);
			es->max_rel_at = at;
		}
	}
}

static void es_report(const struct errstat *es, const char *desc)
{
	if (es->bad)
		tap(0, desc,
		    "%lu of %lu points over the bound %.3g + %.3g*|y|, first at x=%.17g: got %.17g want %.17g",
		    es->bad, es->n, es->abs_bound, es->rel_term, es->bad_at,
		    es->bad_got, es->bad_want);
	else
		tap(1, desc,
		    "%s: max abs err %.3g (2^%.2f) at x=%.10g (|y|<=1), max rel err %.3g at x=%.10g (|y|>=%g) over %lu points",
		    es->name, es->max_abs, log2(es->max_abs), es->max_abs_at,
		    es->max_rel, es->max_rel_at, es->rel_floor, es->n);
}

static void es_assert_rel(const struct errstat *es, double bound,
			  const char *desc)
{
	tap(es->max_rel <= bound, desc,
	    "%s: max rel err %.3g where |y| >= %g (bound %g) over %lu points",
	    es->name, es->max_rel, es->rel_floor, bound, es->n_rel);
}

/* ---------------------------------------------------------------- log */

static void check_log_one(struct errstat *l2, struct errstat *ln, u64 x)
{
	double xd = (double)x / Q;

	es_add(l2, xd, fp_log2(x) / Q, log2(xd));
	es_add(ln, xd, fp_ln(x) / Q, log(xd));
}

static void test_log(void)
{
	struct errstat l2, ln;
	unsigned int e, i;
	u64 x;

	es_init(&l2, "fp_log2", LOG_REL_FLOOR, LOG_ABS, 0);
	es_init(&ln, "fp_ln", LOG_REL_FLOOR, LOG_ABS, 0);

	/* Exhaustive over [2^-16, 16), which includes the zero crossing */
	for (x = 1; x <= 1ULL << 20; x++)
		check_log_one(&l2, &ln, x);
	/* Log-spaced over the rest, plus the neighbours of each point */
	for (e = 20; e < 64; e++) {
		for (i = 0; i < 8192; i++) {
			x = (1ULL << e) + ((u64)i << (e - 13));
			check_log_one(&l2, &ln, x - 1);
			check_log_one(&l2, &ln, x);
			check_log_one(&l2, &ln, x + 1);
		}
	}
	check_log_one(&l2, &ln, U64_MAX);
	for (i = 0; i < 200000; i++) {
		x = rnd_bits();
		if (x)
			check_log_one(&l2, &ln, x);
	}

	es_report(&l2, "fp_log2: sweep of [2^-16, 2^48) within 2^-17 + 2^-26");
	es_assert_rel(&l2, LOG_REL, "fp_log2: relative error <= 1e-4 where |y| >= 0.1");
	es_report(&ln, "fp_ln: sweep of [2^-16, 2^48) within 2^-17 + 2^-26");
	es_assert_rel(&ln, LOG_REL, "fp_ln: relative error <= 1e-4 where |y| >= 0.1");

	tap(fp_log2(0) == FP_LOG_NEG_INF && fp_ln(0) == FP_LOG_NEG_INF &&
	    fp_log_base(0, E_Q16) == FP_LOG_NEG_INF,
	    "log of 0 returns FP_LOG_NEG_INF", NULL);
	tap(fp_log2(1) == -16 * (s64)FP_ONE && fp_log2(FP_ONE) == 0 &&
	    fp_log2(1ULL << 63) == 47 * (s64)FP_ONE && fp_ln(FP_ONE) == 0,
	    "log2 exact at 1 ulp, 1.0 and 2^47", NULL);
	tap(fp_log2(U64_MAX) == 48 * (s64)FP_ONE &&
	    llabs(fp_ln(U64_MAX) - llround(log(0x1p48) * Q)) <= 1,
	    "log at U64_MAX (rounds to 48 in Q16)",
	    "log2 %lld ln %lld", (long long)fp_log2(U64_MAX),
	    (long long)fp_ln(U64_MAX));
}

static void check_logb_one(struct errstat *es, u64 x, u64 base)
{
	double xd = (double)x / Q, bd = (double)base / Q;

	es_add(es, xd, fp_log_base(x, base) / Q, log(xd) / log(bd));
}

static void test_log_base(void)
{
	static const u64 bases[] = {
		FP_ONE + 1, FP_ONE + 2, FP_ONE + 7, FP_ONE + 100,
		FP_ONE + 655, FP_ONE + 4096, 3 * FP_ONE / 2, 2 * FP_ONE,
		E_Q16, 3 * FP_ONE, 10 * FP_ONE, 100 * FP_ONE, 1ULL << 36,
		1ULL << 56, U64_MAX / 3, U64_MAX,
	};
	struct errstat es, big;
	unsigned int b, e, i;
	u64 x, base;

	es_init(&es, "fp_log_base", LOG_REL_FLOOR, LOGB_ABS, LOGB_RELTERM);
	es_init(&big, "fp_log_base(base>=1.0625)", LOG_REL_FLOOR,
		LOGB_BIG_ABS, LOGB_BIG_RELTERM);
	for (b = 0; b < ARRAY_SIZE(bases); b++) {
		base = bases[b];
		for (e = 0; e < 64; e++) {
			for (i = 0; i < 512; i++) {
				x = (1ULL << e) + (e >= 9 ? (u64)i << (e - 9) :
						   i % (1ULL << e));
				check_logb_one(&es, x, base);
				if (base >= LOGB_BIG_BASE)
					check_logb_one(&big, x, base);
			}
		}
		check_logb_one(&es, U64_MAX, base);
		check_logb_one(&es, 1, base);
		for (x = FP_ONE - 2000; x <= FP_ONE + 2000; x++) {
			check_logb_one(&es, x, base);
			if (base >= LOGB_BIG_BASE)
				check_logb_one(&big, x, base);
		}
	}
	for (i = 0; i < 300000; i++) {
		x = rnd_bits();
		base = rnd_bits();
		if (!x || base <= FP_ONE)
			continue;
		check_logb_one(&es, x, base);
		if (base >= LOGB_BIG_BASE)
			check_logb_one(&big, x, base);
	}
	es_report(&es, "fp_log_base: within 2^-17 + 2e-4*|y| for all base > 1");
	es_assert_rel(&es, LOGB_REL, "fp_log_base: relative error <= 3e-4 where |y| >= 0.1");
	es_report(&big, "fp_log_base: base >= 1.0625: within 2^-17 + 2^-25*(1+|y|)");
	es_assert_rel(&big, LOGB_BIG_REL,
		      "fp_log_base: base >= 1.0625: relative error <= 1e-4 where |y| >= 0.1");

	tap(fp_log_base(E_Q16, FP_ONE) == 0 && fp_log_base(E_Q16, 0) == 0 &&
	    fp_log_base(E_Q16, FP_ONE - 1) == 0,
	    "fp_log_base: base <= 1 returns 0", NULL);
	tap(fp_log_base(8 * FP_ONE, 2 * FP_ONE) == 3 * (s64)FP_ONE &&
	    fp_log_base(FP_ONE / 8, 2 * FP_ONE) == -3 * (s64)FP_ONE &&
	    fp_log_base(FP_ONE, E_Q16) == 0 &&
	    fp_log_base(E_Q16, E_Q16) == (s64)FP_ONE,
	    "fp_log_base: exact at powers of the base", NULL);
}

/* ---------------------------------------------------------------- exp */

static void test_exp(void)
{
	struct errstat es, neg;
	double max_over = 0;
	int mono = 1;
	u64 y, prev = 0;
	s64 x;

	es_init(&es, "fp_exp", EXP_REL_FLOOR, EXP_ABS, EXP_RELTERM);
	es_init(&neg, "fp_exp(x<=0)", EXP_REL_FLOOR, EXP_ABS + EXP_RELTERM, 0);
	/* Exhaustive over the whole domain */
	for (x = FP_EXP_MIN; x <= FP_EXP_MAX; x++) {
		double want = exp(x / Q);

		y = fp_exp(x);
		es_add(&es, x / Q, y / Q, want);
		if (x <= 0)
			es_add(&neg, x / Q, y / Q, want);
		/* no wrap-around: the u64 result tracks the double one */
		if (fabs(y / Q - want) / want > max_over && want > 1)
			max_over = fabs(y / Q - want) / want;
		if (y < prev)
			mono = 0;
		prev = y;
	}
	es_report(&es, "fp_exp: exhaustive [-12, 33.27] within 2^-17 + 1e-7*e^x");
	es_assert_rel(&es, EXP_REL, "fp_exp: relative error <= 1e-4 where e^x >= 0.1");
	es_report(&neg, "fp_exp: absolute error <= 2^-17 + 1e-7 for x <= 0");
	tap(mono, "fp_exp: monotonic over the domain", NULL);
	tap(max_over < 0.0001, "fp_exp: no overflow up to FP_EXP_MAX",
	    "max rel err vs double for e^x > 1: %.3g", max_over);

	y = fp_exp(FP_EXP_MAX);
	tap(y > (1ULL << 63) && y != FP_EXP_SAT &&
	    fabs((double)y / (exp(FP_EXP_MAX / Q) * Q) - 1) < 0.00001,
	    "fp_exp: at FP_EXP_MAX just below 2^64",
	    "e^%.6f = %llu", FP_EXP_MAX / Q, (unsigned long long)y);
	tap(fp_exp(FP_EXP_MAX + 1) == FP_EXP_SAT && fp_exp(S64_MAX) == FP_EXP_SAT &&
	    fp_exp(100 * (s64)FP_ONE) == FP_EXP_SAT,
	    "fp_exp: saturates above FP_EXP_MAX", NULL);
	tap(fp_exp(FP_EXP_MIN - 1) == 0 && fp_exp(S64_MIN) == 0 &&
	    fp_exp(FP_EXP_MIN) <= 1,
	    "fp_exp: 0 below FP_EXP_MIN", NULL);
	tap(fp_exp(0) == FP_ONE && fp_exp(FP_ONE) == E_Q16,
	    "fp_exp: e^0 == 1 and e^1 == e exactly in Q16",
	    "e^0 %llu, e^1 %llu", (unsigned long long)fp_exp(0),
	    (unsigned long long)fp_exp(FP_ONE));
}

/* ------------------------------------------------------------ sigmoid */

static double sigmoid_ref(double x)
{
	return 1.0 / (1.0 + exp(x));
}

static void test_sigmoid(void)
{
	static const s64 huge[] = {
		22 * (s64)FP_ONE, 95 * (s64)FP_ONE, 1000 * (s64)FP_ONE,
		S64_MAX, S64_MAX - 1, 1LL << 62,
	};
	struct errstat es;
	int mono = 1, sym = 1, sat = 1;
	unsigned int i;
	u64 y, prev = FP_ONE;
	s64 x;

	es_init(&es, "fp_sigmoid", SIG_REL3_FLOOR, SIG_ABS, 0);
	for (x = -FP_SIGMOID_SAT - 65536; x <= FP_SIGMOID_SAT + 65536; x++) {
		y = fp_sigmoid(x);
		es_add(&es, x / Q, y / Q, sigmoid_ref(x / Q));
		if (y > prev)
			mono = 0;
		prev = y;
		if (y + fp_sigmoid(-x) != FP_ONE && x % 8 == 0)
			sym = 0;
	}
	es_report(&es, "fp_sigmoid: exhaustive [-23, 23] within 2^-17 + 2^-26");
	es_assert_rel(&es, SIG_REL3, "fp_sigmoid: relative error <= 1e-3 where y >= 2^-7");
	es_init(&es, "fp_sigmoid", SIG_REL5_FLOOR, SIG_ABS, 0);
	for (x = -FP_SIGMOID_SAT; x <= FP_SIGMOID_SAT; x++)
		es_add(&es, x / Q, fp_sigmoid(x) / Q, sigmoid_ref(x / Q));
	es_assert_rel(&es, SIG_REL5, "fp_sigmoid: relative error <= 5e-4 where y >= 2^-6");
	es_init(&es, "fp_sigmoid", SIG_REL4_FLOOR, SIG_ABS, 0);
	for (x = -FP_SIGMOID_SAT; x <= FP_SIGMOID_SAT; x++)
		es_add(&es, x / Q, fp_sigmoid(x) / Q, sigmoid_ref(x / Q));
	es_assert_rel(&es, SIG_REL4, "fp_sigmoid: relative error <= 1e-4 where y >= 2^-3");
	tap(mono, "fp_sigmoid: monotonically non-increasing", NULL);
	tap(sym, "fp_sigmoid: sigmoid(x) + sigmoid(-x) == FP_ONE", NULL);
	for (i = 0; i < ARRAY_SIZE(huge); i++) {
		if (fp_sigmoid(huge[i]) != 0 || fp_sigmoid(-huge[i]) != FP_ONE)
			sat = 0;
	}
	tap(sat && fp_sigmoid(S64_MIN) == FP_ONE && fp_sigmoid(0) == FP_ONE / 2,
	    "fp_sigmoid: 0 / FP_ONE at +-huge, 1/2 at 0", NULL);

	/* PCC: Sigmoid_alpha(loss - 0.05) = 1 / (1 + e^(100 * (loss - 0.05))) */
	es_init(&es, "pcc sigmoid", SIG_REL3_FLOOR, SIG_ABS, 0);
	for (i = 0; i <= 1000; i++) {
		double loss = i / 1000.0;
		s64 xq = 100 * ((s64)llround(loss * Q) - (s64)llround(0.05 * Q));

		es_add(&es, loss, fp_sigmoid(xq) / Q, sigmoid_ref(xq / Q));
	}
	es_report(&es, "fp_sigmoid: PCC loss sweep 0..1 (x in [-5, 95])");
}

/* --------------------------------------------------------------- sqrt */

static int sqrt_ok(u64 x, u32 r)
{
	u64 r1 = (u64)r + 1;

	/* r^2 <= x < (r + 1)^2, where (2^32)^2 does not fit */
	return (u64)r * r <= x && (r1 > 0xffffffffULL || r1 * r1 > x);
}

static void test_sqrt(void)
{
	unsigned long bad = 0, n = 0;
	u64 x, r, bad_x = 0;
	unsigned int i;

#define CHECK_SQRT(v) do {				\
		u64 v_ = (v);				\
		n++;					\
		if (!sqrt_ok(v_, int_sqrt64(v_)) && !bad++) \
			bad_x = v_;			\
	} while (0)

	for (x = 0; x < 1ULL << 22; x++)
		CHECK_SQRT(x);
	for (i = 0; i < 200000; i++) {
		r = rnd64() >> (32 + rnd64() % 32);
		CHECK_SQRT(r * r);
		CHECK_SQRT(r * r - 1);
		CHECK_SQRT(r * r + 2 * r);
		CHECK_SQRT(rnd_bits());
	}
	for (r = 0xffffffffULL - 4096; r <= 0xffffffffULL; r++) {
		CHECK_SQRT(r * r);
		CHECK_SQRT(r * r - 1);
		CHECK_SQRT(r * r + r);
	}
#undef CHECK_SQRT
	tap(!bad, "int_sqrt64 (cc_user.h): floor(sqrt(x)) exact on squares, squares-1 and random",
	    "%lu of %lu wrong, first x=%llu", bad, n, (unsigned long long)bad_x);
	tap(int_sqrt64(0) == 0 && int_sqrt64(1) == 1 && int_sqrt64(U64_MAX) == 0xffffffffU &&
	    int_sqrt64(0xfffffffe00000001ULL) == 0xffffffffU &&
	    int_sqrt64(0xfffffffe00000000ULL) == 0xfffffffeU &&
	    int_sqrt64(1ULL << 62) == 1U << 31 && int_sqrt64((1ULL << 62) - 1) == (1U << 31) - 1,
	    "int_sqrt64 (cc_user.h): 0, 1, U64_MAX, (2^32-1)^2, 2^62", NULL);
}

/* ----------------------------------------------------------- div, mul */

#ifdef __SIZEOF_INT128__
static u64 div_ref(u64 num, u64 den)
{
	unsigned __int128 q;

	if (!den)
		return FP_DIV_SAT;
	q = ((unsigned __int128)num << 16) / den;
	return q >> 64 ? FP_DIV_SAT : (u64)q;
}

static u64 mul_ref(u64 a, u64 b)
{
	unsigned __int128 p = ((unsigned __int128)a * b) >> 16;

	return p >> 64 ? FP_MUL_SAT : (u64)p;
}
#else
/*
 * Without a 128-bit type (i386, MIPS32, ARMv7) the references still work
 * exactly, on 32-bit limbs: a long double reference is not enough where
 * long double is a double (MIPS o32, ARM), and would need a tolerance.
 */

/* a * b as four 32-bit limbs, most significant first */
static void mul_limbs(u64 a, u64 b, u32 r[4])
{
	u64 x[2] = { a >> 32, (u32)a }, y[2] = { b >> 32, (u32)b };
	u64 acc[4] = { 0 };
	int i, j;

	for (i = 1; i >= 0; i--)
		for (j = 1; j >= 0; j--) {
			u64 p = x[i] * y[j];
			int k = i + j + 1;

			/* the low and high halves into limbs k and k - 1, with carries */
			acc[k] += (u32)p;
			acc[k - 1] += p >> 32;
		}
	for (i = 3; i > 0; i--) {
		acc[i - 1] += acc[i] >> 32;
		acc[i] = (u32)acc[i];
	}
	for (i = 0; i < 4; i++)
		r[i] = acc[i];
}

static u64 div_ref(u64 num, u64 den)
{
	/* (num << 16) / den by shift and subtract over the 80-bit dividend */
	u64 hi = num >> 48, lo = num << 16, rem = 0, q = 0;
	int i;

	if (!den)
		return FP_DIV_SAT;
	if (hi >= den)			/* quotient >= 2^64 */
		return FP_DIV_SAT;
	rem = hi;
	for (i = 63; i >= 0; i--) {
		int top = rem >> 63;

		rem = rem << 1 | (lo >> i & 1);
		q <<= 1;
		if (top || rem >= den) {
			rem -= den;
			q |= 1;
		}
	}
	return q;
}

static u64 mul_ref(u64 a, u64 b)
{
	u32 r[4];

	mul_limbs(a, b, r);
	/* (a * b) >> 16 fits in 64 bits when a * b < 2^80 */
	if (r[0] || r[1] >> 16)
		return FP_MUL_SAT;
	return (u64)(r[1] & 0xffff) << 48 | (u64)r[2] << 16 | r[3] >> 16;
}
#endif

static int near(u64 got, u64 want)
{
	return got == want;
}

static void test_div_mul(void)
{
	unsigned long bad = 0, badm = 0;
	u64 a, b, bad_a = 0, bad_b = 0;
	double max_over = 0;
	unsigned int i;

	for (i = 0; i < 1000000; i++) {
		a = rnd_edgy();
		b = rnd_edgy();
		if (!near(fp_div(a, b), div_ref(a, b)) && !bad++) {
			bad_a = a;
			bad_b = b;
		}
		if (!near(fp_mul(a, b), mul_ref(a, b)))
			badm++;
		/* below one ulp (floor) plus the rounding of the doubles */
		if (b && fp_div(a, b) != FP_DIV_SAT) {
			double want = (double)a / b;
			double err = fabs(fp_div(a, b) / Q - want) /
				     (ldexp(1, -16) + ldexp(want, -50));

			if (err > max_over)
				max_over = err;
		}
	}
	tap(!bad, "fp_div: exact floor(num * 2^16 / den) on 10^6 random pairs",
	    "%lu wrong, first %llu / %llu", bad, (unsigned long long)bad_a,
	    (unsigned long long)bad_b);
	tap(max_over <= 1, "fp_div: no overflow (vs double, within 1 ulp)",
	    "max err %.3g of (2^-16 + 2^-50 * y)", max_over);
	tap(fp_div(12345, 0) == FP_DIV_SAT && fp_div(0, 0) == FP_DIV_SAT &&
	    fp_div(U64_MAX, 0) == FP_DIV_SAT,
	    "fp_div: den == 0 saturates", NULL);
	tap(fp_div(1ULL << 48, 1) == FP_DIV_SAT && fp_div(1ULL << 63, 1) == FP_DIV_SAT &&
	    fp_div(U64_MAX, 0xffff) == FP_DIV_SAT &&
	    fp_div((1ULL << 48) - 1, 1) == ((1ULL << 48) - 1) << 16 &&
	    fp_div(U64_MAX, 1ULL << 16) == U64_MAX &&
	    fp_div(1ULL << 63, 1ULL << 63) == FP_ONE &&
	    fp_div(1ULL << 63, U64_MAX) == FP_ONE / 2 &&
	    fp_div(U64_MAX - 1, U64_MAX) == FP_ONE - 1 &&
	    fp_div(0, 7) == 0 && fp_div(1, 3) == 21845,
	    "fp_div: saturation at 2^48 and exact edges up to 2^64", NULL);
	tap(!badm && fp_mul(U64_MAX, U64_MAX) == FP_MUL_SAT &&
	    fp_mul(U64_MAX, FP_ONE) == U64_MAX && fp_mul(U64_MAX, FP_ONE + 1) == FP_MUL_SAT &&
	    fp_mul(3, FP_ONE / 2) == 1,
	    "fp_mul: exact floor(a * b / 2^16) with saturation",
	    "%lu wrong", badm);
}

/* ---------------------------------------------------------------- ETC */

static void test_etc(void)
{
	static const u64 rates[] = {
		1000, 125000, 1250000, 12500000, 1250000000ULL,
		100000000000ULL, 1ULL << 40,
	};
	double alpha = E_Q16 / Q, worst_one = 0, worst_fifth = 0;
	double worst_snew = 0, f5 = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rates); i++) {
		u64 rp = rates[i], s = rp / 5, f, snew;
		double want;

		/* s == Rp: log_alpha(1 + alpha - 1) == 1 */
		f = fp_log_base(fp_div(rp, rp) + E_Q16 - FP_ONE, E_Q16);
		if (fabs(f / Q - 1) > worst_one)
			worst_one = fabs(f / Q - 1);

		/* s == Rp / 5 */
		f = fp_log_base(fp_div(rp, s) + E_Q16 - FP_ONE, E_Q16);
		want = log((double)rp / s + alpha - 1) / log(alpha);
		if (fabs(f / Q - want) / want > worst_fifth)
			worst_fifth = fabs(f / Q - want) / want;
		f5 = f / Q;

		snew = fp_mul(s, f);
		if (fabs(snew - s * want) / (s * want) > worst_snew && s > 1000)
			worst_snew = fabs(snew - s * want) / (s * want);
	}
	tap(worst_one <= 0.001, "ETC: log_alpha(Rp/s + alpha - 1) == 1 at s == Rp",
	    "max |f - 1| %.3g", worst_one);
	tap(worst_fifth <= 0.001, "ETC: factor at s == Rp/5 matches libm within 1e-3",
	    "max rel err %.3g, f = %.6f", worst_fifth, f5);
	tap(fabs(f5 / 2 - 1) <= 0.05, "ETC: factor at s == Rp/5 is about 2 (5%)",
	    "f = %.6f", f5);
	tap(worst_snew <= 0.001, "ETC: s * f (fp_mul) matches libm within 1e-3",
	    "max rel err %.3g", worst_snew);
}

/* --------------------------------------------------------------- fuzz */

static void test_fuzz(void)
{
	struct errstat l2, ln, lb, ex, sg;
	unsigned long bad_sat = 0, bad_sqrt = 0;
	unsigned int i;

	es_init(&l2, "fuzz fp_log2", LOG_REL_FLOOR, LOG_ABS, 0);
	es_init(&ln, "fuzz fp_ln", LOG_REL_FLOOR, LOG_ABS, 0);
	es_init(&lb, "fuzz fp_log_base", LOG_REL_FLOOR, LOGB_ABS, LOGB_RELTERM);
	es_init(&ex, "fuzz fp_exp", EXP_REL_FLOOR, EXP_ABS, EXP_RELTERM);
	es_init(&sg, "fuzz fp_sigmoid", SIG_REL3_FLOOR, SIG_ABS, 0);

	for (i = 0; i < FUZZ_ITERS; i++) {
		u64 a = rnd_edgy(), b = rnd_edgy();
		/* signed argument: mostly in a few hundred of Q16 range */
		s64 s = (s64)(rnd64() & 1 ? a : a >> (rnd64() % 40));
		double ad = (double)a / Q, bd = (double)b / Q, sd;
		u64 y;

		if (rnd64() & 1)
			s = (s64)(-(u64)s);
		sd = (double)s / Q;

		if (a) {
			es_add(&l2, ad, fp_log2(a) / Q, log2(ad));
			es_add(&ln, ad, fp_ln(a) / Q, log(ad));
		} else if (fp_log2(a) != FP_LOG_NEG_INF || fp_ln(a) != FP_LOG_NEG_INF) {
			bad_sat++;
		}
		if (a && b > FP_ONE)
			es_add(&lb, ad, fp_log_base(a, b) / Q, log(ad) / log(bd));
		else if (fp_log_base(a, b) != (a ? 0 : FP_LOG_NEG_INF))
			bad_sat++;

		y = fp_exp(s);
		if (s > FP_EXP_MAX)
			bad_sat += y != FP_EXP_SAT;
		else if (s < FP_EXP_MIN)
			bad_sat += y != 0;
		else
			es_add(&ex, sd, y / Q, exp(sd));

		y = fp_sigmoid(s);
		if (y > FP_ONE)
			bad_sat++;
		es_add(&sg, sd, y / Q, sigmoid_ref(sd));

		bad_sqrt += !sqrt_ok(a, int_sqrt64(a));
	}
	es_report(&l2, "fuzz: fp_log2 within bounds");
	es_report(&ln, "fuzz: fp_ln within bounds");
	es_report(&lb, "fuzz: fp_log_base within bounds");
	es_report(&ex, "fuzz: fp_exp within bounds");
	es_report(&sg, "fuzz: fp_sigmoid within bounds");
	tap(!bad_sat && !bad_sqrt,
	    "fuzz: sentinels and saturation outside the domains, int_sqrt64 exact",
	    "%lu bad sentinel/saturation, %lu bad sqrt", bad_sat, bad_sqrt);
}

int main(void)
{
	test_log();
	test_log_base();
	test_exp();
	test_sigmoid();
	test_sqrt();
	test_div_mul();
	test_etc();
	test_fuzz();

	return tap_finish();
}
