// SPDX-License-Identifier: GPL-2.0
/*
 * sis-schbench: a schbench-style wakeup and request latency benchmark
 * (the 2023+ "new" schbench, default mode).
 *
 * M message threads each own T workers.  A worker queues itself on its
 * message thread's list, wakes it and sleeps on its own futex.  The message
 * thread takes the whole list, stamps one wake time into every waiter and
 * wakes them; the time each worker takes to run again is its wakeup
 * latency.  A woken worker then serves one request: usleep(-s), then -n
 * naive matrix multiplications over its -F KB footprint under its CPU's
 * lock, and records the request latency (sleep included).
 *
 * The work per request is schbench's: the product cell is accumulated in
 * memory, one store per inner step (not in a register), and the input
 * matrices are fresh anonymous memory that is never written, as schbench's
 * uninitialised malloc() of that size is; so its loads come from the zero
 * page and only the product has pages of its own.  Samples of 0 us are
 * dropped, as schbench drops them.
 *
 * The main thread samples requests per second once a second; every -i
 * seconds it prints an interim report (the three percentile blocks, the
 * sched delay line and "current rps"), and at the end the final one (the
 * blocks, "average rps" and the sched delay line).  -w seconds of warm-up
 * (part of -r) are left out of every figure.  Everything is written to
 * stderr, as schbench does.  The sched delay is the run-queue wait per
 * scheduling of each thread, from /proc/TID/schedstat over the measured
 * period, averaged over the message threads and over the workers (0 when
 * the kernel has no schedstat).
 *
 * Percentiles come from a log-linear histogram (exact below 512 us, 1/256
 * relative precision above; a bucket reports its midpoint).
 *
 * --self-test checks the histogram and percentile arithmetic, the matrix
 * product and the CPU list parser, and exits.
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
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

#define HIST_BITS	8
#define HIST_VAL	(1U << HIST_BITS)
#define HIST_GROUPS	19
#define HIST_NR		(HIST_GROUPS * HIST_VAL)

enum { BLOCKED, RUNNING };

/*
 * One writer (the owning worker, or the main thread for RPS); the main
 * thread reads a worker's histograms while it runs, hence relaxed atomics.
 */
struct hist {
	unsigned int b[HIST_NR];
	uint64_t min, max, n;
};

struct schedstat {
	uint64_t wait_ns, count;
};

struct worker {
	_Atomic int futex;
	struct worker *next;		/* on the message thread's list */
	uint64_t wake_time;		/* stamped by the message thread */
	uint64_t loops;			/* requests served, relaxed atomic */
	unsigned int epoch;		/* of its histograms, release/acquire */
	struct hist wakeup, request;
	unsigned long *mat;		/* three side x side matrices */
	size_t mat_bytes;
	struct msg *msg;
	pthread_t tid;
	pid_t sys_tid;			/* relaxed atomic */
	struct schedstat base;		/* at the start of the measurement */
};

struct msg {
	_Atomic int futex;
	struct worker *_Atomic head;
	struct worker *workers;
	pthread_t tid;
	pid_t sys_tid;
	struct schedstat base;
};

static int nr_msg = 1, nr_workers = -1, runtime = 30, footprint_kb = 256;
static int ops = 5, sleep_us = 100, locking = 1, interval = 10, warmup;
static unsigned long side;
static pthread_mutex_t *cpu_locks;
static int nr_cpu_locks;
static cpu_set_t msg_cpus, worker_cpus;
static int pin_msg, pin_workers;
static atomic_int stopping, workers_done;
/* bumped when the warm-up ends: a worker clears its histograms first */
static atomic_uint epoch;

static const double pct_list[] = { 20, 50, 90, 99, 99.9 };
#define NR_PCT	5
/* which of pct_list a block prints, and which one gets the star */
#define LAT_MASK	0x1e	/* 50 90 99 99.9 */
#define LAT_STAR	3
#define RPS_MASK	0x07	/* 20 50 90 */
#define RPS_STAR	1

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
}

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

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

