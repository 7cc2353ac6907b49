// SPDX-License-Identifier: GPL-2.0
/*
 * locality-model: the sis-cost plugin's locality model on the host, with
 * no QEMU: the plugin's source is compiled in, and the few QEMU functions
 * its memory callback calls are stubs that return a physical address the
 * test chose.  The other QEMU functions it names are never called (link
 * with --unresolved-symbols=ignore-all).  tests/cost/test.sh builds and
 * runs it; each check prints "ok DETAIL" or "FAIL DETAIL".
 *
 *   locality-model DIR    (DIR: where to write its topology files)
 *
 * Checks: a known sequence of loads and stores gives the transfers by
 * boundary, upgrades and fills of the model, the nearest holder counting
 * (tables of 1-, 2- and 4-byte masks: 8, 16 and 32 LLCs); accesses the
 * model leaves out are counted apart; the report's locality lines; and
 * two host threads handing one line back and forth N times each way, each
 * calling the callback after each of its real loads and stores as QEMU
 * does: on one host CPU 2N transfers within 1%; free on every CPU none
 * made up, and how many the window between an access and its callback
 * loses (the model's one race: see the plugin's header comment).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>

#include "sis-cost.c"

/* the meminfo bits the stubs read */
#define INFO_STORE	1u
#define INFO_IO		2u
#define INFO_NOADDR	4u

struct qemu_plugin_hwaddr {
	int io;
	uint64_t pa;
};

/* the physical address of the next access of this thread */
static __thread uint64_t next_pa;
static __thread struct qemu_plugin_hwaddr hwaddr;

struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t info,
						  uint64_t vaddr)
{
	(void)vaddr;
	if (info & INFO_NOADDR)
		return NULL;
	hwaddr.io = !!(info & INFO_IO);
	hwaddr.pa = next_pa;
	return &hwaddr;
}

bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *h)
{
	return h->io;
}

uint64_t qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *h)
{
	return h->pa;
}

bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info)
{
	return info & INFO_STORE;
}

static int fails;

static void check(int good, const char *what)
{
	printf("%s %s\n", good ? "ok" : "FAIL", what);
	fails += !good;
}

#define USER	0x7f0000001000ull
#define KERNEL	0xffff888000001000ull

static void access_line(unsigned int vcpu, uint64_t vaddr, uint64_t pa,
			unsigned int info)
{
	next_pa = pa;
	loc_access(vcpu, info, vaddr, NULL);
}

/*
 * A topology file of 2 sockets of @llcs LLCs, @per vCPUs each: quadrants
 * of @llcs / 4 LLCs, halves of @llcs / 2 (vCPU v in LLC v / @per)
 */
static void topology(const char *dir, unsigned int llcs, unsigned int per)
{
	char path[4096];
	unsigned int v, l;
	FILE *f;

	snprintf(path, sizeof(path), "%s/topo-%u", dir, llcs);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fprintf(f, "# VCPU LLC QUADRANT HALF SOCKET\n");
	for (v = 0; v < 2 * llcs * per; v++) {
		l = v / per;
		fprintf(f, "%u %u %u %u %u\n", v, l, l / (llcs / 4),
			l / (llcs / 2), l / llcs);
	}
	fclose(f);
	/* the plugin's state as qemu_plugin_install() leaves it */
	if (masks)
		munmap(masks, nr_lines * mask_bytes);
	free(loc_cnts);
	masks = NULL;
	loc_cnts = NULL;
	nr_llcs = nr_topo_vcpus = 0;
	loc_untracked = 0;
	memset(near_llcs, 0, sizeof(near_llcs));
	if (load_topology(path) || alloc_lines("64")) {
		printf("FAIL the plugin refused the topology %s\n", path);
		exit(1);
	}
}

/* the report's locality lines, as one string of ';'-separated lines */
static const char *report_text(void)
{
	static char buf[4096];
	size_t n;
	char *p;

	out = tmpfile();
	if (!out) {
		perror("tmpfile");
		exit(1);
	}
	report_locality();
	rewind(out);
	n = fread(buf, 1, sizeof(buf) - 1, out);
	buf[n] = 0;
	fclose(out);
	for (p = buf; *p; p++)
		if (*p == '\n')
			*p = ';';
	return buf;
}

