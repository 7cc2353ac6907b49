// SPDX-License-Identifier: GPL-2.0
/*
 * sis-load: small, deterministic loads for the wakeup-path tests.
 *
 *   sis-load [-c CPULIST] spin SECONDS      busy loop
 *   sis-load [-c CPULIST] pingpong LOOPS [PARTNER]
 *                                           two processes bounce a byte
 *                                           over a pair of pipes; with
 *                                           PARTNER, both start on CPULIST
 *                                           and then may use PARTNER
 *   sis-load -c HOME wakeups LOOPS WIDE     a spinning waker wakes a
 *                                           sleeper LOOPS times; before each
 *                                           sleep the sleeper moves back to
 *                                           HOME and then allows WIDE, so
 *                                           every wakeup starts in HOME
 *
 * -c pins the process (both processes of a pair) to CPULIST ("0-7,9").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: sis-load [-c CPULIST] spin SECONDS\n"
		"       sis-load [-c CPULIST] pingpong LOOPS [PARTNER]\n"
		"       sis-load -c HOME wakeups LOOPS WIDE\n");
	exit(2);
}

static void parse(const char *list, cpu_set_t *setp)
{
	cpu_set_t set;
	const char *p = list;

	CPU_ZERO(&set);
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p || a < 0 || a >= CPU_SETSIZE)
			usage();
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b >= CPU_SETSIZE)
				usage();
		}
		for (; a <= b; a++)
			CPU_SET(a, &set);
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			usage();
	}
	*setp = set;
}

static void pin(const char *list)
{
	cpu_set_t set;

	parse(list, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

static long number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v <= 0)
		usage();
	return v;
}

static void spin(long seconds)
{
	double stop = now() + seconds;
	volatile unsigned long n = 0;

	while (now() < stop)
		for (int i = 0; i < 100000; i++)
			n++;
}

static void bounce(int in, int out, long loops, int first)
{
	char c = 0;

	for (long i = 0; i < loops; i++) {
		if (first && write(out, &c, 1) != 1)
			die("write");
		if (read(in, &c, 1) != 1)
			die("read");
		if (!first && write(out, &c, 1) != 1)
			die("write");
	}
}

static void pingpong(long loops, const char *partner)
{
	int ab[2], ba[2], status;
	pid_t pid;

	if (pipe(ab) || pipe(ba))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (partner)
			pin(partner);
		bounce(ab[0], ba[1], loops, 0);
		_exit(0);
	}
	if (partner)
		pin(partner);
	bounce(ba[0], ab[1], loops, 1);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("partner failed");
}

static void wakeups(const char *home, long loops, const char *wide)
{
	volatile long *ready;
	cpu_set_t h, w;
	int fd[2], status;
	pid_t pid;
	char c = 0;

	parse(home, &h);
	parse(wide, &w);
	ready = mmap(NULL, sizeof(*ready), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ready == MAP_FAILED)
		die("mmap");
	*ready = 0;
	if (pipe(fd))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		for (long i = 1; i <= loops; i++) {
			if (sched_setaffinity(0, sizeof(h), &h) ||
			    sched_setaffinity(0, sizeof(w), &w))
				die("sched_setaffinity");
			__atomic_store_n(ready, i, __ATOMIC_RELEASE);
			if (read(fd[0], &c, 1) != 1)
				die("read");
		}
		_exit(0);
	}
	/* the waker never sleeps, so only the sleeper's wakeups happen */
	for (long i = 1; i <= loops; i++) {
		while (__atomic_load_n(ready, __ATOMIC_ACQUIRE) < i)
			;
		/* give the sleeper time to block in read() */
		for (volatile int n = 0; n < 20000; n++)
			;
		if (write(fd[1], &c, 1) != 1)
			die("write");
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("sleeper failed");
}

int main(int argc, char **argv)
{
	const char *home = NULL;
	int i = 1;

	if (i + 1 < argc && !strcmp(argv[i], "-c")) {
		home = argv[i + 1];
		pin(home);
		i += 2;
	}
	if (argc - i == 3 && home && !strcmp(argv[i], "wakeups")) {
		wakeups(home, number(argv[i + 1]), argv[i + 2]);
		return 0;
	}
	if (argc - i == 3 && !strcmp(argv[i], "pingpong")) {
		pingpong(number(argv[i + 1]), argv[i + 2]);
		return 0;
	}
	if (argc - i != 2)
		usage();
	if (!strcmp(argv[i], "spin"))
		spin(number(argv[i + 1]));
	else if (!strcmp(argv[i], "pingpong"))
		pingpong(number(argv[i + 1]), NULL);
	else
		usage();
	return 0;
}
