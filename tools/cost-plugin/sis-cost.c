// SPDX-License-Identifier: GPL-2.0
/*
 * sis-cost: a QEMU TCG plugin that counts, per guest kernel function of a
 * given list (the scheduler's), the instructions executed, the calls (runs
 * of the block at the function's entry) and the cache-line transfers its
 * loads and stores would cause between CPUs, and writes the totals each
 * time the guest runs a marker function.
 *
 * Arguments (-plugin sis-cost.so,map=FILE,out=FILE[,lines=off]):
 *   map   lines "START END KIND NAME": hex guest addresses, END exclusive;
 *         KIND f (a function to count) or m (the marker's entry; at most
 *         one).  Written by scripts/cost-map.sh.
 *   out   file the plugin appends its reports to.
 *   lines off: no memory callbacks (instructions and calls only).
 *
 * Instructions are counted by a callback on every execution of a block
 * that starts in a listed function, into that vCPU's own counters, so
 * concurrent vCPU threads never add to the same counter.  A block is
 * credited to the function it starts in.
 *
 * Line transfers: every load and store of a listed function to the
 * kernel's direct map or image (not vmalloc space, so not the VMAP
 * kernel stacks) updates a model of infinite private caches, one per
 * vCPU: a line is held by the set of vCPUs that touched it since its last
 * store.  An access by a vCPU that does not hold the line is a transfer
 * (its data comes from another CPU's cache), unless no vCPU ever touched
 * it; a store by a vCPU that holds the line while others do too is an
 * upgrade (their copies are invalidated).  QEMU reports a read-modify-
 * write (a locked one too) as a load and a store, so one on a shared line
 * counts a transfer and an upgrade; an access across two lines counts on
 * the first.  What this proxy misses: accesses of code
 * outside the list (a line written only by such code looks unchanged),
 * capacity and conflict misses, prefetching, the hardware's line size
 * beyond 64 bytes and its NUMA distances; SMT siblings, which share a
 * real core's caches, count as separate caches.
 *
 * Report, at each marker run and at exit:
 *   mark SEQ
 *   f NAME INSNS CALLS XFER UPGR ACC      (functions with any count)
 *   total INSNS                           (the sum of every f line)
 *   inline INSNS                          (QEMU 7.2 only: the same sum
 *                                          by racy inline adds)
 *   end SEQ
 * Counts are cumulative since QEMU started.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_VCPUS	1024
/* vCPUs whose cache the line model tracks */
#define LINE_VCPUS	512
#define LINE_WORDS	(LINE_VCPUS / 64)
#define LINE_SHIFT	6
#define NR_BUCKETS	(1u << 18)
#define NR_STRIPES	1024u

/*
 * x86-64 kernel address ranges (no KASLR): the direct map with 4-level
 * paging, and with 5-level paging (a CPU model with LA57: EPYC-Genoa),
 * which is not canonical with 4 levels
 */
#define DIRECT_MAP_START	0xffff888000000000ull
#define DIRECT_MAP_END		0xffffc88000000000ull
#define DIRECT_MAP5_START	0xff11000000000000ull
#define DIRECT_MAP5_END		0xff91000000000000ull
#define KERNEL_IMAGE_START	0xffffffff80000000ull

struct fn {
	uint64_t start, end;
	char *name;
};

struct cnt {
	uint64_t insns, calls, xfer, upgr, acc;
};

/* what one translated block adds when it runs */
struct blk {
	uint32_t fn;
	uint32_t insns;
	uint32_t entry;
};

struct line {
	uint64_t addr;
	struct line *next;
	uint64_t holders[LINE_WORDS];
};

static struct fn *fns;
static uint32_t nr_fns;
static uint64_t mark_pc;
static int have_mark;
static int track_lines = 1;
static FILE *out;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long nr_marks;

/* per vCPU, then per function */
static struct cnt *cnts[MAX_VCPUS];
static pthread_mutex_t cnts_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t untracked_vcpus;

#if QEMU_PLUGIN_VERSION < 2
/* the same count by inline adds, which race between vCPU threads */
static uint64_t inline_insns;
#endif

static struct line *buckets[NR_BUCKETS];
static pthread_mutex_t stripes[NR_STRIPES];

static struct cnt *vcpu_cnts(unsigned int vcpu)
{
	struct cnt *c;

