// SPDX-License-Identifier: GPL-2.0
/*
 * sis-stream: STREAM-style memory bandwidth (Copy, Scale, Add, Triad).
 *
 *   sis-stream [-n ELEMENTS] [-t NTIMES] [-j THREADS] [-b spin|sleep]
 *
 * Three arrays of doubles are split evenly between THREADS threads
 * (default $OMP_NUM_THREADS, else 1), the main thread being the first of
 * them as OpenMP's master is; each kernel runs NTIMES times, the first
 * pass is left out of the statistics, and the report has STREAM's table
 * ("Best Rate MB/s" from the fastest pass) and its validation line.
 * A run whose arrays do not hold the expected values exits 1.
 * Sizing follows STREAM's rule: each array should be at least four times
 * the last-level caches the threads share.
 *
 * Between kernels the threads meet in a barrier.  -b spin (the default)
 * waits there as libgomp does without OMP_WAIT_POLICY: it spins 300000
 * times (100 times when there are more threads than CPUs to run them)
 * before it sleeps on a futex, so a thread that arrives early is usually
 * still running when the next kernel starts and needs no wakeup.  -b sleep
 * sleeps at once, which makes a wakeup per thread and kernel.  The report
 * names the one that ran.
 *
 * --self-test runs a small array with each barrier, then corrupts one
 * element and checks that validation catches it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

enum { COPY, SCALE, ADD, TRIAD, NR_KERNELS };

static const char *const names[NR_KERNELS] = { "Copy:", "Scale:", "Add:", "Triad:" };
static const int words[NR_KERNELS] = { 2, 2, 3, 3 };
static const double q = 3.0;

/* libgomp's spin counts when OMP_WAIT_POLICY is not set */
#define SPINS		300000
#define SPINS_CROWDED	100

/*
 * A barrier for count threads: the last to arrive starts the next
 * generation; the others spin up to spins times on the generation, then
 * sleep on it.
 */
struct barrier {
	_Atomic unsigned int arrived, gen, sleepers;
	unsigned int count;
	long spins;
};

static double *a, *b, *c;
static long n;
static int nthreads;
static _Atomic int kernel;
static struct barrier start_bar, end_bar;

static void barrier_init(struct barrier *bar, unsigned int count, long spins)
{
	atomic_store(&bar->arrived, 0);
	atomic_store(&bar->gen, 0);
	atomic_store(&bar->sleepers, 0);
	bar->count = count;
	bar->spins = spins;
}

static void barrier_wait(struct barrier *bar)
{
	unsigned int gen = atomic_load(&bar->gen);
	long i;

	if (atomic_fetch_add(&bar->arrived, 1) + 1 == bar->count) {
		/* nobody arrives again before the generation moves on */
		atomic_store(&bar->arrived, 0);
		atomic_fetch_add(&bar->gen, 1);
		if (atomic_load(&bar->sleepers))
			syscall(SYS_futex, &bar->gen, FUTEX_WAKE_PRIVATE, INT_MAX,
				NULL, NULL, 0);
		return;
	}
	for (i = 0; i < bar->spins; i++) {
		if (atomic_load_explicit(&bar->gen, memory_order_acquire) != gen)
			return;
		cpu_relax();
	}
	/* counted before the last check, so the last arrival sees us */
	atomic_fetch_add(&bar->sleepers, 1);
	while (atomic_load(&bar->gen) == gen)
		syscall(SYS_futex, &bar->gen, FUTEX_WAIT_PRIVATE, gen, NULL, NULL, 0);
	atomic_fetch_sub(&bar->sleepers, 1);
}

/* the spins before sleeping for a spin barrier of threads threads */
static long spin_count(int threads)
{
	cpu_set_t cpus;

	if (!sched_getaffinity(0, sizeof(cpus), &cpus) &&
	    threads > CPU_COUNT(&cpus))
		return SPINS_CROWDED;
	return SPINS;
}

