#!/usr/bin/env python3
"""Read the sis-cost plugin's reports and turn them into cost figures.

The plugin (tools/cost-plugin/sis-cost.c) appends, at each marker run and
at exit, the cumulative counts of every kernel/sched function:

    mark SEQ WHY
    f NAME INSNS CALLS XFER UPGR ACC
    [c NAME INSNS]     (of f NAME's INSNS, those run in library helpers)
    total INSNS
    [uncredited INSNS] (helper runs that no scheduler function called)
    [inline INSNS]
    [loc SPACE ACC FILL UPGR CCX QUAD HALF SOCKET]  (locality mode: SPACE
                       user and kernel; transfers by the boundary crossed)
    [loc-skip IO NOADDR BEYOND UNTRACKED]
    [loc-top ADDR]
    end SEQ

A run's figures are the difference between the marks before and after it,
summed into the groups of tools/cost-plugin/groups; the locality mode's
are lines moved between LLCs by boundary, per unit of work (locality).
"""
import argparse
import csv
import fnmatch
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GROUPS = os.path.join(TOP, 'tools', 'cost-plugin', 'groups')
FIELDS = ('insns', 'calls', 'xfer', 'upgr', 'acc')
# the figures one run gets, in CSV column order: instructions per wakeup of
# placement, upkeep, placement + upkeep and all of kernel/sched; those per
# unit of the job's work; line transfers per wakeup (placement + upkeep,
# all of kernel/sched)
COLUMNS = ('place_ipw', 'upkeep_ipw', 'pu_ipw', 'sched_ipw', 'sched_ipu',
           'pu_xpw', 'sched_xpw', 'loc_ccx_pu', 'loc_quad_pu', 'loc_half_pu', 'loc_socket_pu')
# and, from the locality mode's counts, the lines every access moved
# between LLCs per unit of the job's work, by the boundary crossed (NA
# without the mode)
# the locality mode's counts of a space (loc lines), the boundaries in
# order: the CCX's alone (same NPS4 quadrant), a quadrant's (same NPS2
# half), the half's (same socket), the socket's
BOUNDS = ('ccx', 'quad', 'half', 'socket')
LOC_FIELDS = ('acc', 'fill', 'upgr') + BOUNDS
LOC_SPACES = ('user', 'kernel')
LOC_SKIPS = ('io', 'noaddr', 'beyond', 'untracked')
# every placement of a fair task starts here (called through the sched
# class, so never inlined), a wakeup's and those of fork and exec, which
# start in the other two; a context switch here
WAKEUP_FN = 'select_task_rq_fair'
NOT_WAKEUP_FNS = ('wake_up_new_task', 'sched_exec')
SWITCH_FN = '__schedule'


class CostError(Exception):
    pass


def read_groups(path=GROUPS):
    groups = []
    with open(path) as f:
        for line in f:
            words = line.split('#', 1)[0].split()
            if words:
                groups.append((words[0], words[1:]))
    return groups


def group_names(groups):
    """The groups in report order: the file's, then other and sched."""
    return [x for x, _ in groups] + ['other', 'sched']


def group_of(name, groups):
    # a GCC clone (.isra.0, .constprop.0, .part.0, .cold) is its function's
    name = re.sub(r'\.(isra|constprop|part|cold|lto_priv)(\.\d+)?.*$', '', name)
    for g, globs in groups:
        if any(fnmatch.fnmatchcase(name, p) for p in globs):
            return g
    return 'other'