/* by the histogram's only writer */
static void hist_add(struct hist *h, uint64_t v)
{
	unsigned int i = hist_index(v);

	STORE(h->b[i], LOAD(h->b[i]) + 1);
	if (!h->n || v < h->min)
		STORE(h->min, v);
	if (v > h->max)
		STORE(h->max, v);
	STORE(h->n, h->n + 1);
}

static void hist_merge(struct hist *to, struct hist *from)
{
	uint64_t n = LOAD(from->n), min = LOAD(from->min), max = LOAD(from->max);
	unsigned int i;

	if (!n)
		return;
	for (i = 0; i < HIST_NR; i++)
		to->b[i] += LOAD(from->b[i]);
	if (!to->n || min < to->min)
		to->min = min;
	if (max > to->max)
		to->max = max;
	to->n += n;
}

/*
 * Fill val[i] with the pct[i] percentile (pct ascending): the first bucket
 * whose running count reaches pct[i] / 100 * n; and cnt[i] with the
 * samples between the previous percentile of the list and this one.
 * The running count is compared with the rank rounded up, with slack for
 * 99.9 / 100 * n.  The count summed over the buckets, not h->n, is the
 * total: a histogram read while its writer runs may be a sample behind.
 */
static void hist_pct(const struct hist *h, const double *pct, int np,
		     uint64_t *val, uint64_t *cnt)
{
	uint64_t sum = 0, prev = 0, total = 0;
	unsigned int i;
	int j;

	for (j = 0; j < np; j++)
		val[j] = cnt[j] = 0;
	for (i = 0; i < HIST_NR; i++)
		total += h->b[i];
	for (i = 0, j = 0; i < HIST_NR && j < np; i++) {
		sum += h->b[i];
		while (j < np && sum &&
		       sum >= ceil(pct[j] / 100.0 * total - 1e-9)) {
			val[j] = hist_value(i);
			cnt[j] = sum - prev;
			prev = sum;
			j++;
		}
	}
}

