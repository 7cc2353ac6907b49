// SPDX-License-Identifier: GPL-2.0
/*
 * sis-handoff: two threads pinned to two CPUs hand one cache line back
 * and forth: known work for the sis-cost plugin's locality mode.
 *
 *   sis-handoff [-m] CPU_A CPU_B ROUNDS
 *   sis-handoff --self-test
 *
 * The line holds a counter.  Thread A, the main thread, on CPU_A, stores
 * 2i + 1 and waits until it reads 2i + 2; thread B, on CPU_B, waits until
 * it reads 2i + 1 and stores 2i + 2: ROUNDS round trips, 2 x ROUNDS
 * hand-offs, each one plain store that the other thread's plain loads
 * wait for (spinning, with PAUSE between the loads, and no system call).
 * A waits for B's last store too, and a thread that reads a value it did
 * not expect fails the run.
 *
 * In the plugin's model of one cache per LLC each hand-off between two
 * LLCs is one transfer, by the waiter's first load of the new value (the
 * store before it is an upgrade: the storing side read the line last):
 * 2 x ROUNDS transfers across the boundary between CPU_A's and CPU_B's
 * LLCs, none when they share one.
 *
 * -m runs the cost marker around the hand-offs, from thread A: the
 * system call of guest/cost-mark.sh (sethostname "sis-cost-N", N one
 * past the number the host name holds, else 0) just before A's first
 * store and just after it reads the last hand-off, and prints "marks N
 * N+1".  Whatever either thread touches between the two marks it has
 * touched before the first: the line, the flags and its own stack, the
 * marks' names written beforehand; B, once done, waits for a flag A sets
 * after the second mark.  So the interval holds the hand-offs' transfers
 * and nothing else of this program's.
 *
 * -m sets the host name: it is for the lab's guests.  With CPU_A equal to
 * CPU_B the waits yield the CPU to the other thread.
 *
 * Prints the hand-offs and the time they took (emulated time under TCG:
 * plumbing, not performance).  --self-test runs the hand-offs on one CPU,
 * then on every CPU allowed, with the waits yielding the CPU, and checks
 * that every value arrived in order; it also checks that bad arguments
 * are refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

#define LINE	64

/* each in a line of its own */
struct shared {
	_Alignas(LINE) uint64_t seq;
	_Alignas(LINE) int ready;
	_Alignas(LINE) int done;
};

static struct shared sh;

struct side {
	int cpu;
	uint64_t rounds;
	/* the self-test's: yield while waiting */
	int yield;
	/* what went wrong, or NULL */
	const char *err;
	uint64_t got, want;
};

static int on_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Wait until the counter reads @want.  Any other value than @want - 1
 * (the value the other side read last) fails: a lost or repeated
 * hand-off.  Returns the value read.
 */
static uint64_t wait_for(uint64_t want, int yield)
{
	unsigned int spins = 0;
	uint64_t v;

	while ((v = __atomic_load_n(&sh.seq, __ATOMIC_ACQUIRE)) != want) {
		if (v != want - 1)
			return v;
		cpu_relax();
		if (yield && ++spins % 64 == 0)
			sched_yield();
	}
	return v;
}

static void *partner(void *arg)
{
	struct side *s = arg;
	/* B's own copies: A's stack is A's, its lines must not move to B */
	uint64_t i, v, rounds = s->rounds;
	int yield = s->yield;

	if (s->cpu >= 0 && sched_getcpu() != s->cpu) {
		s->err = "thread B is not on its CPU";
		__atomic_store_n(&sh.ready, -1, __ATOMIC_RELEASE);
		return NULL;
	}
	/* hold the line and the done flag before A's first mark */
	(void)__atomic_load_n(&sh.seq, __ATOMIC_ACQUIRE);
	(void)__atomic_load_n(&sh.done, __ATOMIC_ACQUIRE);
	__atomic_store_n(&sh.ready, 1, __ATOMIC_RELEASE);
	for (i = 0; i < rounds; i++) {
		v = wait_for(2 * i + 1, yield);
		if (v != 2 * i + 1) {
			s->err = "thread B read a value out of turn";
			s->got = v;
			s->want = 2 * i + 1;
			break;
		}
		__atomic_store_n(&sh.seq, 2 * i + 2, __ATOMIC_RELEASE);
	}
	while (!__atomic_load_n(&sh.done, __ATOMIC_ACQUIRE)) {
		cpu_relax();
		if (yield)
			sched_yield();
	}
	return NULL;
}

