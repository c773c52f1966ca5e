#!/bin/sh
# The layers of the code point one way: derive the include graph of common/ and daemon/ from the
# sources (a module is name.c with name.h; an include of "x.h" is an edge to the module x) and fail
# when common/ includes anything of daemon/, or when the graph has a cycle. Prints the modules by
# layer (0 includes nothing of the project; each layer only includes layers below it).
# Calls follow the includes: a function defined in one module and declared in the header of another
# is a call that no include shows (an arrow back up), and fails. The files of one component that
# share a private header (name_int.h: workers.c and gangs.c, the four admin files) are one module
# for this, and call each other both ways.
# A file over 800 lines fails; one over 600 must say why at its top (a comment with "600 lines").
#   tests/tools/layering.sh [SRCDIR]        exit 0 clean, 1 with every violation listed
set -u
src=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$src" || exit 2
bad=0
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
}' || bad=1

# The component of each module: the private header it includes (or shares the name of), or
# itself. Then every function a .c file defines outside itself (the name at the start of the line
# after its type) and every header that declares one (a line starting with its type), in one pass.
arrows=$(for f in common/*.[ch] daemon/*.[ch]; do
	m=${f%.*}
	i=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z0-9_]*_int\)\.h".*/\1/p' "$f" | head -1)
	if [ -f "${m}_int.h" ]; then c=${m}_int
	else case $m in *_int) c=$m ;; *) if [ -n "$i" ]; then c=${m%/*}/$i; else c=$m; fi ;; esac
	fi
	echo "$f $c"
done | awk '
NR == FNR { comp[$1] = $2; files[++n] = $1; next }
END {
	for (k = 1; k <= n; k++) {
		f = files[k]; prev = ""
		while ((getline line < f) > 0) {
			if (f ~ /\.c$/ && prev ~ /^[a-z]/ && prev !~ /^(static|typedef|struct [a-z_]+ \{|enum)/ &&
			    line ~ /^[a-z_][a-z0-9_]*\(/) {
				name = line; sub(/\(.*/, "", name); def[name] = f
			}
			if (f ~ /\.h$/ && line ~ /^[a-z]/ && match(line, /[ *\t][a-z_][a-z0-9_]*\(/)) {
				name = substr(line, RSTART + 1, RLENGTH - 2); decl[name] = decl[name] " " f
			}
			prev = line
		}
		close(f)
	}
	bad = 0
	for (name in def) {
		m = split(decl[name], hs, " ")
		for (i = 1; i <= m; i++) if (comp[hs[i]] != comp[def[name]]) {
			printf "layering: %s defines %s(), declared in %s: a caller that includes %s calls %s without including it\n", def[name], name, hs[i], hs[i], def[name]
			bad++
		}
	}
	exit bad > 0
}' - /dev/null)
[ -n "$arrows" ] && echo "$arrows"
arrows=$(printf '%s' "$arrows" | grep -c '^layering:')
[ $arrows -eq 0 ] || bad=1
# Sizes: the largest files, and the limits.
lines=0 files=0
for f in common/*.[ch] daemon/*.[ch]; do
	n=$(wc -l <"$f")
	lines=$((lines + n)) files=$((files + 1))
	if [ "$n" -gt 800 ]; then
		echo "layering: $f has $n lines, over 800: split it by what it does"
		bad=1
	elif [ "$n" -gt 600 ] && ! head -30 "$f" | grep -q '600 lines'; then
		echo "layering: $f has $n lines, over 600, and its top does not say why (a comment with \"600 lines\")"
		bad=1
	fi
done
echo "files: $files, lines: $lines, arrows back up: $arrows; the largest:" $(wc -l common/*.[ch] daemon/*.[ch] | sort -rn | sed -n '2,9p' | awk '{ printf "%s %s,", $2, $1 }')
exit $bad
