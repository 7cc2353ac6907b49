// SPDX-License-Identifier: GPL-2.0
/*
 * sis-cost: a QEMU TCG plugin that counts, per guest kernel function of a
 * given list (the scheduler's), the instructions executed, the calls (runs
 * of the block at the function's entry) and the cache-line transfers its
 * loads and stores would cause between CPUs, and writes the totals each
 * time the guest runs a marker function.  Its locality mode follows every
 * load and store of the whole guest as well, kernel and user, by physical
 * cache line, and counts the lines that move between LLCs by the boundary
 * they cross.
 *
 * Arguments (-plugin sis-cost.so,map=FILE,out=FILE[,lines=off]
 *            [,locality=FILE,ram=MIB]):
 *   map   lines "START END KIND NAME": hex guest addresses, END exclusive;
 *         KIND f (a function to count), h (a helper: a library function
 *         the listed ones call, counted as part of its caller) or m (the
 *         marker's entry; at most one).  Written by scripts/cost-map.sh.
 *   out   file the plugin appends its reports to.
 *   lines off: no memory callbacks (instructions and calls only) for the
 *         listed functions' own line model; the locality mode's are apart.
 *   locality  the locality mode's topology: lines "VCPU LLC QUADRANT HALF
 *         SOCKET" ('#' comments), a QEMU vCPU index and the global numbers
 *         of its LLC, NPS4 quadrant, NPS2 half and socket: the machine's
 *         physical units, whatever NPS mode the guest booted.  At most 32
 *         LLCs; an LLC lies in one quadrant, a quadrant in one half, a
 *         half in one socket; every vCPU QEMU runs has a line.  Written
 *         by scripts/cost-topo.sh.
 *   ram   the guest's RAM in MiB (QEMU's -m), which sizes the locality
 *         mode's table of lines; given with locality=, and only with it.
 * A bad argument is refused in one line on stderr, and QEMU does not start.
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
 * Locality mode (locality=): a callback on every guest load and store,
 * of every block, kernel and user, takes the access's physical address
 * (qemu_plugin_get_hwaddr(); memory-mapped I/O is left out) and updates
 * a model of one infinite cache per LLC, MESI-like at LLC granularity.
 * Each 64-byte physical line has a mask of the LLCs holding it: one byte
 * per line for up to 8 LLCs, two for up to 16, four for up to 32, in one
 * flat table indexed by physical line number, mapped with MAP_NORESERVE
 * so that only the pages of lines the guest touches take host memory (at
 * most 1/64, 1/32 or 1/16 of the guest's RAM).  A load by an LLC that
 * does not hold the line is a transfer from a holder, after which it
 * holds the line too; a store by an LLC that does not hold it is a
 * transfer as well, after which it is the only holder; a store by a
 * holder while others hold it too is an upgrade (their copies are
 * invalidated, no data moves); a load or store of a line no LLC holds is
 * a fill, from memory.  A transfer is counted by the boundary between
 * the accessing LLC and the nearest holder, where the data would come
 * from: ccx (another LLC of the same NPS4 quadrant: the CCX boundary
 * alone), quad (of the same NPS2 half: a quadrant boundary), half (of
 * the same socket: the half boundary) or socket (of the other socket).
 * Counts are split by the half of the address space the access used:
 * kernel (bit 63 set: the direct map, vmalloc, the image, under 4- and
 * 5-level paging alike) or user; the kernel's copies to and from user
 * memory count as user.  A read-modify-write comes as a load and a store,
 * or, a locked one under QEMU 7.2, as one access that reads and writes,
 * taken as a store: the same transfers either way.  An access across two
 * lines counts on the first.
 *
 * The table covers physical addresses below twice the RAM plus 4 GiB:
 * QEMU 8.1 and later report the guest's physical address, and q35 puts
 * the RAM beyond its first 2 or 3 GiB above 4 GiB; QEMU 7.2 reports a RAM
 * block's offset among QEMU's RAM blocks plus its memory region's offset
 * in its container, which for the NUMA nodes' memory backends reaches
 * about twice the RAM (node n's backend at 2n times its size), and a
 * device's RAM (the VGA's video memory, ROMs) may share numbers with a
 * node's, which the lab's guests, on a serial console, do not touch
 * after boot.  An access beyond the table is counted (loc-skip), not
 * modelled.
 *
 * Concurrency: under MTTCG the vCPU threads run the callbacks in
 * parallel.  The counters are per vCPU, each written by its own thread
 * alone.  A line's mask changes by compare-and-swap only, so the accesses
 * to one line are modelled one at a time, in the order their swaps
 * succeed, and no update is lost; an access that leaves the mask as it
 * was (a hit: most of them) writes nothing.  The race left is between a
 * guest access and its callback, which QEMU runs right after it: a vCPU
 * thread that the host preempts between the two lets another vCPU's
 * later access to the same line be modelled first.  A line handed between
 * two vCPUs within such a window can then lose a transfer (a store
 * modelled after the other side's load and store is counted as the
 * transfer instead of that load, or two hand-offs merge into one).  The
 * window is one callback long, a hand-off under TCG several.  Measured in
 * a 64-vCPU guest on two host cores (2026-12-07, the guest test of
 * tests/cost/test.sh, data/runs/20261207-locality-guest-test): of 20000
 * hand-offs of one line between two CPUs, 19415 to 19952 were counted as
 * transfers across the pair's boundary (0.2 to 2.9% lost) and 18284 to
 * 19652 as upgrades (1.7 to 8.6% lost), none across another boundary; at
 * host speed, with no emulation between accesses, the model loses up to
 * a fifth of them (tests/cost/locality-model.c).  Single-threaded TCG (LAB_TCG_THREAD=single) runs
 * an access and its callback with no other vCPU's access between them:
 * exact, with every vCPU on one host thread.  A report sums the vCPUs'
 * counters while the other vCPUs run, as the cost mode's do.
 *
 * What the locality model misses: capacity and conflict misses (a cache
 * is infinite: a line stays held until another LLC stores to it, so the
 * refetch of an evicted line and a stream through more data than an L3
 * holds cost one fill and nothing more); the L1 and L2 inside a CCX, whose
 * misses to the L3 cost too but never cross an LLC; prefetching (a
 * prefetch instruction is no load here, a hardware prefetcher's fetches
 * are not modelled, and the adjacent-line prefetcher's 128-byte pairs
 * are two lines); SMT siblings share a core's caches and every core of a
 * CCX its L3, so their traffic between each other is free here; a line's
 * home node and memory latency (a fill from another node's memory crosses
 * that boundary on the real machine, here it is a fill by no boundary, and
 * the probe a fill sends to the other LLCs is not counted); the real
 * protocol's states (MOESI's owned state keeps a dirty line shared
 * without a write-back, and a clean shared line may come from memory
 * rather than from another LLC); DMA (virtio and 9p write guest memory
 * behind the CPUs' backs, and the lines keep their holders); the page
 * walker's reads and its accessed and dirty bits, which QEMU does
 * without callbacks; instruction fetches.
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
 *   loc SPACE ACC FILL UPGR CCX QUAD HALF SOCKET
 *                                         (locality mode only, SPACE
 *                                          user, then kernel: accesses,
 *                                          fills, upgrades and transfers
 *                                          by the boundary crossed)
 *   loc-skip IO NOADDR BEYOND UNTRACKED   (locality mode only: accesses
 *                                          left out: memory-mapped I/O,
 *                                          no physical address from QEMU,
 *                                          beyond the table, of vCPUs the
 *                                          topology lacks)
 *   loc-top ADDR                          (locality mode only: the
 *                                          highest physical address
 *                                          modelled, hex)
 *   end SEQ
 * Counts are cumulative since QEMU started: the work between two marks
 * is the difference of their reports (scripts/sis_cost.py locality turns
 * the loc lines into transfers per unit of work by boundary).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

/* the locality mode's LLCs: holder masks of up to 32 bits */
#define MAX_LLCS	32
/* the boundary a transfer crosses, from the nearest holder */
enum { B_CCX, B_QUAD, B_HALF, B_SOCKET, NR_BOUNDS };
/* the counts of the two halves of the address space */
enum { SPACE_USER, SPACE_KERNEL, NR_SPACES };