def read_marks(path):
    """The reports of one plugin output file, as a list indexed by SEQ:
    each a dict with 'why', 'fns' {name: [insns, calls, xfer, upgr, acc]},
    'credit' {name: insns run in helpers}, 'total', 'uncredited' and
    'inline' (None where the plugin gives none)."""
    marks = []
    cur = None
    try:
        f = open(path)
    except OSError as e:
        raise CostError(f'cannot read {path}: {e.strerror}')
    with f:
        for n, line in enumerate(f, 1):
            w = line.split()
            if not w or w[0].startswith('#'):
                continue
            try:
                if w[0] == 'mark':
                    if cur is not None or int(w[1]) != len(marks):
                        raise ValueError
                    cur = {'why': w[2] if len(w) > 2 else '', 'fns': {}, 'credit': {},
                           'total': None, 'uncredited': None, 'inline': None}
                elif w[0] == 'f' and cur is not None:
                    v = [int(x) for x in w[2:7]]
                    if len(v) != 5:
                        raise ValueError
                    old = cur['fns'].get(w[1])
                    cur['fns'][w[1]] = [a + b for a, b in zip(old, v)] if old else v
                elif w[0] == 'c' and cur is not None and len(w) == 3:
                    cur['credit'][w[1]] = cur['credit'].get(w[1], 0) + int(w[2])
                elif w[0] in ('total', 'uncredited', 'inline') and cur is not None:
                    cur[w[0]] = int(w[1])
                elif w[0] == 'untracked-vcpus' and cur is not None:
                    cur['untracked'] = int(w[1])
                elif w[0] == 'loc' and cur is not None and len(w) == 9 and w[1] in LOC_SPACES:
                    cur.setdefault('loc', {})[w[1]] = dict(zip(LOC_FIELDS, (int(x) for x in w[2:])))
                elif w[0] == 'loc-skip' and cur is not None and len(w) == 5:
                    cur['loc_skip'] = dict(zip(LOC_SKIPS, (int(x) for x in w[1:])))
                elif w[0] == 'loc-top' and cur is not None and len(w) == 2:
                    cur['loc_top'] = int(w[1], 16)
                elif w[0] == 'end' and cur is not None:
                    if int(w[1]) != len(marks):
                        raise ValueError
                    marks.append(cur)
                    cur = None
                else:
                    raise ValueError
            except (ValueError, IndexError):
                raise CostError(f'{path}:{n}: not a sis-cost report line: {line.strip()}')
    if cur is not None:
        # QEMU killed while it wrote: the reports before it still count
        print(f'sis_cost.py: warning: {path}: the last report is cut short (no end line), '
              f'left out', file=sys.stderr)
    return marks


def delta(marks, a, b):
    """Per-function counts between marks a and b (b later)."""
    if not (0 <= a < b < len(marks)):
        raise CostError(f'no marks {a} and {b} (the output has {len(marks)})')
    fa, fb = marks[a]['fns'], marks[b]['fns']
    d = {}
    for name, vb in fb.items():
        va = fa.get(name, [0] * 5)
        diff = [y - x for x, y in zip(va, vb)]
        if any(x < 0 for x in diff):
            raise CostError(f'counts of {name} fall between marks {a} and {b}')
        if any(diff):
            d[name] = diff
    return d


def locality(marks, a, b):
    """The locality mode's counts between marks a and b: {'user': {field:
    n}, 'kernel': {...}, 'all': {...}, 'skip': {io, noaddr, beyond,
    untracked}}, each field of LOC_FIELDS; 'xfer' is the sum of the
    boundaries'."""
    if not (0 <= a < b < len(marks)):
        raise CostError(f'no marks {a} and {b} (the output has {len(marks)})')
    ma, mb = marks[a], marks[b]
    if 'loc' not in ma or 'loc' not in mb or set(mb['loc']) != set(LOC_SPACES):
        raise CostError(f'marks {a} and {b} have no locality counts (boot.sh --cost FILE --locality)')
    out = {'all': dict.fromkeys(LOC_FIELDS + ('xfer',), 0)}
    for sp in LOC_SPACES:
        d = {k: mb['loc'][sp][k] - ma['loc'].get(sp, {}).get(k, 0) for k in LOC_FIELDS}
        if any(x < 0 for x in d.values()):
            raise CostError(f'locality counts of {sp} fall between marks {a} and {b}')
        d['xfer'] = sum(d[k] for k in BOUNDS)
        out[sp] = d
        for k, x in d.items():
            out['all'][k] += x
    sa, sb = ma.get('loc_skip', {}), mb.get('loc_skip', {})
    out['skip'] = {k: sb.get(k, 0) - sa.get(k, 0) for k in LOC_SKIPS}
    return out