	if (vcpu >= MAX_VCPUS)
		return NULL;
	c = __atomic_load_n(&cnts[vcpu], __ATOMIC_ACQUIRE);
	if (c)
		return c;
	pthread_mutex_lock(&cnts_lock);
	c = cnts[vcpu];
	if (!c) {
		c = calloc(nr_fns, sizeof(*c));
		if (!c) {
			fprintf(stderr, "sis-cost: out of memory\n");
			abort();
		}
		__atomic_store_n(&cnts[vcpu], c, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&cnts_lock);
	return c;
}

static int fn_of(uint64_t pc)
{
	uint32_t lo = 0, hi = nr_fns;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (pc < fns[mid].start)
			hi = mid;
		else if (pc >= fns[mid].end)
			lo = mid + 1;
		else
			return (int)mid;
	}
	return -1;
}

static void report(const char *why)
{
	uint64_t total = 0;
	uint32_t f;
	unsigned int v;

	pthread_mutex_lock(&out_lock);
	fprintf(out, "mark %lu %s\n", nr_marks++, why);
	for (f = 0; f < nr_fns; f++) {
		struct cnt s = { 0 };

		for (v = 0; v < MAX_VCPUS; v++) {
			struct cnt *c = __atomic_load_n(&cnts[v], __ATOMIC_ACQUIRE);

			if (!c)
				continue;
			s.insns += c[f].insns;
			s.calls += c[f].calls;
			s.xfer += c[f].xfer;
			s.upgr += c[f].upgr;
			s.acc += c[f].acc;
		}
		if (!s.insns && !s.acc)
			continue;
		total += s.insns;
		fprintf(out, "f %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 "\n", fns[f].name, s.insns, s.calls, s.xfer,
			s.upgr, s.acc);
	}
	fprintf(out, "total %" PRIu64 "\n", total);
#if QEMU_PLUGIN_VERSION < 2
	fprintf(out, "inline %" PRIu64 "\n",
		__atomic_load_n(&inline_insns, __ATOMIC_RELAXED));
#endif
	if (untracked_vcpus)
		fprintf(out, "untracked-vcpus %" PRIu64 "\n", untracked_vcpus);
	fprintf(out, "end %lu\n", nr_marks - 1);
	fflush(out);
	pthread_mutex_unlock(&out_lock);
}

static void blk_exec(unsigned int vcpu, void *udata)
{
	const struct blk *b = udata;
	struct cnt *c = vcpu_cnts(vcpu);

	if (!c) {
		__atomic_add_fetch(&untracked_vcpus, 1, __ATOMIC_RELAXED);
		return;
	}
	c[b->fn].insns += b->insns;
	c[b->fn].calls += b->entry;
}

static void mark_exec(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	report("guest");
}

static int holds(const struct line *l, unsigned int v)
{
	return (l->holders[v / 64] >> (v % 64)) & 1;
}

static int held_by_others(const struct line *l, unsigned int v)
{
	unsigned int w;

	for (w = 0; w < LINE_WORDS; w++) {
		uint64_t other = l->holders[w];

		if (w == v / 64)
			other &= ~(1ull << (v % 64));
		if (other)
			return 1;
	}
	return 0;
}