/* one block: the percentiles of mask, the star on one, min and max */
static void hist_print(const char *title, const char *units,
		       const struct hist *h, int secs, unsigned int mask,
		       int star)
{
	uint64_t val[NR_PCT], cnt[NR_PCT];
	int i;

	fprintf(stderr, "%s percentiles (%s) runtime %d (s) (%llu total samples)\n",
		title, units, secs, (unsigned long long)h->n);
	hist_pct(h, pct_list, NR_PCT, val, cnt);
	for (i = 0; i < NR_PCT; i++) {
		if (!(mask & 1U << i))
			continue;
		fprintf(stderr, "\t%s%4.1fth: %-10llu (%llu samples)\n",
			i == star ? "* " : "  ", pct_list[i],
			(unsigned long long)val[i], (unsigned long long)cnt[i]);
	}
	fprintf(stderr, "\t  min=%llu, max=%llu\n", (unsigned long long)h->min,
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

/*
 * c = a * b, n x n, the naive way.  Each step adds into the product cell
 * in memory: the three matrices are one allocation, so the compiler cannot
 * keep the cell in a register across the loads of a and b.
 */
static void multiply(unsigned long *m, unsigned long n)
{
	const unsigned long *a = m, *b = m + n * n;
	unsigned long *c = m + 2 * n * n;
	unsigned long i, j, k;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			unsigned long *cell = &c[i * n + j];

			*cell = 0;
			for (k = 0; k < n; k++)
				*cell += a[i * n + k] * b[k * n + j];
		}
}

/*
 * The lock of the CPU we run on: spin on it, and take another if we were
 * moved while we spun.
 */
static pthread_mutex_t *lock_cpu(void)
{
	for (;;) {
		int cpu = sched_getcpu();
		pthread_mutex_t *lock = &cpu_locks[(cpu < 0 ? 0 : cpu) % nr_cpu_locks];

		while (pthread_mutex_trylock(lock))
			cpu_relax();
		if (sched_getcpu() == cpu)
			return lock;
		pthread_mutex_unlock(lock);
	}
}

static void do_work(struct worker *w)
{
	pthread_mutex_t *lock = locking ? lock_cpu() : NULL;
	int n;

	for (n = 0; n < ops; n++)
		multiply(w->mat, side);
	if (lock)
		pthread_mutex_unlock(lock);
}

/* a sample of the current epoch: clear what the warm-up recorded first */
static void sample(struct worker *w, struct hist *h, uint64_t v)
{
	unsigned int e = atomic_load(&epoch);

	if (w->epoch != e) {
		memset(&w->wakeup, 0, sizeof(w->wakeup));
		memset(&w->request, 0, sizeof(w->request));
		__atomic_store_n(&w->epoch, e, __ATOMIC_RELEASE);
	}
	if (v)
		hist_add(h, v);
}

static void start_thread(pthread_t *tid, void *(*fn)(void *), void *arg,
			 const cpu_set_t *cpus)
{
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	if (cpus && pthread_attr_setaffinity_np(&attr, sizeof(*cpus), cpus))
		die("pthread_attr_setaffinity_np");
	errno = pthread_create(tid, &attr, fn, arg);
	if (errno)
		die("pthread_create");
	pthread_attr_destroy(&attr);
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct msg *m = w->msg;

	STORE(w->sys_tid, (pid_t)syscall(SYS_gettid));
	pthread_setname_np(pthread_self(), "schbench-worker");
	for (;;) {
		uint64_t start;

		atomic_store(&w->futex, BLOCKED);
		w->wake_time = now_us();	/* if no batch stamps it */
		w->next = atomic_load(&m->head);
		while (!atomic_compare_exchange_weak(&m->head, &w->next, w))
			;
		post(&m->futex);
		wait_posted(&w->futex);
		if (atomic_load(&stopping))
			break;
		start = now_us();
		sample(w, &w->wakeup, start - w->wake_time);
		if (sleep_us)
			usleep(sleep_us);
		if (ops)
			do_work(w);
		sample(w, &w->request, now_us() - start);
		STORE(w->loops, w->loops + 1);
	}
	atomic_fetch_add(&workers_done, 1);
	return NULL;
}

static void *msg_fn(void *arg)
{
	struct msg *m = arg;
	int j;

	STORE(m->sys_tid, (pid_t)syscall(SYS_gettid));
	pthread_setname_np(pthread_self(), "schbench-msg");
	/* its workers are its children, as schbench's are */
	for (j = 0; j < nr_workers; j++)
		start_thread(&m->workers[j].tid, worker_fn, &m->workers[j],
			     pin_workers ? &worker_cpus : NULL);
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

/* run-queue wait and schedulings of a thread so far (0 0 without schedstat) */
static struct schedstat read_schedstat(pid_t tid)
{
	struct schedstat s = { 0, 0 };
	unsigned long long run, wait, count;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return s;
	if (fscanf(f, "%llu %llu %llu", &run, &wait, &count) == 3) {
		s.wait_ns = wait;
		s.count = count;
	}
	fclose(f);
	return s;
}

/* wait per scheduling since *base, in ns; with reset, *base becomes now */
static uint64_t sched_delay(pid_t tid, struct schedstat *base, int reset)
{
	struct schedstat s = read_schedstat(tid);
	uint64_t d = 0;

	if (s.count > base->count && s.wait_ns >= base->wait_ns)
		d = (s.wait_ns - base->wait_ns) / (s.count - base->count);
	if (reset)
		*base = s;
	return d;
}

static void sched_delays(struct msg *msgs, int reset, uint64_t *msg_ns,
			 uint64_t *worker_ns)
{
	uint64_t ms = 0, ws = 0;
	int i, j;

	for (i = 0; i < nr_msg; i++) {
		ms += sched_delay(LOAD(msgs[i].sys_tid), &msgs[i].base, reset);
		for (j = 0; j < nr_workers; j++) {
			struct worker *w = &msgs[i].workers[j];

			ws += sched_delay(LOAD(w->sys_tid), &w->base, reset);
		}
	}
	*msg_ns = ms / nr_msg;
	*worker_ns = ws / ((uint64_t)nr_msg * nr_workers);
}

/* the histograms of every worker that recorded in the current epoch */
static void merge_workers(struct msg *msgs, struct hist *wake, struct hist *req)
{
	unsigned int e = atomic_load(&epoch);
	int i, j;

	memset(wake, 0, sizeof(*wake));
	memset(req, 0, sizeof(*req));
	for (i = 0; i < nr_msg; i++)
		for (j = 0; j < nr_workers; j++) {
			struct worker *w = &msgs[i].workers[j];

			if (__atomic_load_n(&w->epoch, __ATOMIC_ACQUIRE) != e)
				continue;
			hist_merge(wake, &w->wakeup);
			hist_merge(req, &w->request);
		}
}

static uint64_t total_loops(struct msg *msgs)
{
	uint64_t n = 0;
	int i, j;

	for (i = 0; i < nr_msg; i++)
		for (j = 0; j < nr_workers; j++)
			n += LOAD(msgs[i].workers[j].loops);
	return n;
}

static void report(struct hist *wake, struct hist *req, struct hist *rps,
		   int secs)
{
	hist_print("Wakeup Latencies", "usec", wake, secs, LAT_MASK, LAT_STAR);
	hist_print("Request Latencies", "usec", req, secs, LAT_MASK, LAT_STAR);
	hist_print("RPS", "requests", rps, secs, RPS_MASK, RPS_STAR);
}

/* the n-th CPU of set, counting from 0 and wrapping */
static int nth_cpu(const cpu_set_t *set, int n)
{
	int c, count = CPU_COUNT(set);

	n %= count;
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set) && !n--)
			return c;
	return -1;
}