def sums(d, groups):
    """Group totals of a delta: {group: {field: n}}, with 'sched' for all."""
    out = {}
    for name, v in d.items():
        for g in (group_of(name, groups), 'sched'):
            t = out.setdefault(g, dict.fromkeys(FIELDS, 0))
            for k, x in zip(FIELDS, v):
                t[k] += x
    return out


def figures(d, groups, work=None):
    """The COLUMNS of one run, as strings ('NA' where there is no figure)."""
    s = sums(d, groups)

    def get(g, k):
        return s.get(g, {}).get(k, 0)
    wake = wakeups(d)
    if not wake:
        return dict.fromkeys(COLUMNS, 'NA')

    def per(x, n):
        return f'{x / n:.1f}' if n else 'NA'
    return {
        'place_ipw': per(get('placement', 'insns'), wake),
        'upkeep_ipw': per(get('upkeep', 'insns'), wake),
        'pu_ipw': per(get('placement', 'insns') + get('upkeep', 'insns'), wake),
        'sched_ipw': per(get('sched', 'insns'), wake),
        'sched_ipu': per(get('sched', 'insns'), work) if work else 'NA',
        'pu_xpw': f"{(get('placement', 'xfer') + get('upkeep', 'xfer')) / wake:.3f}",
        'sched_xpw': f"{get('sched', 'xfer') / wake:.3f}",
        **{f'loc_{k}_pu': 'NA' for k in BOUNDS},
    }


def wakeups(d):
    """The wakeups among a delta's placements: select_task_rq_fair() calls
    less the fork and exec placements."""
    n = d.get(WAKEUP_FN, [0, 0])[1] - sum(d.get(f, [0, 0])[1] for f in NOT_WAKEUP_FNS)
    return max(n, 0)


def guest_marks(marks):
    return [i for i, m in enumerate(marks) if m['why'] == 'guest']


def cmd_show(args):
    marks = read_marks(args.out)
    g = guest_marks(marks)
    a = args.a if args.a is not None else (g[0] if g else 0)
    b = args.b if args.b is not None else (g[-1] if len(g) > 1 else len(marks) - 1)
    d = delta(marks, a, b)
    groups = read_groups()
    s = sums(d, groups)
    wake = wakeups(d)
    sw = d.get(SWITCH_FN, [0, 0])[1]
    print(f'marks {a}..{b}: {wake} wakeups ({WAKEUP_FN} calls less '
          f'{" and ".join(NOT_WAKEUP_FNS)} calls), {sw} context switches ({SWITCH_FN} calls)')
    print(f"{'group':<10} {'insns':>12} {'per wakeup':>11} {'transfers':>10} "
          f"{'per wakeup':>11} {'upgrades':>9}")
    for name in group_names(groups):
        t = s.get(name)
        if not t:
            continue
        pw = f"{t['insns'] / wake:.1f}" if wake else 'n/a'
        px = f"{t['xfer'] / wake:.3f}" if wake else 'n/a'
        print(f"{name:<10} {t['insns']:>12} {pw:>11} {t['xfer']:>10} {px:>11} {t['upgr']:>9}")
    if args.top:
        print(f'top {args.top} functions by instructions:')
        for name, v in sorted(d.items(), key=lambda kv: -kv[1][0])[:args.top]:
            print(f'  {name:<40} {v[0]:>12} {group_of(name, groups)}')
    ma, mb = marks[a], marks[b]
    cred = sum(mb['credit'].values()) - sum(ma['credit'].values())
    if mb['uncredited'] is not None:
        print(f"library helpers: {cred} instructions credited to their scheduler callers, "
              f"{mb['uncredited'] - (ma['uncredited'] or 0)} run by other code")
    if ma['inline'] is not None and mb['inline'] is not None:
        # the inline adds count the listed functions' own blocks only
        exact = mb['total'] - ma['total'] - cred
        inl = mb['inline'] - ma['inline']
        lost = 100.0 * (exact - inl) / exact if exact else 0.0
        print(f'inline adds counted {inl} of {exact} instructions ({lost:.2f}% lost to races)')
    return 0