static void run_kernel(int k, long lo, long hi)
{
	long i;

	switch (k) {
	case COPY:
		for (i = lo; i < hi; i++)
			c[i] = a[i];
		break;
	case SCALE:
		for (i = lo; i < hi; i++)
			b[i] = q * c[i];
		break;
	case ADD:
		for (i = lo; i < hi; i++)
			c[i] = a[i] + b[i];
		break;
	case TRIAD:
		for (i = lo; i < hi; i++)
			a[i] = b[i] + q * c[i];
		break;
	}
}

/* each thread touches only its own slice, first touch included */
static void first_touch(long id)
{
	long lo = n * id / nthreads, hi = n * (id + 1) / nthreads, i;

	for (i = lo; i < hi; i++) {
		a[i] = 1.0;
		b[i] = 2.0;
		c[i] = 0.0;
	}
}

/* the kernel the main thread picked, on this thread's slice */
static void run_slice(long id)
{
	run_kernel(atomic_load(&kernel), n * id / nthreads,
		   n * (id + 1) / nthreads);
}

static void *thread_fn(void *arg)
{
	long id = (long)arg;

	first_touch(id);
	for (;;) {
		barrier_wait(&start_bar);
		if (atomic_load(&kernel) < 0)
			return NULL;
		run_slice(id);
		barrier_wait(&end_bar);
	}
}

/* 0 if the arrays hold what NTIMES passes of the four kernels produce */
static int validate(int ntimes, int quiet)
{
	double ea = 1.0, eb = 2.0, ec = 0.0, sa = 0, sb = 0, sc = 0;
	const double eps = 1e-13;
	long i;
	int t, bad = 0;

	for (t = 0; t < ntimes; t++) {
		ec = ea;
		eb = q * ec;
		ec = ea + eb;
		ea = eb + q * ec;
	}
	for (i = 0; i < n; i++) {
		sa += fabs(a[i] - ea);
		sb += fabs(b[i] - eb);
		sc += fabs(c[i] - ec);
	}
	sa /= n;
	sb /= n;
	sc /= n;
	if (sa / fabs(ea) > eps) {
		bad = 1;
		if (!quiet)
			printf("Failed Validation on array a[], AvgRelAbsErr > epsilon (%e)\n", eps);
	}
	if (sb / fabs(eb) > eps) {
		bad = 1;
		if (!quiet)
			printf("Failed Validation on array b[], AvgRelAbsErr > epsilon (%e)\n", eps);
	}
	if (sc / fabs(ec) > eps) {
		bad = 1;
		if (!quiet)
			printf("Failed Validation on array c[], AvgRelAbsErr > epsilon (%e)\n", eps);
	}
	if (!bad && !quiet)
		printf("Solution Validates: avg error less than %e on all three arrays\n", eps);
	return bad;
}