/*
 * -M auto / -W auto: message thread i on the i-th allowed CPU, the workers
 * on the allowed CPUs that are left (all of them when none is)
 */
static void auto_pin(void)
{
	cpu_set_t allowed;
	int i;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		die("sched_getaffinity");
	CPU_ZERO(&msg_cpus);
	for (i = 0; i < nr_msg && i < CPU_COUNT(&allowed); i++)
		CPU_SET(nth_cpu(&allowed, i), &msg_cpus);
	worker_cpus = allowed;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &msg_cpus))
			CPU_CLR(i, &worker_cpus);
	if (!CPU_COUNT(&worker_cpus))
		worker_cpus = allowed;
	pin_msg = pin_workers = 1;
	fprintf(stderr, "auto pinning: message threads on %d CPUs, workers on %d\n",
		CPU_COUNT(&msg_cpus), CPU_COUNT(&worker_cpus));
}

static int self_test(void)
{
	static struct hist h;
	static const double pct[] = { 50, 90, 99, 99.9 };
	static const unsigned long ma[] = { 1, 2, 3, 4 }, mb[] = { 5, 6, 7, 8 };
	unsigned long m[12];
	uint64_t val[NR_PCT], cnt[NR_PCT], v;
	cpu_set_t set;
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
		uint64_t mid = hist_value(hist_index(v));

		CHECK(hist_index(v) <= hist_index(v + 1));
		CHECK(fabs((double)mid - v) <= v / 256.0 + 0.5);
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
	for (i = 1; i < 4; i++)
		CHECK(val[i] >= val[i - 1]);
	/* over the full list, a count starts at the previous percentile */
	hist_pct(&h, pct_list, NR_PCT, val, cnt);
	CHECK(val[0] == 200 && cnt[0] == 200);
	CHECK(val[1] == 500 && cnt[1] == 300);
	/* [1 2; 3 4] x [5 6; 7 8] = [19 22; 43 50], over a stale product */
	memcpy(m, ma, sizeof(ma));
	memcpy(m + 4, mb, sizeof(mb));
	for (i = 8; i < 12; i++)
		m[i] = 1000;
	multiply(m, 2);
	CHECK(m[8] == 19 && m[9] == 22 && m[10] == 43 && m[11] == 50);
	CHECK(!parse_cpulist("0-3,8,10-11", &set) && CPU_COUNT(&set) == 7 &&
	      CPU_ISSET(8, &set) && !CPU_ISSET(9, &set));
	CHECK(nth_cpu(&set, 4) == 8 && nth_cpu(&set, 7) == 0);
	CHECK(parse_cpulist("", &set) && parse_cpulist("3-1", &set) &&
	      parse_cpulist("1,", &set) && parse_cpulist("x", &set));
	printf("sis-schbench self-test: %s\n", fails ? "FAILED" : "ok");
	return fails ? 1 : 0;
}