def cmd_locality(args):
    """Lines moved between LLCs between two marks, by the boundary crossed,
    for user and kernel addresses, and per unit of work; with --csv, per
    unit of work of every ok row of a score CSV (its cost_from, cost_to and
    work columns), as CSV."""
    marks = read_marks(args.out)
    if args.csv:
        return locality_rows(marks, args.csv)
    g = guest_marks(marks)
    a = args.a if args.a is not None else (g[0] if g else 0)
    b = args.b if args.b is not None else (g[-1] if len(g) > 1 else len(marks) - 1)
    d = locality(marks, a, b)
    print(f'marks {a}..{b}: cache lines moved between LLCs (a model of one infinite cache per '
          f'LLC), by the boundary to the nearest holder')
    print(f"{'space':<8}{'accesses':>14}{'fills':>11}{'upgrades':>11}"
          + ''.join(f'{k:>10}' for k in BOUNDS) + f"{'transfers':>11}")
    for sp in LOC_SPACES + ('all',):
        x = d[sp]
        print(f"{sp:<8}{x['acc']:>14}{x['fill']:>11}{x['upgr']:>11}"
              + ''.join(f'{x[k]:>10}' for k in BOUNDS) + f"{x['xfer']:>11}")
    if args.work:
        unit = args.unit or 'unit of work'
        print(f'per {unit} ({args.work:g}): '
              + ', '.join(f"{k} {d['all'][k] / args.work:.3f}" for k in BOUNDS)
              + f", all {d['all']['xfer'] / args.work:.3f}"
              + f" (user alone: {d['user']['xfer'] / args.work:.3f})")
    s = d['skip']
    print(f"left out: {s['io']} I/O accesses, {s['noaddr']} without a physical address, "
          f"{s['beyond']} beyond the table of lines, {s['untracked']} of vCPUs the topology lacks")
    return 0


def locality_rows(marks, path):
    """Per ok row of a score CSV: the lines moved per unit of work by
    boundary (all addresses), and all of them, between its cost marks."""
    with open(path, newline='') as f:
        rows = list(csv.DictReader(f))
    keys = ('nps', 'variant', 'load', 'load_point', 'round', 'boot', 'work')
    w = csv.writer(sys.stdout, lineterminator='\n')
    w.writerow(keys + tuple(f'{k}_pu' for k in BOUNDS) + ('xfer_pu', 'user_xfer_pu'))
    for r in rows:
        a, b, work = r.get('cost_from', 'NA'), r.get('cost_to', 'NA'), r.get('work', 'NA')
        if r.get('status') != 'ok' or 'NA' in (a, b, work) or '' in (a, b, work) or not float(work):
            continue
        d = locality(marks, int(a), int(b))
        n = float(work)
        w.writerow([r.get(k, 'NA') for k in keys]
                   + [f"{d['all'][k] / n:.4f}" for k in BOUNDS + ('xfer',)]
                   + [f"{d['user']['xfer'] / n:.4f}"])
    return 0


