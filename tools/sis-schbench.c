// SPDX-License-Identifier: GPL-2.0
/*
 * sis-schbench: a schbench-style wakeup and request latency benchmark.
 *
 * M message threads each own T workers.  A worker queues itself on its
 * message thread's list, wakes it and sleeps on its own futex.  The message
 * thread takes the whole list, stamps one wake time into every waiter and
 * wakes them; the time each worker takes to run again is its wakeup
 * latency.  A woken worker then serves one request (usleep, then matrix
 * multiplications over its cache footprint under a per-CPU lock) and
 * records the request latency.  The main thread samples requests per
 * second once a second.  Percentiles come from a log-linear histogram
 * (exact below 512 us, 1/256 relative precision above), and the report has
 * the shape of schbench's so existing parsers keep working.
 *
 * --self-test checks the histogram and percentile arithmetic and exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

#define HIST_BITS	8
#define HIST_VAL	(1U << HIST_BITS)
#define HIST_GROUPS	19
#define HIST_NR		(HIST_GROUPS * HIST_VAL)

enum { BLOCKED, RUNNING };

struct hist {
	unsigned int b[HIST_NR];
	uint64_t min, max, n;
};

struct worker {
	_Atomic int futex;
	struct worker *next;		/* on the message thread's list */
	uint64_t wake_time;		/* stamped by the message thread */
	_Atomic uint64_t loops;
	struct hist wakeup, request;
	unsigned long *mat;		/* three side x side matrices */
	struct msg *msg;
	pthread_t tid;
};

struct msg {
	_Atomic int futex;
	struct worker *_Atomic head;
	struct worker *workers;
	pthread_t tid;
};

static int nr_msg = 1, nr_workers = -1, runtime = 30, footprint_kb = 256;
static int ops = 5, sleep_us = 100, locking = 1;
static unsigned long side;
static pthread_mutex_t *cpu_locks;
static int nr_cpu_locks;
static atomic_int stopping, workers_done;

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
}

/* the histogram: values below 2 * HIST_VAL have a bucket each */
static unsigned int hist_index(uint64_t v)
{
	int msb = v ? 63 - __builtin_clzll(v) : 0;
	unsigned int shift, idx;

	if (msb <= HIST_BITS)
		return v;
	shift = msb - HIST_BITS;
	idx = ((shift + 1) << HIST_BITS) + ((v >> shift) & (HIST_VAL - 1));
	return idx < HIST_NR ? idx : HIST_NR - 1;
}

/* the value a bucket stands for: its midpoint */
static uint64_t hist_value(unsigned int idx)
{
	unsigned int shift;

	if (idx < 2 * HIST_VAL)
		return idx;
	shift = (idx >> HIST_BITS) - 1;
	return (1ULL << (shift + HIST_BITS)) +
	       (uint64_t)(((idx & (HIST_VAL - 1)) + 0.5) * (1ULL << shift));
}

static void hist_add(struct hist *h, uint64_t v)
{
	h->b[hist_index(v)]++;
	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
}

static void hist_merge(struct hist *to, const struct hist *from)
{
	unsigned int i;

	if (!from->n)
		return;
	for (i = 0; i < HIST_NR; i++)
		to->b[i] += from->b[i];
	if (!to->n || from->min < to->min)
		to->min = from->min;
	if (from->max > to->max)
		to->max = from->max;
	to->n += from->n;
}

/*
 * Fill val[i] with the pct[i] percentile (pct sorted ascending) and cnt[i]
 * with the samples between the previous percentile and this one.
 */
static void hist_pct(const struct hist *h, const double *pct, int np,
		     uint64_t *val, uint64_t *cnt)
{
	uint64_t sum = 0, prev = 0;
	unsigned int i;
	int j = 0;

	for (j = 0; j < np; j++)
		val[j] = cnt[j] = 0;
	for (i = 0, j = 0; i < HIST_NR && j < np; i++) {
		sum += h->b[i];
		/* the rank is rounded up, with slack for 99.9 / 100 * n */
		while (j < np && sum &&
		       sum >= ceil(pct[j] / 100.0 * h->n - 1e-9)) {
			val[j] = hist_value(i);
			cnt[j] = sum - prev;
			prev = sum;
			j++;
		}
	}
}

static void hist_print(const char *title, const struct hist *h,
		       const double *pct, int np, double star)
{
	uint64_t val[8], cnt[8];
	int i;

	printf("%s percentiles (%s) runtime %d (s) (%llu total samples)\n",
	       title, strcmp(title, "RPS") ? "usec" : "requests", runtime,
	       (unsigned long long)h->n);
	hist_pct(h, pct, np, val, cnt);
	for (i = 0; i < np; i++)
		printf("\t%s%4.1fth: %-10llu (%llu samples)\n",
		       pct[i] == star ? "* " : "  ", pct[i],
		       (unsigned long long)val[i], (unsigned long long)cnt[i]);
	printf("\t  min=%llu, max=%llu\n", (unsigned long long)h->min,
	       (unsigned long long)h->max);
}

