# The verification re-runs the guest picks.  POSIX awk with sqrt(): mawk,
# which scripts/bench.sh copies into the guest (Debian's busybox-static
# awk has no math).  The reports are the host's: scripts/bench-report.sh,
# which runs scripts/benchreport_lib.py.
#
#   awk -f bench-stats.awk [-v mode=outliers] [-v base=tip] META RESULTS.CSV
#
# prints "JOB VARIANT" for each case where VARIANT regressed significantly
# against base, by the rule benchreport_lib.py marks "*" with --sig ci (its
# default): the intervals mean +- z(0.975) stddev of the two variants do
# not overlap (two runs of each), and the benchmark's statistic is worse.
# META is the benchmark registry, bench-registry.sh's output
# (bench|direction|statistic|...).  RESULTS.CSV is
# read by column name: bench, case, variant, round, value and job; a row
# whose kind is "verify" (or, without a kind column, whose round is "v1",
# "v2"...) is a verification re-run and not counted; a value that is not a
# number ("NA") is left out.

BEGIN {
	FS = ","
	if (base == "")
		base = "tip"
	if (mode != "" && mode != "outliers")
		fail("unknown mode '" mode "': only outliers runs here, the reports are bench-report.sh's")
	if (sig != "" && sig != "ci")
		fail("unknown significance test '" sig "': only ci runs here, welch is bench-report.sh's")
	Z = 1.959963984540054	# scipy.stats.norm.ppf(0.975), as benchreport_lib.py
}

function fail(msg) {
	print "bench-stats.awk: " msg > "/dev/stderr"
	bad = 1
	exit 2
}

FNR == NR {
	if ($0 ~ /^#/ || $0 == "")
		next
	split($0, m, "|")
	if (!(m[1] in dir))
		border[++nb] = m[1]
	dir[m[1]] = m[2]
	stat[m[1]] = m[3]
	next
}

FNR == 1 {
	for (i = 1; i <= NF; i++)
		col[$i] = i
	if (!("bench" in col) || !("case" in col) || !("variant" in col) || \
	    !("round" in col) || !("value" in col))
		fail(FILENAME " is not a bench results file")
	next
}

{
	x = $(col["value"])
	if (x !~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/)
		next
	if ("kind" in col ? $(col["kind"]) == "verify" : $(col["round"]) ~ /^v/)
		next
	b = $(col["bench"]); c = $(col["case"]); v = $(col["variant"])
	if (!(b in dir)) {
		dir[b] = "higher"
		stat[b] = "AMean"
		border[++nb] = b
	}
	if (!((b, c) in seenc)) {
		seenc[b, c] = 1
		corder[b, ++nc[b]] = c
	}
	if (!(v in seenv)) {
		seenv[v] = 1
		vorder[++nv] = v
	}
	if ("job" in col && $(col["job"]) != "")
		job[b, c] = $(col["job"])
	k = b SUBSEP c SUBSEP v
	val[k, ++cnt[k]] = x + 0
	sum[k] += x
}

function amean(k) { return sum[k] / cnt[k] }

function stddev(k,   i, m, s) {
	if (cnt[k] < 2)
		return 0
	m = amean(k)
	s = 0
	for (i = 1; i <= cnt[k]; i++)
		s += (val[k, i] - m) ^ 2
	return sqrt(s / (cnt[k] - 1))
}

function hmean(k,   i, s) {
	s = 0
	for (i = 1; i <= cnt[k]; i++) {
		if (val[k, i] <= 0)
			return amean(k)
		s += 1 / val[k, i]
	}
	return cnt[k] / s
}

function median(k,   i, j, t, a, n) {
	n = cnt[k]
	for (i = 1; i <= n; i++)
		a[i] = val[k, i]
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
	if (n % 2)
		return a[(n + 1) / 2]
	return (a[n / 2] + a[n / 2 + 1]) / 2
}

function statistic(b, k) {
	if (stat[b] == "HMean")
		return hmean(k)
	if (stat[b] == "Median")
		return median(k)
	return amean(k)
}

# regressed(b, c, v): 1 when v is significantly worse than base in case c
function regressed(b, c, v,   kb, kv, d, old, new) {
	kb = b SUBSEP c SUBSEP base
	kv = b SUBSEP c SUBSEP v
	if (v == base || cnt[kb] < 2 || cnt[kv] < 2)
		return 0
	d = amean(kv) - amean(kb)
	if (d < 0)
		d = -d
	if (d <= Z * (stddev(kb) + stddev(kv)))
		return 0
	# pct imp, as the report computes it, is negative
	old = statistic(b, kb)
	new = statistic(b, kv)
	if (!old)
		return 0
	return (dir[b] == "lower" ? old - new : new - old) / old < 0
}

END {
	if (bad)
		exit 2
	for (i = 1; i <= nb; i++) {
		b = border[i]
		for (ci = 1; ci <= nc[b]; ci++)
			for (j = 1; j <= nv; j++)
				if (regressed(b, corder[b, ci], vorder[j]) && job[b, corder[b, ci]] != "")
					print job[b, corder[b, ci]], vorder[j]
	}
}
