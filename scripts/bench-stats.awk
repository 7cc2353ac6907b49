# Statistics and LKML-style reports for the bench results; POSIX awk, so
# the guest's busybox runs it too (to pick the cases to verify).
#
#   awk -f bench-stats.awk -v mode=MODE [-v sig=ci|welch] [-v nps=N]
#       [-v base=tip] [-v only=BENCH] META RESULTS.CSV
#
# META is bench-meta.txt (bench|direction|statistic|case label|units);
# RESULTS.CSV has the columns
#   bench,case,variant,round,value,probes_per_wakeup,idle_hit_pct,job
# where a round of "v1", "v2"... is a verification re-run.  MODE:
#   norm      normalized blocks: <variant>[pct imp](CV), Units,
#             Interpretation, Statistic, SIS efficiency rows
#   old       "value (x.xx pct)" tables with * and [Verification Run] rows
#   json      one JSON object per bench, case and variant
#   plot      gnuplot data for bench ONLY: case, then value and error bar
#             (normalized statistic and CV) per variant
#   outliers  "JOB VARIANT" for each significant regression against base
#
# pct imp is positive for an improvement: (base - new) / base for
# lower-is-better benchmarks, (new - base) / base otherwise.  A difference
# is significant ("sig=ci", the default, as mmtests compares) when the
# intervals mean +- 1.96 stddev of the two variants do not overlap, or
# ("sig=welch") when Welch's t-test gives p < 0.05; either needs two runs
# of each.  Cells are marked * (significant regression) or ^ (significant
# improvement).

BEGIN {
	if (mode == "")
		mode = "norm"
	if (sig == "")
		sig = "ci"
	if (base == "")
		base = "tip"
	if (mode !~ /^(norm|old|json|plot|outliers)$/) {
		print "bench-stats.awk: unknown mode '" mode "'" > "/dev/stderr"
		bad = 1
		exit 2
	}
	if (sig !~ /^(ci|welch)$/) {
		print "bench-stats.awk: unknown significance test '" sig "'" > "/dev/stderr"
		bad = 1
		exit 2
	}
	Z = 1.959964
	nb = 0
	nv = 0
}