static long futex(_Atomic int *uaddr, int op, int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static void post(_Atomic int *f)
{
	int expected = BLOCKED;

	if (atomic_compare_exchange_strong(f, &expected, RUNNING))
		futex(f, FUTEX_WAKE_PRIVATE, 1);
}

static void wait_posted(_Atomic int *f)
{
	while (atomic_load(f) == BLOCKED)
		futex(f, FUTEX_WAIT_PRIVATE, BLOCKED);
}

static void do_work(struct worker *w)
{
	unsigned long *a = w->mat, *b = a + side * side, *c = b + side * side;
	pthread_mutex_t *lock = NULL;
	unsigned long i, j, k;
	int n;

	if (locking) {
		for (;;) {
			int cpu = sched_getcpu();

			lock = &cpu_locks[(cpu < 0 ? 0 : cpu) % nr_cpu_locks];
			if (!pthread_mutex_trylock(lock))
				break;
		}
	}
	for (n = 0; n < ops; n++)
		for (i = 0; i < side; i++)
			for (j = 0; j < side; j++) {
				unsigned long s = 0;

				for (k = 0; k < side; k++)
					s += a[i * side + k] * b[k * side + j];
				c[i * side + j] = s;
			}
	if (lock)
		pthread_mutex_unlock(lock);
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct msg *m = w->msg;

	for (;;) {
		uint64_t start;

		atomic_store(&w->futex, BLOCKED);
		w->next = atomic_load(&m->head);
		while (!atomic_compare_exchange_weak(&m->head, &w->next, w))
			;
		post(&m->futex);
		wait_posted(&w->futex);
		if (atomic_load(&stopping))
			break;
		start = now_us();
		hist_add(&w->wakeup, start - w->wake_time);
		if (sleep_us)
			usleep(sleep_us);
		if (ops)
			do_work(w);
		hist_add(&w->request, now_us() - start);
		atomic_fetch_add(&w->loops, 1);
	}
	atomic_fetch_add(&workers_done, 1);
	return NULL;
}

static void *msg_fn(void *arg)
{
	struct msg *m = arg;

	for (;;) {
		struct worker *list, *w;
		uint64_t t;

		atomic_store(&m->futex, BLOCKED);
		list = atomic_exchange(&m->head, NULL);
		if (list) {
			/* one stamp per batch: waking the batch counts */
			t = now_us();
			for (w = list; w; w = w->next)
				w->wake_time = t;
			for (w = list; w; ) {
				struct worker *next = w->next;

				post(&w->futex);
				w = next;
			}
		}
		if (atomic_load(&stopping) &&
		    atomic_load(&workers_done) == nr_msg * nr_workers)
			break;
		if (!list)
			wait_posted(&m->futex);
	}
	return NULL;
}

static int self_test(void)
{
	static struct hist h;
	static const double pct[] = { 50, 90, 99, 99.9 };
	uint64_t val[4], cnt[4], v;
	int fails = 0, i;

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "self-test failed: %s\n", #cond); fails++; } } while (0)
	for (v = 0; v < 2 * HIST_VAL; v++)
		CHECK(hist_index(v) == v && hist_value(v) == v);
	/* 512..1023 use 2-wide buckets, reported by their midpoint */
	CHECK(hist_index(512) == hist_index(513));
	CHECK(hist_index(513) != hist_index(514));
	CHECK(hist_value(hist_index(990)) == 991);
	/* monotonic, and within 1/256 of the value everywhere */
	for (v = 1; v < (1ULL << 26); v = v * 3 / 2 + 1) {
		uint64_t m = hist_value(hist_index(v));

		CHECK(hist_index(v) <= hist_index(v + 1));
		CHECK(fabs((double)m - v) <= v / 256.0 + 0.5);
	}
	CHECK(hist_index(~0ULL) == HIST_NR - 1);
	for (v = 1; v <= 1000; v++)
		hist_add(&h, v);
	hist_pct(&h, pct, 4, val, cnt);
	CHECK(val[0] == 500 && cnt[0] == 500);
	CHECK(val[1] == 901 && cnt[1] == 401);	/* 900 and 901 share a bucket */
	CHECK(val[2] == 991 && cnt[2] == 90);
	CHECK(val[3] == 999 && cnt[3] == 8);	/* 998 and 999 share one */
	CHECK(h.min == 1 && h.max == 1000 && h.n == 1000);
	for (i = 0; i < 4; i++)
		CHECK(i == 0 || val[i] >= val[i - 1]);
	printf("sis-schbench self-test: %s\n", fails ? "FAILED" : "ok");
	return fails ? 1 : 0;
}

static void usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: sis-schbench [-m MSG_THREADS] [-t WORKERS_PER_MSG] [-r SECONDS]\n"
		"                    [-F FOOTPRINT_KB] [-n OPS] [-s SLEEP_USEC] [-L]\n"
		"       sis-schbench --self-test\n"
		"Defaults: -m 1 -t ceil(cpus / m) -r 30 -F 256 -n 5 -s 100; -L turns\n"
		"the per-CPU lock off.  Prints wakeup and request latency percentiles,\n"
		"RPS percentiles and the average rps, as schbench does.\n");
	exit(rc);
}