def cmd_attach(args):
    """Add the COLUMNS to every row of a score CSV from its cost_from and
    cost_to marks (NA where a row has none or failed)."""
    groups = read_groups()
    marks = read_marks(args.out) if os.path.exists(args.out) else None
    with open(args.csv, newline='') as f:
        rows = list(csv.DictReader(f))
        fields = list(rows[0].keys()) if rows else []
    for c in COLUMNS:
        if c not in fields:
            fields.append(c)
    for r in rows:
        # rows appended after an earlier attach lack the columns
        for c in COLUMNS:
            if r.get(c) in (None, ''):
                r[c] = 'NA'
        r.pop(None, None)
    first, last = args.rows or (1, None)
    for i, r in enumerate(rows, 1):
        def hit(k, v):
            return fnmatch.fnmatchcase(r.get(k) or '', v)
        if not all(hit(k, v) for k, v in args.only) or any(hit(k, v) for k, v in args.other):
            continue
        if i < first or (last is not None and i > last):
            continue
        fig = dict.fromkeys(COLUMNS, 'NA')
        a, b = r.get('cost_from', 'NA'), r.get('cost_to', 'NA')
        if marks is not None and r.get('status') == 'ok' and a not in ('', 'NA'):
            work = r.get('work', 'NA')
            work = float(work) if work not in ('', 'NA') else None
            fig = figures(delta(marks, int(a), int(b)), groups, work)
            if work and 'loc' in marks[int(a)] and 'loc' in marks[int(b)]:
                d = locality(marks, int(a), int(b))
                fig.update({f'loc_{k}_pu': f"{d['all'][k] / work:.4f}" for k in BOUNDS})
        for c in COLUMNS:
            r[c] = fig[c]
    tmp = args.csv + '.tmp'
    with open(tmp, 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator='\n')
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, args.csv)
    return 0


def cmd_groups(args):
    """Per ok row of a score CSV, each code path's instructions, line
    transfers and upgrades per wakeup, from the plugin's output of the
    row's boot next to the CSV (cost-npsN-bootB.out), as CSV."""
    groups = read_groups()
    names = group_names(groups)
    here = os.path.dirname(os.path.abspath(args.csv))
    with open(args.csv, newline='') as f:
        rows = list(csv.DictReader(f))
    w = csv.writer(sys.stdout, lineterminator='\n')
    w.writerow(['nps', 'variant', 'load', 'load_point', 'round', 'boot', 'wakeups',
                'group', 'insns_pw', 'xfer_pw', 'upgr_pw'])
    cache = {}
    for r in rows:
        a, b = r.get('cost_from', 'NA'), r.get('cost_to', 'NA')
        if r.get('status') != 'ok' or a in ('', 'NA') or b in ('', 'NA'):
            continue
        out = os.path.join(here, f"cost-nps{r['nps']}-boot{r['boot']}.out")
        if out not in cache:
            if not os.path.exists(out):
                raise CostError(f'no plugin output {out} for the rows of NPS{r["nps"]} boot {r["boot"]}')
            cache[out] = read_marks(out)
        d = delta(cache[out], int(a), int(b))
        wake = wakeups(d)
        if not wake:
            continue
        s = sums(d, groups)
        for g in names:
            t = s.get(g, dict.fromkeys(FIELDS, 0))
            w.writerow([r['nps'], r['variant'], r['load'], r['load_point'], r['round'], r['boot'],
                        wake, g, f"{t['insns'] / wake:.1f}", f"{t['xfer'] / wake:.3f}",
                        f"{t['upgr'] / wake:.3f}"])
    return 0


def read_jobs(log):
    """The ok runs of guest/cost-jobs.sh in a console log: a list of
    (round, job, work, from, to)."""
    runs = []
    with open(log, errors='replace') as f:
        for line in f:
            w = line.replace('\r', '').split()
            if len(w) >= 8 and w[0] == 'cost-job' and w[7] == 'ok':
                work = None if w[4] == 'NA' else float(w[4])
                runs.append((int(w[1]), f'{w[2]}:{w[3]}', work, int(w[5]), int(w[6])))
    return runs


def mean_sd(x):
    if not x:
        return None, None
    m = sum(x) / len(x)
    sd = (sum((v - m) ** 2 for v in x) / (len(x) - 1)) ** 0.5 if len(x) > 1 else 0.0
    return m, sd


def fmt(x, d=1):
    m, sd = mean_sd(x)
    return 'n/a' if m is None else f'{m:.{d}f} ± {sd:.{d}f}'