/* the next cost marker's number, as guest/cost-mark.sh --next gives it */
static unsigned long next_mark(void)
{
	char name[256] = "";
	unsigned long n;
	char *end;

	if (gethostname(name, sizeof(name) - 1) ||
	    strncmp(name, "sis-cost-", 9))
		return 0;
	errno = 0;
	n = strtoul(name + 9, &end, 10);
	if (errno || end == name + 9 || *end)
		return 0;
	return n + 1;
}

/*
 * The hand-offs between CPUs @a and @b (-1: any CPU), @rounds round
 * trips; with @mark, between two cost markers.  0, or -1 with the reason
 * printed.
 */
static int handoff(int a, int b, uint64_t rounds, int mark, int yield,
		   int quiet)
{
	struct side s = { .cpu = b, .rounds = rounds, .yield = yield };
	char name[2][64];
	unsigned long m = 0;
	pthread_attr_t attr;
	double t0, t1;
	cpu_set_t set;
	pthread_t tb;
	uint64_t i, v;
	int r;

	if (a >= 0 && (on_cpu(a) || sched_getcpu() != a)) {
		fprintf(stderr, "sis-handoff: cannot run on CPU %d: %s\n", a,
			strerror(errno ? errno : EINVAL));
		return -1;
	}
	/* the main thread's stores: every line in place, held by A */
	__atomic_store_n(&sh.seq, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&sh.ready, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&sh.done, 0, __ATOMIC_RELEASE);
	pthread_attr_init(&attr);
	if (b >= 0) {
		CPU_ZERO(&set);
		CPU_SET(b, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	r = pthread_create(&tb, &attr, partner, &s);
	pthread_attr_destroy(&attr);
	if (r) {
		fprintf(stderr, "sis-handoff: cannot start thread B on CPU %d: %s\n",
			b, strerror(r));
		return -1;
	}
	while (!(r = __atomic_load_n(&sh.ready, __ATOMIC_ACQUIRE))) {
		cpu_relax();
		if (yield)
			sched_yield();
	}
	if (r < 0) {
		pthread_join(tb, NULL);
		fprintf(stderr, "sis-handoff: %s (CPU %d)\n", s.err, b);
		return -1;
	}
	if (mark) {
		m = next_mark();
		snprintf(name[0], sizeof(name[0]), "sis-cost-%lu", m);
		snprintf(name[1], sizeof(name[1]), "sis-cost-%lu", m + 1);
	}
	/* A holds the line, which B read, before the first mark */
	(void)__atomic_load_n(&sh.seq, __ATOMIC_ACQUIRE);
	t0 = now();
	if (mark && sethostname(name[0], strlen(name[0]))) {
		fprintf(stderr, "sis-handoff: the cost marker failed: %s\n",
			strerror(errno));
		mark = -1;
	}
	for (i = 0; mark >= 0 && i < rounds; i++) {
		__atomic_store_n(&sh.seq, 2 * i + 1, __ATOMIC_RELEASE);
		v = wait_for(2 * i + 2, yield);
		if (v != 2 * i + 2) {
			s.err = "thread A read a value out of turn";
			s.got = v;
			s.want = 2 * i + 2;
			break;
		}
	}
	if (mark > 0 && sethostname(name[1], strlen(name[1]))) {
		fprintf(stderr, "sis-handoff: the cost marker failed: %s\n",
			strerror(errno));
		mark = -1;
	}
	t1 = now();
	__atomic_store_n(&sh.done, 1, __ATOMIC_RELEASE);
	/* B may still wait for a value A will not store */
	if (s.err || mark < 0)
		__atomic_store_n(&sh.seq, UINT64_MAX, __ATOMIC_RELEASE);
	pthread_join(tb, NULL);
	if (mark < 0)
		return -1;
	if (s.err) {
		fprintf(stderr, "sis-handoff: %s: %" PRIu64 ", want %" PRIu64 "\n",
			s.err, s.got, s.want);
		return -1;
	}
	if (quiet)
		return 0;
	printf("sis-handoff: %" PRIu64 " round trips, %" PRIu64
	       " hand-offs of one line between CPU %d and CPU %d in %.3f s (%.0f ns each)\n",
	       rounds, 2 * rounds, a, b, t1 - t0,
	       1e9 * (t1 - t0) / (2 * rounds));
	if (mark)
		printf("sis-handoff: marks %lu %lu\n", m, m + 1);
	return 0;
}

static void usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: sis-handoff [-m] CPU_A CPU_B ROUNDS\n"
		"       sis-handoff --self-test\n"
		"Threads on CPU_A and CPU_B hand one cache line back and forth ROUNDS\n"
		"times each way; -m runs the cost marker (sethostname sis-cost-N) just\n"
		"before the first hand-off and just after the last.\n");
	exit(rc);
}

