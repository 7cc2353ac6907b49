/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the lab's programs in tools/. */
#ifndef LAB_TOOL_H
#define LAB_TOOL_H

#include <errno.h>
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

#endif