def per_run(log, out):
    """Per job: a list of runs, each (wakeups, switches, work, delta)."""
    marks = read_marks(out)
    jobs = {}
    for _, job, work, a, b in read_jobs(log):
        d = delta(marks, a, b)
        jobs.setdefault(job, []).append((wakeups(d),
                                         d.get(SWITCH_FN, [0, 0])[1], work, d))
    return jobs


def read_known(path):
    """GROUP -> why, from a file of "GROUP WHY..." lines."""
    known = {}
    if path:
        with open(path) as f:
            for line in f:
                w = line.split('#', 1)[0].split(None, 1)
                if w:
                    known[w[0]] = w[1].strip() if len(w) > 1 else ''
    return known


def beyond(xa, xb, spread, floor, rel=0.0):
    """Whether two samples' means differ by more than spread times the
    larger sd, by floor or more and by rel per cent of the first or more."""
    (ma, sa), (mb, sb) = mean_sd(xa), mean_sd(xb)
    if ma is None or mb is None:
        return False
    d = abs(mb - ma)
    return d > spread * max(sa, sb) and d >= floor and d >= abs(ma) * rel / 100


def cmd_compare(args):
    """Two kernels' costs, job by job: kernel/sched instructions per wakeup
    and per context switch, the instructions per wakeup of each code path
    (group) with a verdict, and in a path that differs the functions that
    do.  A path differs when its mean per wakeup moves by more than SPREAD
    times the larger run-to-run sd and by FLOOR instructions or more; a
    function is named on the same rule.  With --strict, exits 1 when a path
    differs that --known does not list."""
    a, b = per_run(args.log_a, args.out_a), per_run(args.log_b, args.out_b)
    groups = read_groups()
    known = read_known(args.known)
    unknown = 0
    print(f'A: {args.name_a}, B: {args.name_b}; mean ± sd over the runs, instructions per '
          f'wakeup; a path differs by more than {args.spread:g} times the larger run-to-run '
          f'sd, by {args.floor:g} or more and by {args.rel_floor:g}% of A or more')
    names_of = [g for g, _ in groups] + ['other']
    for job in sorted(set(a) | set(b)):
        ra, rb = a.get(job, []), b.get(job, [])
        if not ra or not rb:
            print(f'{job}: FAIL runs in only one kernel (A {len(ra)}, B {len(rb)})')
            unknown += 1
            continue

        def per(runs, fn, key=0):
            return [sum(v[0] for n, v in r[3].items() if fn(n)) / r[key]
                    for r in runs if r[key]]
        print(f'{job}: runs A {len(ra)}, B {len(rb)}')
        for label, key in (('wakeup', 0), ('context switch', 1)):
            print(f'  kernel/sched per {label}: A {fmt(per(ra, lambda n: True, key))}, '
                  f'B {fmt(per(rb, lambda n: True, key))}')
        names = set()
        for r in ra + rb:
            names.update(r[3])
        for g in names_of:
            sel = lambda n, g=g: group_of(n, groups) == g
            xa, xb = per(ra, sel), per(rb, sel)
            if not beyond(xa, xb, args.spread, args.floor, args.rel_floor):
                print(f'  {g:<9} A {fmt(xa)}, B {fmt(xb)}: same')
                continue
            why = known.get(g)
            verdict = 'differs, known: ' + why if why is not None else 'FAIL differs'
            unknown += why is None
            print(f'  {g:<9} A {fmt(xa)}, B {fmt(xb)}, B-A {mean_sd(xb)[0] - mean_sd(xa)[0]:+.1f}: '
                  f'{verdict}')
            for n in sorted(x for x in names if sel(x)):
                fa, fb = per(ra, lambda x, n=n: x == n), per(rb, lambda x, n=n: x == n)
                if beyond(fa, fb, args.spread, args.floor):
                    print(f'    {n}: A {fmt(fa)}, B {fmt(fb)}')
    print(f'{unknown} unexplained differences')
    return 1 if unknown and args.strict else 0