static int num(const char *s, int min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > 1 << 20) {
		fprintf(stderr, "sis-schbench: bad number '%s'\n", s);
		usage(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "self-test", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const double lat_pct[] = { 50, 90, 99, 99.9 };
	static const double rps_pct[] = { 20, 50, 90 };
	static struct hist wake, req, rps;
	struct msg *msgs;
	uint64_t start, last_t, last_loops = 0, total = 0;
	int c, i, j;

	while ((c = getopt_long(argc, argv, "m:t:r:F:n:s:Lh", lo, NULL)) != -1) {
		switch (c) {
		case 'm': nr_msg = num(optarg, 1); break;
		case 't': nr_workers = num(optarg, 1); break;
		case 'r': runtime = num(optarg, 1); break;
		case 'F': footprint_kb = num(optarg, 1); break;
		case 'n': ops = num(optarg, 0); break;
		case 's': sleep_us = num(optarg, 0); break;
		case 'L': locking = 0; break;
		case 'T': return self_test();
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	nr_cpu_locks = sysconf(_SC_NPROCESSORS_CONF);
	if (nr_cpu_locks < 1)
		nr_cpu_locks = 1;
	if (nr_workers < 0)
		nr_workers = (sysconf(_SC_NPROCESSORS_ONLN) + nr_msg - 1) / nr_msg;
	side = sqrt(footprint_kb * 1024.0 / 3 / sizeof(unsigned long));
	if (!side)
		side = 1;
	cpu_locks = calloc(nr_cpu_locks, sizeof(*cpu_locks));
	msgs = calloc(nr_msg, sizeof(*msgs));
	if (!cpu_locks || !msgs)
		die("out of memory");
	for (i = 0; i < nr_cpu_locks; i++)
		pthread_mutex_init(&cpu_locks[i], NULL);
	for (i = 0; i < nr_msg; i++) {
		struct msg *m = &msgs[i];

		m->workers = calloc(nr_workers, sizeof(*m->workers));
		if (!m->workers)
			die("out of memory");
		for (j = 0; j < nr_workers; j++) {
			struct worker *w = &m->workers[j];
			unsigned long k;

			w->msg = m;
			w->mat = malloc(3 * side * side * sizeof(*w->mat));
			if (!w->mat)
				die("out of memory");
			for (k = 0; k < 3 * side * side; k++)
				w->mat[k] = k;
		}
		if (pthread_create(&m->tid, NULL, msg_fn, m))
			die("pthread_create");
		for (j = 0; j < nr_workers; j++)
			if (pthread_create(&m->workers[j].tid, NULL, worker_fn,
					   &m->workers[j]))
				die("pthread_create");
	}

	start = last_t = now_us();
	while (now_us() - start < runtime * 1000000ULL) {
		uint64_t t, loops = 0;

		sleep(1);
		t = now_us();
		for (i = 0; i < nr_msg; i++)
			for (j = 0; j < nr_workers; j++)
				loops += atomic_load(&msgs[i].workers[j].loops);
		hist_add(&rps, (loops - last_loops) * 1000000ULL / (t - last_t));
		last_loops = loops;
		last_t = t;
	}
	atomic_store(&stopping, 1);
	while (atomic_load(&workers_done) < nr_msg * nr_workers) {
		for (i = 0; i < nr_msg; i++) {
			post(&msgs[i].futex);
			for (j = 0; j < nr_workers; j++)
				post(&msgs[i].workers[j].futex);
		}
		usleep(1000);
	}
	for (i = 0; i < nr_msg; i++) {
		post(&msgs[i].futex);
		pthread_join(msgs[i].tid, NULL);
		for (j = 0; j < nr_workers; j++) {
			struct worker *w = &msgs[i].workers[j];

			pthread_join(w->tid, NULL);
			hist_merge(&wake, &w->wakeup);
			hist_merge(&req, &w->request);
			total += w->loops;
		}
	}
	hist_print("Wakeup Latencies", &wake, lat_pct, 4, 99);
	hist_print("Request Latencies", &req, lat_pct, 4, 99);
	hist_print("RPS", &rps, rps_pct, 3, 50);
	printf("average rps: %.2f\n", total * 1e6 / (last_t - start));
	return 0;
}
