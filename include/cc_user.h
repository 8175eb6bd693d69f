/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel names the pure cores use, for building them in userspace
 * (tests/unit, tests/model).  Included only when __KERNEL__ is not
 * defined; in the kernel the real headers provide all of it.  Each
 * definition follows the kernel's meaning, not its implementation.
 */
#ifndef _CC_USER_H
#define _CC_USER_H

#ifdef __KERNEL__
#error "cc_user.h is for userspace builds of the cores only"
#endif

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef __s8 s8;
typedef __u8 u8;
typedef __s16 s16;
typedef __u16 u16;
typedef __s32 s32;
typedef __u32 u32;
typedef __s64 s64;
typedef __u64 u64;

/* <linux/limits.h> */
#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define S32_MAX		((s32)(U32_MAX >> 1))
#define S32_MIN		(-S32_MAX - 1)
#define U64_MAX		((u64)~0ULL)
#define S64_MAX		((s64)(U64_MAX >> 1))
#define S64_MIN		(-S64_MAX - 1)

/* <linux/bits.h>, <linux/bitops.h> */
#define BIT(nr)		(1UL << (nr))
#define BIT_ULL(nr)	(1ULL << (nr))

static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/* <linux/compiler.h> */
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/* <linux/minmax.h>: evaluate each argument once, like the kernel's */
#define min(a, b)	({ __auto_type _a = (a); __auto_type _b = (b); _a < _b ? _a : _b; })
#define max(a, b)	({ __auto_type _a = (a); __auto_type _b = (b); _a > _b ? _a : _b; })
#define max3(a, b, c)	max(max(a, b), c)
#define min_t(t, a, b)	({ t _a = (a), _b = (b); _a < _b ? _a : _b; })
#define max_t(t, a, b)	({ t _a = (a), _b = (b); _a > _b ? _a : _b; })
#define clamp(v, lo, hi)	min(max(v, lo), hi)
#define clamp_t(t, v, lo, hi)	\
	({ t _v = (v), _lo = (lo), _hi = (hi); _v < _lo ? _lo : _v > _hi ? _hi : _v; })

/* <linux/time64.h>, <vdso/time64.h> */
#define MSEC_PER_SEC	1000L
#define USEC_PER_MSEC	1000L
#define NSEC_PER_USEC	1000L
#define NSEC_PER_MSEC	1000000L
#define USEC_PER_SEC	1000000L
#define NSEC_PER_SEC	1000000000L

/* <net/tcp.h>: u32 sequence (and time stamp) order, wrap-safe */
static inline bool before(u32 seq1, u32 seq2)
{
	return (s32)(seq1 - seq2) < 0;
}

#define after(seq2, seq1)	before(seq1, seq2)

/* <linux/math64.h> */
static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64_rem(u64 dividend, u64 divisor, u64 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline s64 div_s64(s64 dividend, s32 divisor)
{
	return dividend / divisor;
}

static inline s64 div64_s64(s64 dividend, s64 divisor)
{
	return dividend / divisor;
}

#define DIV_ROUND_UP(n, d)	({ __auto_type _d = (d); ((n) + _d - 1) / _d; })

static inline u64 DIV64_U64_ROUND_UP(u64 ll, u64 d)
{
	return div64_u64(ll + d - 1, d);
}

/* <linux/math.h>: floor(sqrt(x)) */
static inline u32 int_sqrt64(u64 x)
{
	u64 res = 0, bit;

	if (!x)
		return 0;
	bit = 1ULL << ((fls64(x) - 1) & ~1);
	while (bit) {
		if (x >= res + bit) {
			x -= res + bit;
			res = (res >> 1) + bit;
		} else {
			res >>= 1;
		}
		bit >>= 2;
	}
	return (u32)res;
}

#endif /* _CC_USER_H */