static void sequence(const char *dir)
{
	const char *want, *got;
	char what[8192];

	/* 16 LLCs, 4 vCPUs each: LLC 0 vCPUs 0-3, LLC 1 4-7, LLC 2 8-11 */
	topology(dir, 8, 4);
	check(mask_bytes == 2, "16 LLCs: masks of 2 bytes");
	access_line(0, USER, 0x1000, 0);		/* fill */
	access_line(4, USER, 0x1000, 0);		/* LLC 1: ccx */
	access_line(1, USER, 0x1010, 0);		/* LLC 0 holds it */
	access_line(8, USER, 0x1000, INFO_STORE);	/* LLC 2: quad */
	access_line(9, USER, 0x1000, 0);		/* LLC 2 holds it */
	access_line(16, USER, 0x1000, 0);		/* LLC 4: half */
	access_line(32, USER, 0x1000, 0);		/* LLC 8: socket */
	access_line(36, USER, 0x1000, 0);		/* LLC 9: ccx, LLC 8 */
	access_line(37, USER, 0x1000, INFO_STORE);	/* upgrade */
	access_line(38, USER, 0x1000, INFO_STORE);	/* only holder */
	access_line(2, USER, 0x1038, INFO_STORE);	/* LLC 0: socket */
	access_line(0, KERNEL, 0x1040, 0);		/* fill */
	access_line(5, KERNEL, 0x1040, INFO_STORE);	/* ccx */
	access_line(0, USER, 0x2000, INFO_IO);
	access_line(0, USER, 0x2000, INFO_NOADDR);
	access_line(0, USER, nr_lines << LINE_SHIFT, 0);
	access_line(64, USER, 0x2000, 0);		/* no such vCPU */
	access_line(MAX_VCPUS, USER, 0x2000, 0);
	want = "loc user 11 1 1 2 1 1 2;loc kernel 2 1 0 1 0 0 0;loc-skip 1 1 1 2;loc-top 0x1040;";
	got = report_text();
	snprintf(what, sizeof(what),
		 "a known sequence of 20 accesses: fills, upgrades, transfers by the nearest holder's boundary, accesses left out (want %s got %s)",
		 want, got);
	check(!strcmp(want, got), what);

	/* 8 LLCs, one per quadrant: 1-byte masks, LLC 7 in bit 7 */
	topology(dir, 4, 2);
	check(mask_bytes == 1, "8 LLCs: masks of 1 byte");
	access_line(15, USER, 0x3000, 0);		/* LLC 7: fill */
	access_line(12, USER, 0x3000, 0);		/* LLC 6: quad */
	access_line(0, USER, 0x3000, INFO_STORE);	/* LLC 0: socket */
	access_line(14, USER, 0x3000, 0);		/* LLC 7: socket */
	want = "loc user 4 1 0 0 1 0 2;loc kernel 0 0 0 0 0 0 0;loc-skip 0 0 0 0;loc-top 0x3000;";
	got = report_text();
	snprintf(what, sizeof(what), "8 LLCs (1-byte masks): want %s got %s",
		 want, got);
	check(!strcmp(want, got), what);

	/* 32 LLCs: 4-byte masks, LLC 31 in bit 31 */
	topology(dir, 16, 1);
	check(mask_bytes == 4, "32 LLCs: masks of 4 bytes");
	access_line(31, USER, 0x4000, 0);		/* fill */
	access_line(28, USER, 0x4000, 0);		/* ccx */
	access_line(0, USER, 0x4000, INFO_STORE);	/* socket */
	access_line(31, USER, 0x4000, INFO_STORE);	/* socket */
	access_line(31, USER, 0x4000, INFO_STORE);	/* only holder */
	want = "loc user 5 1 0 1 0 0 2;loc kernel 0 0 0 0 0 0 0;loc-skip 0 0 0 0;loc-top 0x4000;";
	got = report_text();
	snprintf(what, sizeof(what), "32 LLCs (4-byte masks): want %s got %s",
		 want, got);
	check(!strcmp(want, got), what);
}

/* the hand-off: the line's counter, as the guest's sis-handoff keeps it */
static uint64_t seq;
static uint64_t rounds;

struct side {
	unsigned int vcpu, first;
};

/* load the counter, with the callback, until it is @want */
static void wait_for(unsigned int vcpu, uint64_t want)
{
	unsigned int spins = 0;

	for (;;) {
		uint64_t v = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);

		access_line(vcpu, USER, 0x5000, 0);
		if (v == want)
			return;
		if (++spins % 64 == 0)
			sched_yield();
	}
}