def row_range(text):
    """ "A-B" or "A-": data rows A to B (or to the last), from 1."""
    a, dash, b = text.partition('-')
    if not dash or not a.isdigit() or int(a) < 1 or (b and (not b.isdigit() or int(b) < int(a))):
        raise argparse.ArgumentTypeError(f'not FIRST-[LAST] (rows from 1): {text}')
    return int(a), (int(b) if b else None)


def column_value(text):
    col, eq, val = text.partition('=')
    if not col or not eq:
        raise argparse.ArgumentTypeError(f'not COL=VAL: {text}')
    return col, val


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('show', help='group totals between two marks')
    p.add_argument('out', help='the plugin output file')
    p.add_argument('a', nargs='?', type=int, help='first mark (default: the first guest mark)')
    p.add_argument('b', nargs='?', type=int, help='last mark (default: the last guest mark)')
    p.add_argument('--top', type=int, default=0, help='also list the N costliest functions')
    p.set_defaults(fn=cmd_show)
    p = sub.add_parser('locality', help='lines moved between LLCs by boundary between two marks '
                       '(the locality mode), per unit of work')
    p.add_argument('out', help='the plugin output file (boot.sh --cost FILE --locality)')
    p.add_argument('a', nargs='?', type=int, help='first mark (default: the first guest mark)')
    p.add_argument('b', nargs='?', type=int, help='last mark (default: the last guest mark)')
    p.add_argument('--work', type=float, help='units of work done between the marks')
    p.add_argument('--unit', help='what a unit of work is, for the output (message, request...)')
    p.add_argument('--csv', help="a score CSV: per unit of work of each ok row, from its cost_from, "
                   "cost_to and work columns")
    p.set_defaults(fn=cmd_locality)
    p = sub.add_parser('attach', help="add the cost columns to a score CSV's rows")
    p.add_argument('--only', type=column_value, action='append', default=[], metavar='COL=VAL',
                   help='only the rows whose COL matches the glob VAL (repeatable: all must hold)')
    p.add_argument('--except', dest='other', type=column_value, action='append', default=[],
                   metavar='COL=VAL', help='not the rows whose COL matches the glob VAL')
    p.add_argument('--rows', type=row_range, metavar='FIRST-[LAST]',
                   help='only the data rows FIRST to LAST (to the end without LAST), from 1: '
                   'those one boot appended')
    p.add_argument('csv')
    p.add_argument('out', help="the plugin output file of the boot that wrote those rows "
                   "(missing: the rows' cost figures are NA)")
    p.set_defaults(fn=cmd_attach)
    p = sub.add_parser('groups', help="each code path's cost per wakeup, per ok row of a score CSV "
                       "(the plugin's outputs beside it), as CSV")
    p.add_argument('csv')
    p.set_defaults(fn=cmd_groups)
    p = sub.add_parser('compare', help="two kernels' costs, job by job (guest/cost-jobs.sh runs)")
    p.add_argument('log_a', help="kernel A's console log (the cost-job lines)")
    p.add_argument('out_a', help="kernel A's plugin output")
    p.add_argument('log_b')
    p.add_argument('out_b')
    p.add_argument('--names', default='A,B', help='the kernels\' names, "A,B"')
    p.add_argument('--spread', type=float, default=2.0,
                   help='how many times the larger run-to-run sd a difference must pass (default 2)')
    p.add_argument('--floor', type=float, default=10.0,
                   help='and how many instructions per wakeup at least (default 10)')
    p.add_argument('--rel-floor', type=float, default=0.0,
                   help="and by how many per cent of A's mean at least, for a path (default 0)")
    p.add_argument('--known', help='a file of "GROUP WHY" lines: differences explained')
    p.add_argument('--strict', action='store_true',
                   help='exit 1 when a path differs that --known does not list')
    p.set_defaults(fn=cmd_compare)
    args = ap.parse_args(argv)
    if args.cmd == 'compare':
        args.name_a, _, args.name_b = args.names.partition(',')
    try:
        return args.fn(args)
    except CostError as e:
        print(f'sis_cost.py: error: {e}', file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main())
