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
 *         KIND f (a function to count), h (a helper: a library function
 *         the listed ones call, counted as part of its caller) or m (the
 *         marker's entry; at most one).  Written by scripts/cost-map.sh.
 *   out   file the plugin appends its reports to.
 *   lines off: no memory callbacks (instructions and calls only).
 *
 * Instructions are counted by a callback on every execution of a block
 * that starts in a listed function, into that vCPU's own counters, so
 * concurrent vCPU threads never add to the same counter.  A block is
 * credited to the function it starts in.
 *
 * Helpers (the bitmap and find-bit functions of lib/, memset...) are
 * out of line, so a cost of the listed code that no listed block holds:
 * a scan's find_next_bit() runs in lib/find_bit.c.  A helper's blocks,
 * and its loads and stores, are credited to the listed function whose
 * block ended in the direct call (or jump) to the helper, until the
 * helper returns: each vCPU keeps that caller and a depth, which a call
 * from a helper to a helper raises and a helper's ret lowers; the next
 * listed block sets both again.  A helper run that no listed block
 * called (other kernel code's) is counted apart as uncredited.  What
 * this misses: helpers called through a pointer, and an interrupt taken
 * inside a credited helper, whose own helper calls the caller gets.
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
 *   c NAME INSNS                          (of f NAME's INSNS, those run
 *                                          in helpers it called)
 *   uncredited INSNS                      (helper instructions no listed
 *                                          function called)
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
	uint64_t insns, calls, xfer, upgr, acc, hinsns;
};

/* what one translated block adds when it runs */
struct blk {
	uint32_t fn;
	uint32_t insns;
	uint8_t entry;
	/* a listed block: ends in a call or jump to a helper */
	uint8_t to_helper;
	/* a helper's block: ends in a call to a helper, or in a ret */
	uint8_t calls, ret;
};

/* the caller a vCPU's helper blocks are credited to, or NO_FN */
#define NO_FN		UINT32_MAX
/* memory callback data of a helper's instruction */
#define HELPER_ACCESS	UINT32_MAX

struct line {
	uint64_t addr;
	struct line *next;
	uint64_t holders[LINE_WORDS];
};

static struct fn *fns, *helpers;
static uint32_t nr_fns, nr_helpers;
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

/* per vCPU, written by its own thread: the helper chain it is in */
static uint32_t chain_fn[MAX_VCPUS];
static uint32_t chain_depth[MAX_VCPUS];
static uint64_t uncredited[MAX_VCPUS];

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

/* the index of the range of @tab (sorted, disjoint) holding @pc, or -1 */
static int range_of(const struct fn *tab, uint32_t n, uint64_t pc)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (pc < tab[mid].start)
			hi = mid;
		else if (pc >= tab[mid].end)
			lo = mid + 1;
		else
			return (int)mid;
	}
	return -1;
}

static void report(const char *why)
{
	uint64_t total = 0, lost = 0;
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
			s.hinsns += c[f].hinsns;
		}
		if (!s.insns && !s.acc)
			continue;
		total += s.insns;
		fprintf(out, "f %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 "\n", fns[f].name, s.insns, s.calls, s.xfer,
			s.upgr, s.acc);
		if (s.hinsns)
			fprintf(out, "c %s %" PRIu64 "\n", fns[f].name, s.hinsns);
	}
	fprintf(out, "total %" PRIu64 "\n", total);
	if (nr_helpers) {
		for (v = 0; v < MAX_VCPUS; v++)
			lost += __atomic_load_n(&uncredited[v], __ATOMIC_RELAXED);
		fprintf(out, "uncredited %" PRIu64 "\n", lost);
	}
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
	if (vcpu < MAX_VCPUS) {
		chain_fn[vcpu] = b->to_helper ? b->fn : NO_FN;
		chain_depth[vcpu] = b->to_helper;
	}
}