static void usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: sis-schbench [-m MSG_THREADS] [-t WORKERS_PER_MSG] [-r SECONDS]\n"
		"                    [-w WARMUP_SECONDS] [-i INTERVAL_SECONDS]\n"
		"                    [-F FOOTPRINT_KB] [-n OPS] [-s SLEEP_USEC] [-L]\n"
		"                    [-M CPULIST|auto] [-W CPULIST|auto]\n"
		"       sis-schbench --self-test\n"
		"Defaults: -m 1 -t ceil(cpus / m) -r 30 -w 0 -i 10 -F 256 -n 5 -s 100.\n"
		"-L turns the per-CPU lock off.  -i 0 prints no interim report.\n"
		"-M pins message thread i to the i-th CPU of the list, -W every\n"
		"worker to the list; auto (either option) gives each message thread\n"
		"a CPU of its own and the workers the rest.  -w is part of -r.\n"
		"Prints, to stderr as schbench does, wakeup and request latency and\n"
		"RPS percentiles every -i seconds and at the end, then the average\n"
		"rps and the sched delay (run-queue wait per scheduling, usec).\n");
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

static void cpus_arg(const char *s, cpu_set_t *set, int *pin, int *autop)
{
	if (!strcmp(s, "auto")) {
		*autop = 1;
		return;
	}
	if (parse_cpulist(s, set)) {
		fprintf(stderr, "sis-schbench: bad CPU list '%s'\n", s);
		usage(2);
	}
	*pin = 1;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "self-test", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct hist wake, req, rps;
	struct msg *msgs;
	uint64_t start, t0, last_t, end_t, loops0 = 0, last_report;
	uint64_t last_loops = 0, end_loops, msg_ns, worker_ns, tick;
	int c, i, j, autop = 0, warm = 0;
	double cur_rps = 0;

	while ((c = getopt_long(argc, argv, "m:t:r:w:i:F:n:s:LM:W:h", lo, NULL)) != -1) {
		switch (c) {
		case 'm': nr_msg = num(optarg, 1); break;
		case 't': nr_workers = num(optarg, 1); break;
		case 'r': runtime = num(optarg, 1); break;
		case 'w': warmup = num(optarg, 0); break;
		case 'i': interval = num(optarg, 0); break;
		case 'F': footprint_kb = num(optarg, 1); break;
		case 'n': ops = num(optarg, 0); break;
		case 's': sleep_us = num(optarg, 0); break;
		case 'L': locking = 0; break;
		case 'M': cpus_arg(optarg, &msg_cpus, &pin_msg, &autop); break;
		case 'W': cpus_arg(optarg, &worker_cpus, &pin_workers, &autop); break;
		case 'T': return self_test();
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	if (warmup >= runtime) {
		fprintf(stderr, "sis-schbench: the warm-up (-w %d) must be shorter than the run (-r %d)\n",
			warmup, runtime);
		usage(2);
	}
	if (autop)
		auto_pin();
	nr_cpu_locks = sysconf(_SC_NPROCESSORS_CONF);
	if (nr_cpu_locks < 1)
		nr_cpu_locks = 1;
	if (nr_workers < 0) {
		nr_workers = (sysconf(_SC_NPROCESSORS_ONLN) + nr_msg - 1) / nr_msg;
		fprintf(stderr, "setting worker threads to %d\n", nr_workers);
	}
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
		cpu_set_t one;

		m->workers = calloc(nr_workers, sizeof(*m->workers));
		if (!m->workers)
			die("out of memory");
		for (j = 0; j < nr_workers; j++) {
			struct worker *w = &m->workers[j];

			w->msg = m;
			/* not written: the inputs stay on the zero page */
			w->mat_bytes = 3 * side * side * sizeof(*w->mat);
			w->mat = mmap(NULL, w->mat_bytes, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (w->mat == MAP_FAILED)
				die("mmap");
		}
		if (pin_msg) {
			CPU_ZERO(&one);
			CPU_SET(nth_cpu(&msg_cpus, i), &one);
			fprintf(stderr, "pinning message thread %d to cpu %d\n",
				i, nth_cpu(&msg_cpus, i));
		}
		start_thread(&m->tid, msg_fn, m, pin_msg ? &one : NULL);
	}

	start = t0 = last_t = now_us();
	last_report = warmup;
	for (tick = 0; tick < (uint64_t)runtime; ) {
		uint64_t t = now_us(), next = start + (tick + 1) * 1000000, loops;

		/* on the next second since the start, or at once if late */
		if (next > t)
			usleep(next - t);
		t = now_us();
		tick = (t - start) / 1000000;
		loops = total_loops(msgs);
		if (warmup && !warm && tick >= (uint64_t)warmup) {
			/* the warm-up ends: every figure starts again */
			warm = 1;
			atomic_fetch_add(&epoch, 1);
			memset(&rps, 0, sizeof(rps));
			sched_delays(msgs, 1, &msg_ns, &worker_ns);
			loops0 = loops;
			t0 = t;
			fprintf(stderr, "warmup done, zeroing stats\n");
		} else {
			cur_rps = (loops - last_loops) * 1e6 / (t - last_t);
			hist_add(&rps, llround(cur_rps));
		}
		last_loops = loops;
		last_t = t;
		if (interval && tick < (uint64_t)runtime &&
		    tick >= last_report + interval) {
			merge_workers(msgs, &wake, &req);
			report(&wake, &req, &rps, tick);
			sched_delays(msgs, 0, &msg_ns, &worker_ns);
			fprintf(stderr, "sched delay: message %llu (usec) worker %llu (usec)\n",
				(unsigned long long)msg_ns / 1000,
				(unsigned long long)worker_ns / 1000);
			fprintf(stderr, "current rps: %.2f\n", cur_rps);
			last_report = tick;
		}
	}
	/* the measured period ends here, before the threads are stopped */
	end_t = last_t;
	end_loops = last_loops;
	sched_delays(msgs, 0, &msg_ns, &worker_ns);
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
			pthread_join(msgs[i].workers[j].tid, NULL);
			munmap(msgs[i].workers[j].mat, msgs[i].workers[j].mat_bytes);
		}
	}
	merge_workers(msgs, &wake, &req);
	report(&wake, &req, &rps, runtime);
	fprintf(stderr, "average rps: %.2f\n",
		(end_loops - loops0) * 1e6 / (end_t - t0));
	fprintf(stderr, "sched delay: message %llu (usec) worker %llu (usec)\n",
		(unsigned long long)msg_ns / 1000,
		(unsigned long long)worker_ns / 1000);
	return 0;
}
