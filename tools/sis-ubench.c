// SPDX-License-Identifier: GPL-2.0
/*
 * sis-ubench: UnixBench-style system tests.
 *
 *   sis-ubench [-c COPIES] [-t SECONDS] TEST
 *
 *   syscall   close(dup()), getpid(), getuid() and umask() in a loop
 *   pipe      one process writes 512 bytes to a pipe and reads them back
 *   context1  two processes pass an incrementing counter over two pipes
 *   spawn     fork a child that exits at once, wait for it
 *   execl     the process exec()s itself until the time is up
 *
 * COPIES processes run the test in parallel for SECONDS; the result line
 * has the shape of UnixBench's "Run" summary, with loops per second summed
 * over the copies:
 *
 *   System Call Overhead                       1234567.8 lps   (10.0 s, 2 copies)
 *
 * context1 checks every counter it receives and fails on a wrong one.
 * --self-test runs every test briefly and checks each made progress.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

struct test {
	const char *name, *title;
	uint64_t (*fn)(double end);
};

static uint64_t t_syscall(double end)
{
	uint64_t n = 0;

	while (now() < end) {
		int i;

		for (i = 0; i < 100; i++) {
			close(dup(0));
			getpid();
			getuid();
			umask(022);
		}
		n += 100;
	}
	return n;
}

static uint64_t t_pipe(double end)
{
	char buf[512] = { 0 };
	uint64_t n = 0;
	int p[2];

	if (pipe(p))
		die("pipe");
	while (now() < end) {
		int i;

		for (i = 0; i < 100; i++)
			if (write(p[1], buf, sizeof(buf)) != sizeof(buf) ||
			    read(p[0], buf, sizeof(buf)) != sizeof(buf))
				die("pipe i/o");
		n += 100;
	}
	return n;
}

static uint64_t t_context1(double end)
{
	int to[2], back[2];
	uint64_t v, n = 0;
	pid_t child;

	if (pipe(to) || pipe(back))
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (!child) {
		/* echo each counter back; stop when the parent closes */
		close(to[1]);
		close(back[0]);
		while (read(to[0], &v, sizeof(v)) == sizeof(v))
			if (write(back[1], &v, sizeof(v)) != sizeof(v))
				_exit(1);
		_exit(0);
	}
	close(to[0]);
	close(back[1]);
	while (now() < end) {
		uint64_t got;

		v = n + 1;
		if (write(to[1], &v, sizeof(v)) != sizeof(v) ||
		    read(back[0], &got, sizeof(got)) != sizeof(got))
			die("context1 pipe i/o");
		if (got != v) {
			fprintf(stderr, "sis-ubench: context1 sent %llu, got %llu back\n",
				(unsigned long long)v, (unsigned long long)got);
			exit(1);
		}
		n = v;
	}
	close(to[1]);
	waitpid(child, NULL, 0);
	return n;
}

static uint64_t t_spawn(double end)
{
	uint64_t n = 0;

	while (now() < end) {
		pid_t p = fork();

		if (p < 0)
			die("fork");
		if (!p)
			_exit(0);
		if (waitpid(p, NULL, 0) != p)
			die("waitpid");
		n++;
	}
	return n;
}

/*
 * execl: the chain of exec()s runs in a child; the last image writes the
 * count to fd 3, a pipe the parent reads.
 */
static uint64_t t_execl(double end)
{
	char deadline[32];
	uint64_t n = 0;
	int p[2];
	pid_t child;

	if (pipe(p))
		die("pipe");
	snprintf(deadline, sizeof(deadline), "%.6f", end);
	child = fork();
	if (child < 0)
		die("fork");
	if (!child) {
		if (dup2(p[1], 3) < 0)
			_exit(1);
		execl("/proc/self/exe", "sis-ubench", "--execl-step", deadline,
		      "0", (char *)NULL);
		_exit(1);
	}
	close(p[1]);
	if (read(p[0], &n, sizeof(n)) != sizeof(n))
		die("execl chain broke (is /proc mounted?)");
	close(p[0]);
	waitpid(child, NULL, 0);
	return n;
}

