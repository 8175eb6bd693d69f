/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP output and a deterministic random source for the userspace unit
 * tests.  Each test calls tap() per case, then returns tap_finish().
 */
#ifndef _UNIT_TAP_H
#define _UNIT_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc_fixedpoint.h"

static int tap_num;
static int tap_failed;

/* One case; fmt (may be NULL) describes what was measured. */
static inline void tap(int pass, const char *desc, const char *fmt, ...)
{
	char buf[512] = "";
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(buf, sizeof(buf), fmt, ap);
		va_end(ap);
	}
	tap_num++;
	if (pass) {
		printf("ok %d - %s\n", tap_num, desc);
		if (*buf)
			printf("# %s\n", buf);
	} else {
		tap_failed++;
		if (*buf)
			printf("not ok %d - %s # measured %s\n", tap_num, desc, buf);
		else
			printf("not ok %d - %s\n", tap_num, desc);
	}
}

/* The plan goes last (TAP allows it) and the exit status follows it. */
static inline int tap_finish(void)
{
	printf("1..%d\n", tap_num);
	return tap_failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* splitmix64: the same sequence on every run and machine. */
static u64 rng_state = 0x5eed0f1c0ffee123ULL;

static inline u64 rnd64(void)
{
	u64 z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double rndu(void)
{
	return (rnd64() >> 11) * (1.0 / 9007199254740992.0);
}

/* Standard normal (Box-Muller); the two draws in a fixed order. */
static inline double rndn(void)
{
	double u = rndu();

	return sqrt(-2 * log(1 - u)) * cos(2 * M_PI * rndu());
}

#endif /* _UNIT_TAP_H */