static int stream(long elements, int ntimes, int threads, int spin, int quiet)
{
	double t[NR_KERNELS][2] = { { 0 } }, min[NR_KERNELS], max[NR_KERNELS];
	long spins = spin ? spin_count(threads) : 0;
	pthread_t *tid;
	long i;
	int k, pass;

	n = elements;
	nthreads = threads;
	a = malloc(n * sizeof(*a));
	b = malloc(n * sizeof(*b));
	c = malloc(n * sizeof(*c));
	tid = calloc(threads, sizeof(*tid));
	if (!a || !b || !c || !tid)
		die("out of memory");
	barrier_init(&start_bar, threads, spins);
	barrier_init(&end_bar, threads, spins);
	if (!quiet) {
		if (spin)
			printf("Barrier: spin-then-sleep (%ld spins, then a futex), as OpenMP's default\n",
			       spins);
		else
			printf("Barrier: sleep (a futex at once)\n");
	}
	/* the main thread is thread 0 */
	for (i = 1; i < threads; i++) {
		errno = pthread_create(&tid[i], NULL, thread_fn, (void *)i);
		if (errno)
			die("pthread_create");
	}
	first_touch(0);
	for (k = 0; k < NR_KERNELS; k++) {
		min[k] = 1e30;
		max[k] = 0;
	}
	for (pass = 0; pass < ntimes; pass++) {
		for (k = 0; k < NR_KERNELS; k++) {
			double t0, dt;

			atomic_store(&kernel, k);
			t0 = now();
			barrier_wait(&start_bar);
			run_slice(0);
			barrier_wait(&end_bar);
			dt = now() - t0;
			if (!pass)
				continue;
			t[k][0] += dt;
			if (dt < min[k])
				min[k] = dt;
			if (dt > max[k])
				max[k] = dt;
		}
	}
	atomic_store(&kernel, -1);
	barrier_wait(&start_bar);
	for (i = 1; i < threads; i++)
		pthread_join(tid[i], NULL);
	if (!quiet) {
		printf("-------------------------------------------------------------\n");
		printf("Function    Best Rate MB/s  Avg time     Min time     Max time\n");
		for (k = 0; k < NR_KERNELS; k++)
			printf("%-12s%11.1f  %11.6f  %11.6f  %11.6f\n", names[k],
			       1e-6 * words[k] * sizeof(double) * n / min[k],
			       t[k][0] / (ntimes - 1), min[k], max[k]);
		printf("-------------------------------------------------------------\n");
	}
	free(tid);
	return validate(ntimes, quiet);
}

static int self_test(void)
{
	int fails = 0, spin;

	/* with 6 threads on fewer CPUs, spinning threads must also sleep */
	for (spin = 0; spin <= 1; spin++) {
		if (stream(10000, 3, 2, spin, 1) || stream(10000, 4, 6, spin, 1)) {
			fprintf(stderr, "self-test: a clean run with the %s barrier failed validation\n",
				spin ? "spin" : "sleep");
			fails++;
		}
	}
	b[1234] += 1.0;
	if (!validate(4, 1)) {
		fprintf(stderr, "self-test: a corrupted array passed validation\n");
		fails++;
	}
	printf("sis-stream self-test: %s\n", fails ? "FAILED" : "ok");
	return !!fails;
}

static void usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: sis-stream [-n ELEMENTS] [-t NTIMES] [-j THREADS] [-b spin|sleep]\n"
		"       sis-stream --self-test\n"
		"Defaults: -n 10000000 -t 10 -j $OMP_NUM_THREADS (else 1) -b spin.\n"
		"-b spin waits between kernels as OpenMP does by default (spin, then\n"
		"sleep); -b sleep sleeps at once.\n");
	exit(rc);
}

static long num(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "sis-stream: '%s' is not a number in %ld..%ld\n",
			s, min, max);
		usage(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *omp = getenv("OMP_NUM_THREADS");
	long elements = 10000000;
	int ntimes = 10, threads = omp && *omp ? num(omp, 1, 4096) : 1, opt;
	int spin = 1;

	if (argc > 1 && !strcmp(argv[1], "--self-test"))
		return self_test();
	if (argc > 1 && !strcmp(argv[1], "--help"))
		usage(0);
	while ((opt = getopt(argc, argv, "n:t:j:b:h")) != -1) {
		switch (opt) {
		case 'n': elements = num(optarg, 1000, 1L << 34); break;
		case 't': ntimes = num(optarg, 2, 100000); break;
		case 'j': threads = num(optarg, 1, 4096); break;
		case 'b':
			if (!strcmp(optarg, "spin") || !strcmp(optarg, "sleep")) {
				spin = !strcmp(optarg, "spin");
				break;
			}
			fprintf(stderr, "sis-stream: -b takes spin or sleep, not '%s'\n", optarg);
			usage(2);
			break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	printf("STREAM-style bandwidth: %ld elements per array (%.1f MiB each), %d passes, %d threads\n",
	       elements, elements * sizeof(double) / 1048576.0, ntimes, threads);
	return stream(elements, ntimes, threads, spin, 0);
}
