/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the lab's programs in tools/. */
#ifndef LAB_TOOL_H
#define LAB_TOOL_H

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* "PROGRAM: MSG[: strerror(errno)]" on stderr, exit status 1 */
static inline void __attribute__((noreturn)) die(const char *msg)
{
	fprintf(stderr, "%s: %s%s%s\n", program_invocation_short_name, msg,
		errno ? ": " : "", errno ? strerror(errno) : "");
	exit(1);
}

/* CLOCK_MONOTONIC in seconds */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Parse a CPU list in Linux's form ("0-3,8,10-11") into *set: 0 if it is
 * one, -1 if not (empty, a bad range, a CPU beyond CPU_SETSIZE).
 * Needs _GNU_SOURCE before the first include.
 */
static inline int parse_cpulist(const char *list, cpu_set_t *set)
{
	const char *p = list;

	CPU_ZERO(set);
	if (!*p)
		return -1;
	while (*p) {
		char *end;
		long a, b;

		errno = 0;
		a = strtol(p, &end, 10);
		if (end == p || errno || a < 0 || a >= CPU_SETSIZE)
			return -1;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || errno || b < a || b >= CPU_SETSIZE)
				return -1;
		}
		for (; a <= b; a++)
			CPU_SET(a, set);
		p = end;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			return -1;
	}
	return 0;
}

/* a spin-wait hint to the CPU, as the kernel's cpu_relax() */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

#endif