static void *hand(void *arg)
{
	const struct side *s = arg;
	uint64_t i;

	for (i = 0; i < rounds; i++) {
		wait_for(s->vcpu, 2 * i + s->first);
		__atomic_store_n(&seq, 2 * i + s->first + 1, __ATOMIC_RELEASE);
		access_line(s->vcpu, USER, 0x5000, INFO_STORE);
	}
	/* the first side sees the last hand-off, as sis-handoff's does */
	if (!s->first)
		wait_for(s->vcpu, 2 * rounds);
	return NULL;
}

/*
 * Two host threads, vCPUs 0 and 32 (LLCs 0 and 8), hand the line back and
 * forth: on one host CPU (@cpu >= 0), each access and its callback run
 * with no access of the other thread between them but at a preemption,
 * as under single-threaded TCG; else free, on every CPU the host allows.
 * The sums of the counts go to @s.
 */
static void handoff_run(const char *dir, int cpu, struct loc_cnt *s)
{
	struct side a = { 0, 0 }, b = { 32, 1 };
	pthread_attr_t attr;
	pthread_t ta, tb;
	cpu_set_t set;
	unsigned int v, k;

	topology(dir, 8, 4);
	seq = 0;
	/* both sides hold the line, as before the guest's first mark */
	access_line(0, USER, 0x5000, INFO_STORE);
	access_line(32, USER, 0x5000, 0);
	memset(loc_cnts, 0, MAX_VCPUS * sizeof(*loc_cnts));
	pthread_attr_init(&attr);
	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	if (pthread_create(&ta, &attr, hand, &a) ||
	    pthread_create(&tb, &attr, hand, &b)) {
		perror("pthread_create");
		exit(1);
	}
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	pthread_attr_destroy(&attr);
	memset(s, 0, sizeof(*s));
	for (v = 0; v < MAX_VCPUS; v++) {
		for (k = 0; k < NR_BOUNDS; k++)
			s->xfer[0][k] += loc_cnts[v].xfer[0][k];
		s->upgr[0] += loc_cnts[v].upgr[0];
		s->fill[0] += loc_cnts[v].fill[0];
	}
}

static void handoff(const char *dir)
{
	uint64_t n, x, other, lost;
	struct loc_cnt s;
	char what[1024];
	cpu_set_t set;
	int cpu = 0;

	rounds = 20000;
	n = 2 * rounds;
	if (!sched_getaffinity(0, sizeof(set), &set))
		while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &set))
			cpu++;
	handoff_run(dir, cpu, &s);
	x = s.xfer[0][B_SOCKET];
	other = s.xfer[0][B_CCX] + s.xfer[0][B_QUAD] + s.xfer[0][B_HALF];
	snprintf(what, sizeof(what),
		 "two host threads on CPU %d (vCPUs 0 and 32, LLCs 0 and 8) hand a line back and forth %" PRIu64
		 " times each way: %" PRIu64 " transfers across the socket, want %" PRIu64
		 " within 1%% (%+.3f%%), %" PRIu64 " upgrades, none elsewhere (%" PRIu64 "), no fill (%" PRIu64 ")",
		 cpu, rounds, x, n, 100.0 * ((double)x - n) / n, s.upgr[0],
		 other, s.fill[0]);
	check(seq == n && (x > n ? x - n : n - x) * 100 <= n && !other &&
	      !s.fill[0], what);

	/*
	 * Free on two CPUs, a thread's callback can come after the other
	 * thread's load and store: lost transfers, never made-up ones
	 */
	handoff_run(dir, -1, &s);
	x = s.xfer[0][B_SOCKET];
	other = s.xfer[0][B_CCX] + s.xfer[0][B_QUAD] + s.xfer[0][B_HALF];
	lost = x < n ? n - x : 0;
	snprintf(what, sizeof(what),
		 "the same on every CPU, at host speed: %" PRIu64 " transfers across the socket of %" PRIu64
		 " (%.2f%% lost to the window between an access and its callback, which under TCG is a far smaller part of a hand-off), %" PRIu64
		 " upgrades; none made up: at most %" PRIu64 " each, none elsewhere (%" PRIu64 "), no fill (%" PRIu64 ")",
		 x, n, 100.0 * lost / n, s.upgr[0], n, other, s.fill[0]);
	check(seq == n && x <= n && s.upgr[0] <= n && !other && !s.fill[0],
	      what);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: locality-model DIR\n");
		return 2;
	}
	sequence(argv[1]);
	handoff(argv[1]);
	return !!fails;
}
