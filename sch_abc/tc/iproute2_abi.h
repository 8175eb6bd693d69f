/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of iproute2's tc ABI that q_abc.so uses, declared here because
 * Debian ships no iproute2 development headers.  Checked against iproute2
 * 6.1 (Debian 12's tc) and 6.15 (bookworm-backports): tc/tc_util.h,
 * include/json_print.h, include/color.h, include/utils.h,
 * include/libnetlink.h, and the exported symbols and call sites of both tc
 * binaries (Documentation/q_abc.rst).  tc is linked with -rdynamic, so
 * these resolve against the tc that loads the plugin.
 */
#ifndef _Q_ABC_IPROUTE2_ABI_H
#define _Q_ABC_IPROUTE2_ABI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/*
 * struct qdisc_util, identical in 6.1 and 6.15 (6.15 only made the first
 * argument of the callbacks const, which does not change the ABI).  tc
 * links it into its list through ->next, so it must stay writable.
 */
struct qdisc_util {
	struct qdisc_util *next;
	const char *id;
	int (*parse_qopt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_qopt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*print_xstats)(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats);
	int (*parse_copt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_copt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*has_block)(struct qdisc_util *qu, struct rtattr *opt,
			 __u32 block_idx, bool *p_has);
};

enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = 4,
};

/* Last member of enum color_attr ("no colour") in 6.1 and 6.15 */
#define ABC_COLOR_NONE	6

/* tc's SPRINT_BSIZE: sprint_time() writes up to this many bytes */
#define ABC_SPRINT_BSIZE	64

/* Room tc leaves for a qdisc's options; every stock plugin uses 1024 */
#define ABC_OPT_MAXLEN	1024

int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data,
	      int alen);
struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type);
int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest);

void open_json_object(const char *str);
void close_json_object(void);
void open_json_array(enum output_type type, const char *delim);
void close_json_array(enum output_type type, const char *delim);
void print_nl(void);
int print_color_string(enum output_type t, int color, const char *key,
		       const char *fmt, const char *value);
int print_color_uint(enum output_type t, int color, const char *key,
		     const char *fmt, unsigned int value);
int print_color_u64(enum output_type t, int color, const char *key,
		    const char *fmt, uint64_t value);
int print_color_bool(enum output_type t, int color, const char *key,
		     const char *fmt, bool value);
int print_color_float(enum output_type t, int color, const char *key,
		      const char *fmt, double value);
void tc_print_rate(enum output_type t, const char *key, const char *fmt,
		   unsigned long long rate);
char *sprint_time(__u32 time, char *buf);

#endif /* _Q_ABC_IPROUTE2_ABI_H */
