// SPDX-License-Identifier: GPL-2.0
/*
 * sis-load: small, deterministic loads for the wakeup-path tests.
 *
 *   sis-load [-w] [-c CPULIST] spin SECONDS busy loop; -w first sleeps
 *                                           100 ms, so that a wakeup,
 *                                           not fork, places it
 *   sis-load [-c CPULIST] pingpong LOOPS [PARTNER [WARMUP]]
 *                                           two processes bounce a byte
 *                                           over a pair of pipes; with
 *                                           PARTNER, both start on CPULIST
 *                                           and then may use PARTNER, after
 *                                           WARMUP seconds if given
 *   sis-load [-c CPULIST] tcppingpong LOOPS [PARTNER [WARMUP]]
 *                                           the same over one loopback TCP
 *                                           connection: the partner is
 *                                           woken from the softirq that
 *                                           receives the byte
 *   sis-load -c CPULIST pair LOOPS OTHER    a pipe pingpong of a process on
 *                                           CPULIST and one on OTHER: no
 *                                           wakeup of it runs placement
 *                                           when each list has one CPU
 *   sis-load -c HOME rehome LOOPS WIDE      a pipe pingpong whose processes
 *                                           move back to HOME and then
 *                                           allow WIDE before each sleep,
 *                                           so every wakeup has HOME as
 *                                           the waker's and the wakee's CPU
 *   sis-load -c HOME [-b BUSY] [-s SLEEP] wakeups LOOPS WIDE
 *                                           a spinning waker wakes a
 *                                           sleeper LOOPS times; before each
 *                                           sleep the sleeper moves back to
 *                                           HOME (or SLEEP) and then allows
 *                                           WIDE, so every wakeup starts
 *                                           there; -b keeps the CPUs of
 *                                           BUSY busy with hogs of the same
 *                                           process
 *
 *   sis-load [-c CPULIST] getppid CALLS      CALLS getppid() system calls
 *                                           and nothing else: a known
 *                                           count for the cost plugin
 *   sis-load [-c CPULIST] getaffinity CALLS  CALLS sched_getaffinity()
 *                                           system calls: a known count of
 *                                           a scheduler function that
 *                                           calls a library helper
 *
 * -c pins the process (both processes of a pair) to CPULIST ("0-7,9").
 * -i runs it SCHED_IDLE and -k gives it a core-scheduling cookie of its
 * own (prctl PR_SCHED_CORE).  In wakeups mode -i applies to the sleeper
 * only; the cookie is taken before the sleeper and the -b hogs are
 * forked, so all of them share it and core scheduling never forces one
 * of them idle beside another (a cookie task pinned beside a hog without
 * it can wait on a forced-idle CPU for as long as the hog runs).  Either
 * way only the sleeper's wakeups happen: the waker and the hogs never
 * sleep.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE		62
#endif
#ifndef PR_SCHED_CORE_CREATE
#define PR_SCHED_CORE_CREATE	1
#endif
#define PIDTYPE_PID		0

static int idle_policy, cookie, wake_first;

static void usage(void)
{
	fprintf(stderr,
		"usage: sis-load [-i] [-k] [-w] [-c CPULIST] spin SECONDS\n"
		"       sis-load [-i] [-k] [-c CPULIST] pingpong|tcppingpong LOOPS [PARTNER [WARMUP]]\n"
		"       sis-load [-i] [-k] -c HOME [-b BUSY] [-s SLEEP] wakeups LOOPS WIDE\n"
		"       sis-load [-i] [-k] -c HOME rehome LOOPS WIDE\n"
		"       sis-load [-i] [-k] -c CPULIST pair LOOPS OTHER\n"
		"       sis-load [-c CPULIST] getppid|getaffinity CALLS\n");
	exit(2);
}

static void parse(const char *list, cpu_set_t *setp)
{
	if (parse_cpulist(list, setp))
		usage();
}

static void pin(const char *list)
{
	cpu_set_t set;

	parse(list, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

/* -k: a core-scheduling cookie of its own, inherited by later forks */
static void set_cookie(void)
{
	if (cookie && prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE, 0,
			    PIDTYPE_PID, 0))
		die("prctl(PR_SCHED_CORE_CREATE)");
}

/* -i: SCHED_IDLE */
static void set_policy(void)
{
	struct sched_param sp = { .sched_priority = 0 };

	if (idle_policy && sched_setscheduler(0, SCHED_IDLE, &sp))
		die("sched_setscheduler(SCHED_IDLE)");
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

	if (wake_first)
		usleep(100000);
	while (now() < stop)
		for (int i = 0; i < 100000; i++)
			n++;
}

/*
 * Until the WARMUP deadline, stay on -c's CPUs; then allow PARTNER.  With
 * home, move back to home and then allow wide before every sleep.
 */
struct widen {
	const char *partner;
	double at;
	const char *home, *wide;
};

static void bounce(int in, int out, long loops, int first, struct widen *w)
{
	char c = 0;

	for (long i = 0; i < loops; i++) {
		if (w->partner && !(i & 1023) && now() >= w->at) {
			pin(w->partner);
			w->partner = NULL;
		}
		if (first && write(out, &c, 1) != 1)
			die("write");
		if (w->home) {
			pin(w->home);
			pin(w->wide);
		}
		if (read(in, &c, 1) != 1)
			die("read");
		if (!first && write(out, &c, 1) != 1)
			die("write");
	}
}