/* a number in min..max, or -1 */
static long long number(const char *s, long long min, long long max)
{
	long long v;
	char *end;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	return v;
}

static int parse(int argc, char **argv, int *mark, int *a, int *b,
		 long long *rounds)
{
	int i = 1;

	*mark = 0;
	if (i < argc && !strcmp(argv[i], "-m")) {
		*mark = 1;
		i++;
	}
	if (argc - i != 3) {
		fprintf(stderr, "sis-handoff: needs CPU_A CPU_B ROUNDS (see --help)\n");
		return -1;
	}
	*a = (int)number(argv[i], 0, CPU_SETSIZE - 1);
	*b = (int)number(argv[i + 1], 0, CPU_SETSIZE - 1);
	*rounds = number(argv[i + 2], 1, 1000000000);
	if (*a < 0 || *b < 0) {
		fprintf(stderr, "sis-handoff: a CPU is a number from 0 to %d\n",
			CPU_SETSIZE - 1);
		return -1;
	}
	if (*rounds < 0) {
		fprintf(stderr, "sis-handoff: ROUNDS is a number from 1 to 1000000000\n");
		return -1;
	}
	return 0;
}

static int self_test(void)
{
	static char *bad[][5] = {
		{ "sis-handoff", "0", "1", NULL },
		{ "sis-handoff", "0", "x", "10", NULL },
		{ "sis-handoff", "-m", "0", "1", "0" },
	};
	int fails = 0, mark, a, b, cpu = 0;
	long long rounds;
	unsigned int i;
	cpu_set_t set;
	FILE *saved;

	if (sched_getaffinity(0, sizeof(set), &set))
		die("sched_getaffinity");
	while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &set))
		cpu++;
	if (handoff(cpu, cpu, 1000, 0, 1, 1)) {
		fprintf(stderr, "self-test: hand-offs on CPU %d failed\n", cpu);
		fails++;
	}
	/* on every allowed CPU again, unpinned */
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    handoff(-1, -1, 1000, 0, 1, 1)) {
		fprintf(stderr, "self-test: unpinned hand-offs failed\n");
		fails++;
	}
	saved = stderr;
	stderr = fopen("/dev/null", "w");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int n = 0;

		while (n < 5 && bad[i][n])
			n++;
		if (stderr && !parse(n, bad[i], &mark, &a, &b, &rounds)) {
			fprintf(saved, "self-test: bad arguments %u were taken\n", i);
			fails++;
		}
	}
	if (stderr)
		fclose(stderr);
	stderr = saved;
	printf("sis-handoff self-test: %s\n", fails ? "FAILED" : "ok");
	return !!fails;
}

int main(int argc, char **argv)
{
	long long rounds;
	int mark, a, b;

	if (argc > 1 && !strcmp(argv[1], "--self-test"))
		return self_test();
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		usage(0);
	if (parse(argc, argv, &mark, &a, &b, &rounds))
		usage(2);
	/* one CPU: each wait must yield it to the other thread */
	return handoff(a, b, (uint64_t)rounds, mark, a == b, 0) ? 1 : 0;
}