static void helper_exec(unsigned int vcpu, void *udata)
{
	const struct blk *b = udata;
	struct cnt *c;
	uint32_t f;

	if (vcpu >= MAX_VCPUS)
		return;
	f = chain_fn[vcpu];
	if (f == NO_FN) {
		__atomic_store_n(&uncredited[vcpu], uncredited[vcpu] + b->insns,
				 __ATOMIC_RELAXED);
		return;
	}
	c = vcpu_cnts(vcpu);
	c[f].insns += b->insns;
	c[f].hinsns += b->insns;
	if (b->calls) {
		chain_depth[vcpu]++;
	} else if (b->ret && --chain_depth[vcpu] == 0) {
		chain_fn[vcpu] = NO_FN;
	}
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
	if (vcpu >= LINE_VCPUS)
		return;
	if (f == HELPER_ACCESS) {
		f = chain_fn[vcpu];
		if (f == NO_FN)
			return;
	}
	c = vcpu_cnts(vcpu);
	if (!c)
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

enum insn_kind { INSN_OTHER, INSN_CALL, INSN_JMP, INSN_RET };

/*
 * What the last instruction of a block is: a direct call or jump (and
 * its target) or a return.  The kernel's x86-64 code: a segment prefix
 * at most (2e, 3e) before e8/e9 rel32, eb rel8, c3 or c2 imm16.
 */
static enum insn_kind insn_kind(struct qemu_plugin_insn *insn,
				uint64_t *target)
{
	uint8_t op[16];
	size_t len = qemu_plugin_insn_size(insn), i = 0;
	uint64_t next = qemu_plugin_insn_vaddr(insn) + len;
	int32_t rel;

	if (len > sizeof(op))
		return INSN_OTHER;
#if QEMU_PLUGIN_VERSION >= 3
	if (qemu_plugin_insn_data(insn, op, len) != len)
		return INSN_OTHER;
#else
	memcpy(op, qemu_plugin_insn_data(insn), len);
#endif
	while (i < len && (op[i] == 0x2e || op[i] == 0x3e))
		i++;
	if (i == len)
		return INSN_OTHER;
	switch (op[i]) {
	case 0xc2:
	case 0xc3:
		return INSN_RET;
	case 0xe8:
	case 0xe9:
		if (len - i != 5)
			return INSN_OTHER;
		memcpy(&rel, op + i + 1, sizeof(rel));
		*target = next + (int64_t)rel;
		return op[i] == 0xe8 ? INSN_CALL : INSN_JMP;
	case 0xeb:
		if (len - i != 2)
			return INSN_OTHER;
		*target = next + (int8_t)op[i + 1];
		return INSN_JMP;
	}
	return INSN_OTHER;
}

static struct blk *new_blk(void)
{
	/* one per translation: blocks are translated a few times at most */
	struct blk *b = calloc(1, sizeof(struct blk));

	if (!b) {
		fprintf(stderr, "sis-cost: out of memory\n");
		abort();
	}
	return b;
}

static int is_helper(uint64_t pc)
{
	return range_of(helpers, nr_helpers, pc) >= 0;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t pc = qemu_plugin_tb_vaddr(tb), to = 0;
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	enum insn_kind last;
	struct blk *b;
	uint32_t acc;
	int f;

	(void)id;
	if (have_mark && pc == mark_pc)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, mark_exec,
						     QEMU_PLUGIN_CB_NO_REGS, NULL);
	if (!n)
		return;
	f = range_of(fns, nr_fns, pc);
	if (f < 0 && !is_helper(pc))
		return;
	last = nr_helpers ? insn_kind(qemu_plugin_tb_get_insn(tb, n - 1), &to)
			  : INSN_OTHER;
	b = new_blk();
	b->insns = (uint32_t)n;
	if (f < 0) {
		b->fn = NO_FN;
		b->calls = last == INSN_CALL && is_helper(to);
		b->ret = last == INSN_RET;
		qemu_plugin_register_vcpu_tb_exec_cb(tb, helper_exec,
						     QEMU_PLUGIN_CB_NO_REGS, b);
		acc = HELPER_ACCESS;
		goto lines;
	}
	b->fn = (uint32_t)f;
	b->entry = pc == fns[f].start;
	b->to_helper = (last == INSN_CALL || last == INSN_JMP) && is_helper(to);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, blk_exec,
					     QEMU_PLUGIN_CB_NO_REGS, b);
	acc = (uint32_t)f;
#if QEMU_PLUGIN_VERSION < 2
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &inline_insns, n);
#endif
lines:
	if (!track_lines)
		return;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		qemu_plugin_register_vcpu_mem_cb(insn, mem_access,
						 QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW,
						 (void *)(uintptr_t)acc);
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

/* append a range to @tab, of @n entries and room for @cap */
static int add_range(struct fn **tab, uint32_t *n, uint32_t *cap,
		     uint64_t start, uint64_t end, const char *name)
{
	if (*n == *cap) {
		struct fn *t;

		*cap = *cap ? 2 * *cap : 1024;
		t = realloc(*tab, *cap * sizeof(**tab));
		if (!t)
			return -1;
		*tab = t;
	}
	(*tab)[*n].start = start;
	(*tab)[*n].end = end;
	(*tab)[*n].name = strdup(name);
	(*n)++;
	return 0;
}

static int load_map(const char *path)
{
	FILE *m = fopen(path, "r");
	char buf[512], name[256], kind;
	uint64_t start, end;
	uint32_t cap = 0, hcap = 0, lineno = 0;

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
		    (kind != 'f' && kind != 'h' && kind != 'm')) {
			fprintf(stderr, "sis-cost: %s:%u: not START END f|h|m NAME\n",
				path, lineno);
			fclose(m);
			return -1;
		}
		if (kind == 'm') {
			mark_pc = start;
			have_mark = 1;
			continue;
		}
		if (kind == 'h' ? add_range(&helpers, &nr_helpers, &hcap, start,
					    end, name) :
		    add_range(&fns, &nr_fns, &cap, start, end, name)) {
			fprintf(stderr, "sis-cost: out of memory\n");
			fclose(m);
			return -1;
		}
	}
	fclose(m);
	if (!nr_fns) {
		fprintf(stderr, "sis-cost: %s lists no function\n", path);
		return -1;
	}
	qsort(fns, nr_fns, sizeof(*fns), cmp_fn);
	if (nr_helpers)
		qsort(helpers, nr_helpers, sizeof(*helpers), cmp_fn);
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
	for (i = 0; i < MAX_VCPUS; i++)
		chain_fn[i] = NO_FN;
	fprintf(out, "# sis-cost: %u functions, %u helpers, lines %s, marker %s\n",
		nr_fns, nr_helpers, track_lines ? "on" : "off",
		have_mark ? "set" : "none");
	fflush(out);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