/* a connected pair of loopback TCP sockets, Nagle off */
static void tcp_pair(int fd[2])
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int one = 1, l;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	fd[1] = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || fd[1] < 0)
		die("socket");
	if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&sa, &len))
		die("listen");
	if (connect(fd[1], (struct sockaddr *)&sa, sizeof(sa)))
		die("connect");
	fd[0] = accept(l, NULL, NULL);
	if (fd[0] < 0)
		die("accept");
	close(l);
	if (setsockopt(fd[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
	    setsockopt(fd[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		die("TCP_NODELAY");
}

static void pingpong(long loops, const char *partner, long warmup, int tcp,
		     const char *home, const char *other)
{
	struct widen w = { partner, now() + warmup, home, partner };
	int ab[2], ba[2], status;
	pid_t pid;

	if (tcp) {
		/* one connection carries both directions */
		tcp_pair(ab);
		ba[0] = ab[1];
		ba[1] = ab[0];
	} else if (pipe(ab) || pipe(ba)) {
		die("pipe");
	}
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (other)
			pin(other);
		bounce(ab[0], ba[1], loops, 0, &w);
		_exit(0);
	}
	bounce(ba[0], ab[1], loops, 1, &w);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("partner failed");
}

/* -b: a hog on each CPU of @busy, ended by SIGKILL or with its parent */
static int start_hogs(const char *busy, pid_t *hogs)
{
	cpu_set_t b, one;
	int n = 0;

	parse(busy, &b);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &b))
			continue;
		hogs[n] = fork();
		if (hogs[n] < 0)
			die("fork");
		if (hogs[n] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			if (sched_setaffinity(0, sizeof(one), &one))
				die("sched_setaffinity");
			for (volatile unsigned long i = 0;; i++)
				;
		}
		n++;
	}
	return n;
}

static void wakeups(const char *home, const char *busy, const char *sleep,
		    long loops, const char *wide)
{
	static pid_t hogs[CPU_SETSIZE];
	volatile long *ready;
	int fd[2], status, nhogs = 0;
	cpu_set_t h, w;
	pid_t pid;
	char c = 0;

	parse(sleep ? sleep : home, &h);
	parse(wide, &w);
	set_cookie();
	if (busy)
		nhogs = start_hogs(busy, hogs);
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
		set_policy();
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
		for (long n = 1; __atomic_load_n(ready, __ATOMIC_ACQUIRE) < i; n++) {
			/* now and then, see that the sleeper is still there */
			if (!(n & 0xfffff) && waitpid(pid, &status, WNOHANG) == pid)
				die("sleeper failed");
		}
		/* give the sleeper time to block in read() */
		for (volatile int n = 0; n < 20000; n++)
			;
		if (write(fd[1], &c, 1) != 1)
			die("write");
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("sleeper failed");
	for (int i = 0; i < nhogs; i++) {
		kill(hogs[i], SIGKILL);
		waitpid(hogs[i], NULL, 0);
	}
}

int main(int argc, char **argv)
{
	const char *home = NULL, *busy = NULL, *sleep = NULL;
	int i = 1;

	for (; i < argc; i++) {
		if (!strcmp(argv[i], "-i"))
			idle_policy = 1;
		else if (!strcmp(argv[i], "-k"))
			cookie = 1;
		else if (!strcmp(argv[i], "-w"))
			wake_first = 1;
		else
			break;
	}
	if (i + 1 < argc && !strcmp(argv[i], "-c")) {
		home = argv[i + 1];
		pin(home);
		i += 2;
	}
	if (i + 1 < argc && home && !strcmp(argv[i], "-b")) {
		busy = argv[i + 1];
		i += 2;
	}
	if (i + 1 < argc && home && !strcmp(argv[i], "-s")) {
		sleep = argv[i + 1];
		i += 2;
	}
	if (wake_first && (argc - i != 2 || strcmp(argv[i], "spin")))
		usage();
	if (argc - i == 3 && home && !strcmp(argv[i], "wakeups")) {
		wakeups(home, busy, sleep, number(argv[i + 1]), argv[i + 2]);
		return 0;
	}
	if (busy || sleep)
		usage();
	set_policy();
	set_cookie();
	if (argc - i == 3 && home && !strcmp(argv[i], "rehome")) {
		pingpong(number(argv[i + 1]), argv[i + 2], 0, 0, home, NULL);
		return 0;
	}
	if (argc - i == 3 && home && !strcmp(argv[i], "pair")) {
		pingpong(number(argv[i + 1]), NULL, 0, 0, NULL, argv[i + 2]);
		return 0;
	}
	if (argc - i >= 2 && argc - i <= 4 &&
	    (!strcmp(argv[i], "pingpong") || !strcmp(argv[i], "tcppingpong"))) {
		pingpong(number(argv[i + 1]), argc - i > 2 ? argv[i + 2] : NULL,
			 argc - i > 3 ? number(argv[i + 3]) : 0,
			 !strcmp(argv[i], "tcppingpong"), NULL, NULL);
		return 0;
	}
	if (argc - i == 2 && !strcmp(argv[i], "getppid")) {
		/* the libc wrapper may be a vDSO or cached call one day */
		for (long n = number(argv[i + 1]); n > 0; n--)
			syscall(SYS_getppid);
		return 0;
	}
	if (argc - i == 2 && !strcmp(argv[i], "getaffinity")) {
		cpu_set_t set;

		for (long n = number(argv[i + 1]); n > 0; n--)
			if (syscall(SYS_sched_getaffinity, 0, sizeof(set), &set) < 0)
				die("sched_getaffinity");
		return 0;
	}
	if (argc - i != 2 || strcmp(argv[i], "spin"))
		usage();
	spin(number(argv[i + 1]));
	return 0;
}