static int execl_step(const char *deadline, const char *count)
{
	uint64_t n = strtoull(count, NULL, 10);
	char next[32];

	if (now() >= strtod(deadline, NULL)) {
		if (write(3, &n, sizeof(n)) != sizeof(n))
			return 1;
		return 0;
	}
	snprintf(next, sizeof(next), "%llu", (unsigned long long)n + 1);
	execl("/proc/self/exe", "sis-ubench", "--execl-step", deadline, next,
	      (char *)NULL);
	return 1;
}

static const struct test tests[] = {
	{ "syscall", "System Call Overhead", t_syscall },
	{ "pipe", "Pipe Throughput", t_pipe },
	{ "context1", "Pipe-based Context Switching", t_context1 },
	{ "spawn", "Process Creation", t_spawn },
	{ "execl", "Execl Throughput", t_execl },
};
#define NR_TESTS (sizeof(tests) / sizeof(tests[0]))

/* run COPIES processes of T for SECS; return the summed loops */
static uint64_t run(const struct test *t, int copies, double secs, double *took)
{
	int p[2], i;
	uint64_t total = 0, n;
	double start, end;

	if (pipe(p))
		die("pipe");
	start = now();
	end = start + secs;
	for (i = 0; i < copies; i++) {
		pid_t c = fork();

		if (c < 0)
			die("fork");
		if (!c) {
			close(p[0]);
			n = t->fn(end);
			if (write(p[1], &n, sizeof(n)) != sizeof(n))
				_exit(1);
			_exit(0);
		}
	}
	close(p[1]);
	for (i = 0; i < copies; i++) {
		if (read(p[0], &n, sizeof(n)) != sizeof(n))
			die("a copy failed");
		total += n;
	}
	close(p[0]);
	while (wait(NULL) > 0)
		;
	*took = now() - start;
	return total;
}

static void usage(int rc)
{
	unsigned int i;

	fprintf(rc ? stderr : stdout,
		"usage: sis-ubench [-c COPIES] [-t SECONDS] TEST\n"
		"       sis-ubench --self-test\n"
		"TEST is one of:");
	for (i = 0; i < NR_TESTS; i++)
		fprintf(rc ? stderr : stdout, " %s", tests[i].name);
	fprintf(rc ? stderr : stdout, "\nDefaults: -c 1 -t 10.\n");
	exit(rc);
}

static int self_test(void)
{
	unsigned int i;
	int fails = 0;
	double took;

	for (i = 0; i < NR_TESTS; i++) {
		uint64_t n = run(&tests[i], 2, 0.1, &took);

		if (!n) {
			fprintf(stderr, "self-test: %s made no progress\n", tests[i].name);
			fails++;
		}
	}
	printf("sis-ubench self-test: %s\n", fails ? "FAILED" : "ok");
	return !!fails;
}

int main(int argc, char **argv)
{
	const struct test *t = NULL;
	double secs = 10, took;
	int copies = 1, opt;
	unsigned int i;
	uint64_t n;
	char *end;

	if (argc == 4 && !strcmp(argv[1], "--execl-step"))
		return execl_step(argv[2], argv[3]);
	if (argc > 1 && !strcmp(argv[1], "--self-test"))
		return self_test();
	if (argc > 1 && !strcmp(argv[1], "--help"))
		usage(0);
	while ((opt = getopt(argc, argv, "c:t:h")) != -1) {
		switch (opt) {
		case 'c':
			copies = strtol(optarg, &end, 10);
			if (*end || copies < 1 || copies > 65536)
				usage(2);
			break;
		case 't':
			secs = strtod(optarg, &end);
			if (*end || secs <= 0)
				usage(2);
			break;
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
	}
	if (optind != argc - 1)
		usage(2);
	for (i = 0; i < NR_TESTS; i++)
		if (!strcmp(argv[optind], tests[i].name))
			t = &tests[i];
	if (!t) {
		fprintf(stderr, "sis-ubench: unknown test '%s'\n", argv[optind]);
		usage(2);
	}
	n = run(t, copies, secs, &took);
	printf("%-40s%13.1f lps   (%.1f s, %d %s)\n", t->title, n / took, took,
	       copies, copies == 1 ? "copy" : "copies");
	return 0;
}
