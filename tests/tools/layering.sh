#!/bin/sh
# The layers of the code point one way: derive the include graph of common/ and daemon/ from the
# sources (a module is name.c with name.h; an include of "x.h" is an edge to the module x) and fail
# when common/ includes anything of daemon/, or when the graph has a cycle. Prints the modules by
# layer (0 includes nothing of the project; each layer only includes layers below it).
#   tests/tools/layering.sh [SRCDIR]        exit 0 clean, 1 with every violation listed
set -u
src=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$src" || exit 2
for f in common/*.[ch] daemon/*.[ch]; do
	m=${f%.*}
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)\.h".*/\1/p' "$f" | while read -r h; do
		if [ -f "common/$h.h" ]; then
			to=common/$h
		elif [ -f "daemon/$h.h" ]; then
			to=daemon/$h
		else
			continue	# config.h, system headers spelt with quotes
		fi
		[ "$to" = "$m" ] || echo "$m $to $f"
	done
	echo "$m $m -"	# every module is a node, with or without edges
done | sort -u | awk '
{
	node[$1] = 1; node[$2] = 1
	if ($1 != $2) {
		if (!(($1, $2) in edge)) { edge[$1, $2] = $3; out[$1] = out[$1] " " $2 }
		else edge[$1, $2] = edge[$1, $2] "," $3
	}
}
END {
	bad = 0
	for (k in edge) {
		split(k, p, SUBSEP)
		if (p[1] ~ /^common\// && p[2] ~ /^daemon\//) {
			printf "layering: %s includes %s (%s): common/ is pure code and includes nothing of daemon/\n", p[1], p[2], edge[k]
			bad = 1
		}
	}
	# Layers by repeated removal of the modules whose includes are all placed already.
	left = 0
	for (n in node) left++
	for (level = 0; left > 0; level++) {
		found = 0
		for (n in node) {
			if (n in layer) continue
			k = split(out[n], d, " ")
			ok = 1
			for (i = 1; i <= k; i++)
				if (!(d[i] in layer) || layer[d[i]] == level) { ok = 0; break }
			if (ok) { cand[n] = 1; found++ }
		}
		if (found == 0) break
		line = ""
		for (n in cand) { layer[n] = level; line = line " " n; delete cand[n]; left-- }
		printf "layer %d:%s\n", level, line | "sort -t: -k1,1"
	}
	close("sort -t: -k1,1")
	if (left > 0) {
		bad = 1
		# What is left holds every cycle: the strongly connected parts of it (reachability among
		# the modules left), each named with its members.
		for (a in node) if (!(a in layer)) {
			k = split(out[a], d, " ")
			for (i = 1; i <= k; i++) if (!(d[i] in layer)) reach[a, d[i]] = 1
		}
		for (c in node) if (!(c in layer))
			for (a in node) if (!(a in layer) && ((a, c) in reach))
				for (b in node) if (!(b in layer) && ((c, b) in reach)) reach[a, b] = 1
		for (a in node) {
			if (a in layer || a in shown || !((a, a) in reach)) continue
			members = ""
			for (b in node) if (!(b in layer) && ((a, b) in reach) && ((b, a) in reach)) {
				members = members " " b; shown[b] = 1
			}
			printf "layering: include cycle through:%s\n", members | "sort"
		}
		close("sort")
		printf "layering: %d module(s) on or above a cycle, not layered\n", left
	}
	exit bad
}'