FNR == NR {
	if ($0 ~ /^#/ || $0 == "")
		next
	split($0, m, "|")
	dir[m[1]] = m[2]
	stat[m[1]] = m[3]
	label[m[1]] = m[4]
	units[m[1]] = m[5]
	border[++nmeta] = m[1]
	next
}

FNR == 1 && $0 ~ /^bench,/ { next }

{
	n = split($0, f, ",")
	if (n < 5 || f[5] == "NA" || f[5] == "")
		next
	b = f[1]; c = f[2]; v = f[3]; r = f[4]; x = f[5] + 0
	if (!(b in seenb)) {
		seenb[b] = 1
		bseen[++nbs] = b
	}
	if (!((b, c) in seenc)) {
		seenc[b, c] = 1
		corder[b, ++nc[b]] = c
	}
	if (!(v in seenv)) {
		seenv[v] = 1
		vorder[++nv] = v
	}
	if (n >= 8)
		job[b, c] = f[8]
	k = b SUBSEP c SUBSEP v
	if (r ~ /^v/) {
		vcnt[k]++
		vsum[k] += x
		hasv[b, c] = 1
		next
	}
	cnt[k]++
	val[k, cnt[k]] = x
	sum[k] += x
	if (f[6] != "NA" && f[6] != "") {
		pp[k] += f[6]
		npp[k]++
	}
	if (f[7] != "NA" && f[7] != "") {
		hit[k] += f[7]
		nhit[k]++
	}
}

function amean(k) { return cnt[k] ? sum[k] / cnt[k] : 0 }

function stddev(k,   i, m, s) {
	if (cnt[k] < 2)
		return 0
	m = amean(k)
	s = 0
	for (i = 1; i <= cnt[k]; i++)
		s += (val[k, i] - m) ^ 2
	return sqrt(s / (cnt[k] - 1))
}

function cv(k,   m) {
	m = amean(k)
	return m ? 100 * stddev(k) / m : 0
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

function lower(b) { return dir[b] == "lower" }

function pctimp(b, old, new) {
	if (!old)
		return 0
	return lower(b) ? 100 * (old - new) / old : 100 * (new - old) / old
}

# log gamma: shift up to 7, then Stirling's series
function lgam(x,   s) {
	s = 0
	while (x < 7) {
		s -= log(x)
		x++
	}
	return s + (x - 0.5) * log(x) - x + 0.918938533204673 + \
		1 / (12 * x) - 1 / (360 * x ^ 3) + 1 / (1260 * x ^ 5)
}

# v, or a tiny number in its place when v is about zero
function nonzero(v) {
	return (v < 1e-300 && v > -1e-300) ? 1e-300 : v
}

# one step of the modified Lentz method: fold the coefficient aa into the
# state LC, LD and return the step's factor of the fraction
function lentz(aa) {
	LD = 1 / nonzero(1 + aa * LD)
	LC = nonzero(1 + aa / LC)
	return LD * LC
}

# continued fraction of the incomplete beta function
function betacf(a, b, x,   m, m2, del, h) {
	LC = 1
	LD = 1 / nonzero(1 - (a + b) * x / (a + 1))
	h = LD
	for (m = 1; m <= 300; m++) {
		m2 = 2 * m
		h *= lentz(m * (b - m) * x / ((a + m2 - 1) * (a + m2)))
		del = lentz(-(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)))
		h *= del
		if (del > 1 - 1e-12 && del < 1 + 1e-12)
			break
	}
	return h
}

# regularized incomplete beta I_x(a, b)
function betai(a, b, x,   bt) {
	if (x <= 0)
		return 0
	if (x >= 1)
		return 1
	bt = exp(lgam(a + b) - lgam(a) - lgam(b) + a * log(x) + b * log(1 - x))
	if (x < (a + 1) / (a + b + 2))
		return bt * betacf(a, b, x) / a
	return 1 - bt * betacf(b, a, 1 - x) / b
}

# two-sided p-value of Welch's t-test between k1 and k2
function welch_p(k1, k2,   v1, v2, se, t, df) {
	v1 = stddev(k1) ^ 2 / cnt[k1]
	v2 = stddev(k2) ^ 2 / cnt[k2]
	se = v1 + v2
	if (se == 0)
		return amean(k1) == amean(k2) ? 1 : 0
	t = (amean(k2) - amean(k1)) / sqrt(se)
	df = se ^ 2 / ((v1 ^ 2) / (cnt[k1] - 1) + (v2 ^ 2) / (cnt[k2] - 1))
	return betai(df / 2, 0.5, df / (df + t * t))
}

# significant(k1, k2): 1 if the two variants differ significantly
function significant(k1, k2,   d) {
	if (cnt[k1] < 2 || cnt[k2] < 2)
		return 0
	if (sig == "welch")
		return welch_p(k1, k2) < 0.05
	d = amean(k2) - amean(k1)
	if (d < 0)
		d = -d
	return d > Z * (stddev(k1) + stddev(k2))
}

# marker(b, c, v): "*" for a significant regression against base, "^" for
# a significant improvement, " " otherwise
function marker(b, c, v,   kb, kv, p) {
	kb = b SUBSEP c SUBSEP base
	kv = b SUBSEP c SUBSEP v
	if (v == base || !(kb in cnt) || !(kv in cnt) || !significant(kb, kv))
		return " "
	p = pctimp(b, statistic(b, kb), statistic(b, kv))
	return p < 0 ? "*" : (p > 0 ? "^" : " ")
}

function rep(ch, n,   s) {
	s = ""
	while (n-- > 0)
		s = s ch
	return s
}

function pad(s, w) { return sprintf("%" w "s", s) }

function out(s) {
	sub(/ +$/, "", s)
	print s
}

function lpad(s, w) { return sprintf("%-" w "s", s) }

function fmtv(x) {
	if (x < 1 && x > -1)
		return sprintf("%.4f", x)
	return sprintf("%.2f", x)
}

# the variants with results for bench b, base first
function variants(b,   i, c, n) {
	n = 0
	if (has(b, base))
		vl[++n] = base
	for (i = 1; i <= nv; i++)
		if (vorder[i] != base && has(b, vorder[i]))
			vl[++n] = vorder[i]
	return n
}

function has(b, v,   i) {
	for (i = 1; i <= nc[b]; i++)
		if ((b SUBSEP corder[b, i] SUBSEP v) in cnt)
			return 1
	return 0
}

function casew(b,   i, w) {
	w = length(label[b]) + 1
	for (i = 1; i <= nc[b]; i++)
		if (length(corder[b, i]) + 1 > w)
			w = length(corder[b, i]) + 1
	return w
}

function norm_block(b,   nvl, i, j, c, k, kb, w, cw, s, bs, p, line, any) {
	nvl = variants(b)
	if (!nvl || !has(b, base))
		return
	cw = casew(b) + 1
	print rep("=", 66)
	printf "Test          : %s\n", b
	printf "Units         : %s\n", units[b]
	printf "Interpretation: %s is better\n", lower(b) ? "Lower" : "Higher"
	printf "Statistic     : %s\n", stat[b]
	print rep("=", 66)
	line = lpad(label[b] ":", cw)
	for (j = 1; j <= nvl; j++) {
		colw[j] = length(vl[j] "[pct imp](CV)") + 3
		if (colw[j] < 24)
			colw[j] = 24
		line = line pad(vl[j] "[pct imp](CV)", colw[j] - 1) " "
	}
	out(line)
	for (i = 1; i <= nc[b]; i++) {
		c = corder[b, i]
		kb = b SUBSEP c SUBSEP base
		if (!(kb in cnt))
			continue
		bs = statistic(b, kb)
		line = " " lpad(c, cw - 1)
		for (j = 1; j <= nvl; j++) {
			k = b SUBSEP c SUBSEP vl[j]
			if (!(k in cnt)) {
				line = line pad("-", colw[j] - 1) " "
				continue
			}
			s = statistic(b, k)
			if (vl[j] == base)
				p = lower(b) ? "-0.00" : "0.00"
			else
				p = sprintf("%.2f", pctimp(b, bs, s))
			line = line pad(sprintf("%.2f [%6s](%5.2f)", bs ? s / bs : 0, p, cv(k)), colw[j] - 1) marker(b, c, vl[j])
		}
		out(line)
		if ((b, c) in hasv)
			out(verify_row(b, c, nvl, cw, "norm"))
	}
	# the SIS statistics measured during the same runs
	any = 0
	for (i = 1; i <= nc[b]; i++)
		for (j = 1; j <= nvl; j++)
			if (npp[b SUBSEP corder[b, i] SUBSEP vl[j]])
				any = 1
	if (!any)
		return
	print ""
	print "SIS efficiency (probes per wakeup / idle-hit rate):"
	for (i = 1; i <= nc[b]; i++) {
		c = corder[b, i]
		line = " " lpad(c, cw - 1)
		for (j = 1; j <= nvl; j++) {
			k = b SUBSEP c SUBSEP vl[j]
			if (npp[k])
				s = sprintf("%.2f / %5.1f%%", pp[k] / npp[k], nhit[k] ? hit[k] / nhit[k] : 0)
			else
				s = "-"
			line = line pad(s, colw[j] - 1) " "
		}
		out(line)
	}
}

# the verification means of case c, against the base's verification mean
function verify_row(b, c, nvl, cw, how,   j, k, kb, m, bm, line, cell) {
	kb = b SUBSEP c SUBSEP base
	bm = vcnt[kb] ? vsum[kb] / vcnt[kb] : 0
	line = " " lpad(c, cw - 1)
	if (how == "old")
		line = " " lpad(c ":", cw - 1)
	for (j = 1; j <= nvl; j++) {
		k = b SUBSEP c SUBSEP vl[j]
		if (!vcnt[k] || !bm) {
			line = line pad("-", colw[j] - 1) " "
			continue
		}
		m = vsum[k] / vcnt[k]
		if (how == "old")
			cell = sprintf("%s (%.2f pct)", fmtv(m), vl[j] == base ? 0 : pctimp(b, bm, m))
		else
			cell = sprintf("%.2f [%6s](%5s)", m / bm, vl[j] == base ? (lower(b) ? "-0.00" : "0.00") : sprintf("%.2f", pctimp(b, bm, m)), "-")
		line = line pad(cell, colw[j] - 1) " "
	}
	return line "   [Verification Run]"
}

function old_block(b,   nvl, i, j, c, k, kb, cw, s, bs, line, mk, row) {
	nvl = variants(b)
	if (!nvl || !has(b, base))
		return
	cw = casew(b) + 2
	print "~~~~~~ " b " ~~~~~~"
	print ""
	if (nps != "") {
		print "NPS" nps
		print ""
	}
	line = lpad("Test:", cw)
	for (j = 1; j <= nvl; j++) {
		colw[j] = length(vl[j]) + 3
		if (colw[j] < 24)
			colw[j] = 24
		line = line pad(vl[j], colw[j] - 1) " "
	}
	out(line)
	for (i = 1; i <= nc[b]; i++) {
		c = corder[b, i]
		kb = b SUBSEP c SUBSEP base
		if (!(kb in cnt))
			continue
		bs = statistic(b, kb)
		line = " " lpad(c ":", cw - 1)
		row = ""
		for (j = 1; j <= nvl; j++) {
			k = b SUBSEP c SUBSEP vl[j]
			if (!(k in cnt)) {
				line = line pad("-", colw[j] - 1) " "
				continue
			}
			s = statistic(b, k)
			line = line pad(sprintf("%s (%.2f pct)", fmtv(s), vl[j] == base ? 0 : pctimp(b, bs, s)), colw[j] - 1) " "
			mk = marker(b, c, vl[j])
			if (mk == "*" || (mk == "^" && row == ""))
				row = mk
		}
		out(line (row == "" ? "" : "   " row))
		if ((b, c) in hasv)
			out(verify_row(b, c, nvl, cw, "old"))
	}
	print ""
}

function json_bench(b,   nvl, i, j, c, k, kb, bs, s, first) {
	nvl = variants(b)
	printf "%s", njson++ ? ",\n" : "[\n"
	printf "{\"bench\": \"%s\", \"units\": \"%s\", \"direction\": \"%s\", \"statistic\": \"%s\", \"results\": [", \
		b, units[b], dir[b], stat[b]
	first = 1
	for (i = 1; i <= nc[b]; i++) {
		c = corder[b, i]
		kb = b SUBSEP c SUBSEP base
		bs = (kb in cnt) ? statistic(b, kb) : 0
		for (j = 1; j <= nvl; j++) {
			k = b SUBSEP c SUBSEP vl[j]
			if (!(k in cnt))
				continue
			s = statistic(b, k)
			printf "%s\n  {\"case\": \"%s\", \"variant\": \"%s\", \"runs\": %d, \"value\": %.6g, \"amean\": %.6g, \"stddev\": %.6g, \"cv\": %.4g, \"pct_imp\": %s, \"marker\": \"%s\", \"probes_per_wakeup\": %s, \"idle_hit_pct\": %s}", \
				first ? "" : ",", c, vl[j], cnt[k], s, amean(k), stddev(k), cv(k), \
				bs ? sprintf("%.4f", pctimp(b, bs, s)) : "null", marker(b, c, vl[j]), \
				npp[k] ? sprintf("%.4g", pp[k] / npp[k]) : "null", \
				nhit[k] ? sprintf("%.4g", hit[k] / nhit[k]) : "null"
			first = 0
		}
	}
	printf "\n]}"
}

function plot_bench(b,   nvl, i, j, c, k, kb, bs, line) {
	nvl = variants(b)
	line = "# case"
	for (j = 1; j <= nvl; j++)
		line = line " " vl[j] " err"
	out(line)
	for (i = 1; i <= nc[b]; i++) {
		c = corder[b, i]
		kb = b SUBSEP c SUBSEP base
		if (!(kb in cnt))
			continue
		bs = statistic(b, kb)
		line = c
		for (j = 1; j <= nvl; j++) {
			k = b SUBSEP c SUBSEP vl[j]
			if (k in cnt)
				line = line sprintf(" %.4f %.4f", bs ? statistic(b, k) / bs : 0, \
					bs ? statistic(b, k) / bs * cv(k) / 100 : 0)
			else
				line = line " - -"
		}
		out(line)
	}
}

END {
	if (bad)
		exit 2
	# benchmarks missing from META still get reported, as throughput
	for (i = 1; i <= nbs; i++)
		if (!(bseen[i] in dir)) {
			b = bseen[i]
			dir[b] = "higher"
			stat[b] = "AMean"
			label[b] = "Case"
			units[b] = "Normalized value"
			border[++nmeta] = b
		}
	njson = 0
	for (i = 1; i <= nmeta; i++) {
		b = border[i]
		if (!nc[b] || (only != "" && b != only))
			continue
		if (mode == "norm") {
			norm_block(b)
			print ""
		} else if (mode == "old") {
			old_block(b)
		} else if (mode == "json") {
			json_bench(b)
		} else if (mode == "plot") {
			plot_bench(b)
		} else if (mode == "outliers") {
			for (ci = 1; ci <= nc[b]; ci++)
				for (j = 1; j <= nv; j++)
					if (marker(b, corder[b, ci], vorder[j]) == "*" && \
					    job[b, corder[b, ci]] != "")
						print job[b, corder[b, ci]], vorder[j]
		}
	}
	if (mode == "json")
		print njson ? "\n]" : "[]"
}