static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info,
		       uint64_t vaddr, void *udata)
{
	uint32_t f = (uint32_t)(uintptr_t)udata;
	uint64_t addr = vaddr >> LINE_SHIFT;
	uint32_t h = (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> 46);
	int store = qemu_plugin_mem_is_store(info);
	struct line *l;
	struct cnt *c;

	if (!((vaddr >= DIRECT_MAP_START && vaddr < DIRECT_MAP_END) ||
	      (vaddr >= DIRECT_MAP5_START && vaddr < DIRECT_MAP5_END) ||
	      vaddr >= KERNEL_IMAGE_START))
		return;
	c = vcpu_cnts(vcpu);
	if (!c || vcpu >= LINE_VCPUS)
		return;
	c[f].acc++;

	pthread_mutex_lock(&stripes[h % NR_STRIPES]);
	for (l = buckets[h]; l; l = l->next)
		if (l->addr == addr)
			break;
	if (!l) {
		l = calloc(1, sizeof(*l));
		if (!l) {
			fprintf(stderr, "sis-cost: out of memory\n");
			abort();
		}
		l->addr = addr;
		l->next = buckets[h];
		buckets[h] = l;
	} else if (!holds(l, vcpu)) {
		c[f].xfer++;
	} else if (store && held_by_others(l, vcpu)) {
		c[f].upgr++;
	}
	if (store)
		memset(l->holders, 0, sizeof(l->holders));
	l->holders[vcpu / 64] |= 1ull << (vcpu % 64);
	pthread_mutex_unlock(&stripes[h % NR_STRIPES]);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t pc = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	struct blk *b;
	int f;

	(void)id;
	if (have_mark && pc == mark_pc)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, mark_exec,
						     QEMU_PLUGIN_CB_NO_REGS, NULL);
	f = fn_of(pc);
	if (f < 0)
		return;
	/* one per translation: blocks are translated a few times at most */
	b = malloc(sizeof(*b));
	if (!b) {
		fprintf(stderr, "sis-cost: out of memory\n");
		abort();
	}
	b->fn = (uint32_t)f;
	b->insns = (uint32_t)n;
	b->entry = pc == fns[f].start;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, blk_exec,
					     QEMU_PLUGIN_CB_NO_REGS, b);
#if QEMU_PLUGIN_VERSION < 2
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &inline_insns, n);
#endif
	if (!track_lines)
		return;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		qemu_plugin_register_vcpu_mem_cb(insn, mem_access,
						 QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW,
						 (void *)(uintptr_t)f);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	report("exit");
	fclose(out);
}

static int cmp_fn(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int load_map(const char *path)
{
	FILE *m = fopen(path, "r");
	char buf[512], name[256], kind;
	uint64_t start, end;
	uint32_t cap = 0, lineno = 0;

	if (!m) {
		fprintf(stderr, "sis-cost: cannot open map %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	while (fgets(buf, sizeof(buf), m)) {
		lineno++;
		if (buf[0] == '#' || buf[0] == '\n')
			continue;
		if (sscanf(buf, "%" SCNx64 " %" SCNx64 " %c %255s", &start, &end,
			   &kind, name) != 4 || end <= start ||
		    (kind != 'f' && kind != 'm')) {
			fprintf(stderr, "sis-cost: %s:%u: not START END f|m NAME\n",
				path, lineno);
			fclose(m);
			return -1;
		}
		if (kind == 'm') {
			mark_pc = start;
			have_mark = 1;
			continue;
		}
		if (nr_fns == cap) {
			cap = cap ? 2 * cap : 1024;
			fns = realloc(fns, cap * sizeof(*fns));
			if (!fns) {
				fclose(m);
				return -1;
			}
		}
		fns[nr_fns].start = start;
		fns[nr_fns].end = end;
		fns[nr_fns].name = strdup(name);
		nr_fns++;
	}
	fclose(m);
	if (!nr_fns) {
		fprintf(stderr, "sis-cost: %s lists no function\n", path);
		return -1;
	}
	qsort(fns, nr_fns, sizeof(*fns), cmp_fn);
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *map = NULL, *path = NULL;
	unsigned int i;
	int a;

	(void)info;
	for (a = 0; a < argc; a++) {
		if (!strncmp(argv[a], "map=", 4)) {
			map = argv[a] + 4;
		} else if (!strncmp(argv[a], "out=", 4)) {
			path = argv[a] + 4;
		} else if (!strcmp(argv[a], "lines=off")) {
			track_lines = 0;
		} else if (!strcmp(argv[a], "lines=on")) {
			track_lines = 1;
		} else {
			fprintf(stderr, "sis-cost: unknown argument %s\n", argv[a]);
			return -1;
		}
	}
	if (!map || !path) {
		fprintf(stderr, "sis-cost: needs map=FILE and out=FILE\n");
		return -1;
	}
	if (load_map(map))
		return -1;
	out = fopen(path, "a");
	if (!out) {
		fprintf(stderr, "sis-cost: cannot open %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	for (i = 0; i < NR_STRIPES; i++)
		pthread_mutex_init(&stripes[i], NULL);
	fprintf(out, "# sis-cost: %u functions, lines %s, marker %s\n", nr_fns,
		track_lines ? "on" : "off", have_mark ? "set" : "none");
	fflush(out);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