/* one vCPU's locality counts, written by its own thread alone */
struct loc_cnt {
	uint64_t acc[NR_SPACES], fill[NR_SPACES], upgr[NR_SPACES];
	uint64_t xfer[NR_SPACES][NR_BOUNDS];
	uint64_t io, noaddr, beyond, top;
} __attribute__((aligned(64)));

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

/* the locality mode: on with locality=FILE */
static int locality;
/* each vCPU's LLC, -1 for a vCPU the topology lacks */
static int8_t vcpu_llc[MAX_VCPUS];
/* per LLC, per boundary but the socket's: the other LLCs within it */
static uint32_t near_llcs[MAX_LLCS][B_SOCKET];
static unsigned int nr_llcs, nr_topo_vcpus;
/* the table of holder masks, mask_bytes each, one per physical line */
static void *masks;
static unsigned int mask_bytes;
static uint64_t nr_lines, ram_mib;
/* per vCPU (MAX_VCPUS) */
static struct loc_cnt *loc_cnts;
static uint64_t loc_untracked;

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

static uint64_t get(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* the locality mode's lines of a report: the sums of every vCPU's counts */
static void report_locality(void)
{
	static const char *const space[NR_SPACES] = { "user", "kernel" };
	struct loc_cnt s;
	unsigned int v, k, b;

	memset(&s, 0, sizeof(s));
	for (v = 0; v < MAX_VCPUS; v++) {
		const struct loc_cnt *c = &loc_cnts[v];
		uint64_t top = get(&c->top);

		for (k = 0; k < NR_SPACES; k++) {
			s.acc[k] += get(&c->acc[k]);
			s.fill[k] += get(&c->fill[k]);
			s.upgr[k] += get(&c->upgr[k]);
			for (b = 0; b < NR_BOUNDS; b++)
				s.xfer[k][b] += get(&c->xfer[k][b]);
		}
		s.io += get(&c->io);
		s.noaddr += get(&c->noaddr);
		s.beyond += get(&c->beyond);
		if (top > s.top)
			s.top = top;
	}
	for (k = 0; k < NR_SPACES; k++)
		fprintf(out, "loc %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", space[k],
			s.acc[k], s.fill[k], s.upgr[k], s.xfer[k][B_CCX],
			s.xfer[k][B_QUAD], s.xfer[k][B_HALF], s.xfer[k][B_SOCKET]);
	fprintf(out, "loc-skip %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		s.io, s.noaddr, s.beyond, get(&loc_untracked));
	fprintf(out, "loc-top 0x%" PRIx64 "\n", s.top);
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
	if (locality)
		report_locality();
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

/* a counter of the calling vCPU's own: no other thread writes it */
static void bump(uint64_t *p)
{
	__atomic_store_n(p, *p + 1, __ATOMIC_RELAXED);
}

static uint32_t mask_get(uint64_t line)
{
	switch (mask_bytes) {
	case 1:
		return __atomic_load_n((uint8_t *)masks + line, __ATOMIC_RELAXED);
	case 2:
		return __atomic_load_n((uint16_t *)masks + line, __ATOMIC_RELAXED);
	}
	return __atomic_load_n((uint32_t *)masks + line, __ATOMIC_RELAXED);
}

/* the mask of entry @line of a table of TYPE swapped from *@old to @new */
#define MASK_SWAP(type, line, old, new) ({				\
	type __o = (type)*(old);					\
	int __ok = __atomic_compare_exchange_n((type *)masks + (line),	\
			&__o, (type)(new), 0, __ATOMIC_RELAXED,		\
			__ATOMIC_RELAXED);				\
	*(old) = __o;							\
	__ok;								\
})

/*
 * Swap @line's mask from *@old to @new; when another vCPU changed it
 * first, fail and leave the mask it has now in *@old.
 */
static int mask_swap(uint64_t line, uint32_t *old, uint32_t new)
{
	switch (mask_bytes) {
	case 1:
		return MASK_SWAP(uint8_t, line, old, new);
	case 2:
		return MASK_SWAP(uint16_t, line, old, new);
	}
	return MASK_SWAP(uint32_t, line, old, new);
}

/* the boundary between @llc and the nearest of the LLCs of @holders */
static int boundary(unsigned int llc, uint32_t holders)
{
	int b;

	for (b = B_CCX; b < B_SOCKET; b++)
		if (holders & near_llcs[llc][b])
			return b;
	return B_SOCKET;
}

/* the locality mode's callback: every load and store of the guest */
static void loc_access(unsigned int vcpu, qemu_plugin_meminfo_t info,
		       uint64_t vaddr, void *udata)
{
	int space = vaddr >> 63 ? SPACE_KERNEL : SPACE_USER;
	struct qemu_plugin_hwaddr *hw;
	uint32_t me, old, new;
	struct loc_cnt *c;
	uint64_t pa, line;
	int store, llc;

	(void)udata;
	if (vcpu >= MAX_VCPUS || vcpu_llc[vcpu] < 0) {
		__atomic_add_fetch(&loc_untracked, 1, __ATOMIC_RELAXED);
		return;
	}
	llc = vcpu_llc[vcpu];
	c = &loc_cnts[vcpu];
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (!hw) {
		bump(&c->noaddr);
		return;
	}
	if (qemu_plugin_hwaddr_is_io(hw)) {
		bump(&c->io);
		return;
	}
	pa = qemu_plugin_hwaddr_phys_addr(hw);
	line = pa >> LINE_SHIFT;
	if (line >= nr_lines) {
		bump(&c->beyond);
		return;
	}
	if (pa > c->top)
		__atomic_store_n(&c->top, pa, __ATOMIC_RELAXED);
	bump(&c->acc[space]);
	store = qemu_plugin_mem_is_store(info);
	me = 1u << llc;
	old = mask_get(line);
	do {
		if (old & me) {
			/* a hit: a load, or a store of the only holder */
			if (!store || old == me)
				return;
			new = me;
		} else {
			new = store ? me : old | me;
		}
	} while (!mask_swap(line, &old, new));
	if (old & me)
		bump(&c->upgr[space]);
	else if (!old)
		bump(&c->fill[space]);
	else
		bump(&c->xfer[space][boundary(llc, old)]);
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
	if (locality)
		for (i = 0; i < n; i++)
			qemu_plugin_register_vcpu_mem_cb(
				qemu_plugin_tb_get_insn(tb, i), loc_access,
				QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, NULL);
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

/*
 * The locality mode's topology (locality=FILE): each vCPU's LLC, and per
 * LLC the other LLCs within each boundary.  An LLC must lie in one
 * quadrant, a quadrant in one half, a half in one socket.
 */
static int load_topology(const char *path)
{
	/* where each LLC, quadrant and half lies, plus one (0: not seen) */
	unsigned int llc_at[MAX_LLCS][3], quad_at[MAX_LLCS][2];
	unsigned int half_at[MAX_LLCS];
	unsigned int v, l, q, h, s, a, b, lineno = 0;
	FILE *t = fopen(path, "r");
	char buf[256], extra;

	if (!t) {
		fprintf(stderr, "sis-cost: cannot open topology %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	memset(llc_at, 0, sizeof(llc_at));
	memset(quad_at, 0, sizeof(quad_at));
	memset(half_at, 0, sizeof(half_at));
	memset(vcpu_llc, -1, sizeof(vcpu_llc));
	while (fgets(buf, sizeof(buf), t)) {
		lineno++;
		if (buf[0] == '#' || buf[0] == '\n')
			continue;
		if (sscanf(buf, "%u %u %u %u %u %c", &v, &l, &q, &h, &s,
			   &extra) != 5) {
			fprintf(stderr, "sis-cost: %s:%u: not VCPU LLC QUADRANT HALF SOCKET\n",
				path, lineno);
			goto bad;
		}
		if (v >= MAX_VCPUS) {
			fprintf(stderr, "sis-cost: %s:%u: vCPU %u: the plugin follows vCPUs 0 to %d\n",
				path, lineno, v, MAX_VCPUS - 1);
			goto bad;
		}
		if (l >= MAX_LLCS || q >= MAX_LLCS || h >= MAX_LLCS ||
		    s >= MAX_LLCS) {
			fprintf(stderr, "sis-cost: %s:%u: LLCs, quadrants, halves and sockets are numbered 0 to %d\n",
				path, lineno, MAX_LLCS - 1);
			goto bad;
		}
		if (vcpu_llc[v] >= 0) {
			fprintf(stderr, "sis-cost: %s:%u: vCPU %u listed twice\n",
				path, lineno, v);
			goto bad;
		}
		if (!llc_at[l][0]) {
			llc_at[l][0] = q + 1;
			llc_at[l][1] = h + 1;
			llc_at[l][2] = s + 1;
		} else if (llc_at[l][0] != q + 1 || llc_at[l][1] != h + 1 ||
			   llc_at[l][2] != s + 1) {
			fprintf(stderr, "sis-cost: %s:%u: LLC %u lies in quadrant %u, half %u, socket %u on an earlier line\n",
				path, lineno, l, llc_at[l][0] - 1,
				llc_at[l][1] - 1, llc_at[l][2] - 1);
			goto bad;
		}
		if (!quad_at[q][0]) {
			quad_at[q][0] = h + 1;
			quad_at[q][1] = s + 1;
		} else if (quad_at[q][0] != h + 1 || quad_at[q][1] != s + 1) {
			fprintf(stderr, "sis-cost: %s:%u: quadrant %u lies in half %u, socket %u on an earlier line\n",
				path, lineno, q, quad_at[q][0] - 1,
				quad_at[q][1] - 1);
			goto bad;
		}
		if (!half_at[h]) {
			half_at[h] = s + 1;
		} else if (half_at[h] != s + 1) {
			fprintf(stderr, "sis-cost: %s:%u: half %u lies in socket %u on an earlier line\n",
				path, lineno, h, half_at[h] - 1);
			goto bad;
		}
		vcpu_llc[v] = (int8_t)l;
		nr_topo_vcpus++;
		if (l >= nr_llcs)
			nr_llcs = l + 1;
	}
	fclose(t);
	if (!nr_topo_vcpus) {
		fprintf(stderr, "sis-cost: topology %s lists no vCPU\n", path);
		return -1;
	}
	for (a = 0; a < nr_llcs; a++) {
		for (b = 0; b < nr_llcs; b++) {
			if (a == b || !llc_at[a][0] || !llc_at[b][0])
				continue;
			if (llc_at[a][0] == llc_at[b][0])
				near_llcs[a][B_CCX] |= 1u << b;
			if (llc_at[a][1] == llc_at[b][1])
				near_llcs[a][B_QUAD] |= 1u << b;
			if (llc_at[a][2] == llc_at[b][2])
				near_llcs[a][B_HALF] |= 1u << b;
		}
	}
	mask_bytes = nr_llcs <= 8 ? 1 : nr_llcs <= 16 ? 2 : 4;
	return 0;
bad:
	fclose(t);
	return -1;
}

/*
 * The table of holder masks for a guest of @ram MiB: physical addresses
 * below twice the RAM plus 4 GiB (see the header comment), and the
 * vCPUs' counters
 */
static int alloc_lines(const char *ram)
{
	char *end;
	size_t size;

	errno = 0;
	ram_mib = strtoull(ram, &end, 10);
	if (errno || end == ram || *end || ram_mib < 1 || ram_mib > 1u << 24) {
		fprintf(stderr, "sis-cost: ram=%s: not the guest's RAM in MiB (1 to %u)\n",
			ram, 1u << 24);
		return -1;
	}
	nr_lines = ((2 * ram_mib + 4096) << 20) >> LINE_SHIFT;
	size = nr_lines * mask_bytes;
	masks = mmap(NULL, size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (masks == MAP_FAILED) {
		fprintf(stderr, "sis-cost: cannot map the %zu MiB table of lines: %s\n",
			size >> 20, strerror(errno));
		return -1;
	}
	loc_cnts = aligned_alloc(64, MAX_VCPUS * sizeof(*loc_cnts));
	if (!loc_cnts) {
		fprintf(stderr, "sis-cost: out of memory\n");
		return -1;
	}
	memset(loc_cnts, 0, MAX_VCPUS * sizeof(*loc_cnts));
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *map = NULL, *path = NULL, *topo = NULL, *ram = NULL;
	unsigned int i;
	int a;

	for (a = 0; a < argc; a++) {
		if (!strncmp(argv[a], "map=", 4)) {
			map = argv[a] + 4;
		} else if (!strncmp(argv[a], "out=", 4)) {
			path = argv[a] + 4;
		} else if (!strcmp(argv[a], "lines=off")) {
			track_lines = 0;
		} else if (!strcmp(argv[a], "lines=on")) {
			track_lines = 1;
		} else if (!strncmp(argv[a], "locality=", 9)) {
			topo = argv[a] + 9;
		} else if (!strncmp(argv[a], "ram=", 4)) {
			ram = argv[a] + 4;
		} else {
			fprintf(stderr, "sis-cost: unknown argument %s\n", argv[a]);
			return -1;
		}
	}
	if (!map || !path) {
		fprintf(stderr, "sis-cost: needs map=FILE and out=FILE\n");
		return -1;
	}
	if (topo && !ram) {
		fprintf(stderr, "sis-cost: locality=FILE needs ram=MIB, the guest's RAM\n");
		return -1;
	}
	if (ram && !topo) {
		fprintf(stderr, "sis-cost: ram=MIB is the locality mode's: it needs locality=FILE\n");
		return -1;
	}
	if (load_map(map))
		return -1;
	if (topo) {
		if (!info->system_emulation) {
			fprintf(stderr, "sis-cost: the locality mode needs system emulation (physical addresses)\n");
			return -1;
		}
		if (load_topology(topo))
			return -1;
		for (i = 0; i < (unsigned int)info->system.smp_vcpus &&
			    i < MAX_VCPUS; i++) {
			if (vcpu_llc[i] < 0) {
				fprintf(stderr, "sis-cost: topology %s has no line for vCPU %u of the %d QEMU runs\n",
					topo, i, info->system.smp_vcpus);
				return -1;
			}
		}
		if (alloc_lines(ram))
			return -1;
		locality = 1;
	}
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
	if (locality)
		fprintf(out, "# sis-cost locality: %u vCPUs, %u LLCs, %u-byte holder masks for %" PRIu64
			" lines (%" PRIu64 " MiB of RAM, physical addresses below %" PRIu64 " MiB)\n",
			nr_topo_vcpus, nr_llcs, mask_bytes, nr_lines, ram_mib,
			2 * ram_mib + 4096);
	fflush(out);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
