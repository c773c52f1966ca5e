#!/bin/bash
# Keep the stand-in honest: the same requests against the real mooncake_master and the stand-in,
# compared answer by answer (status, content type, header names, the body's shape: JSON keys and
# value types, text lines with digits masked) for every admin and metadata route, unknown routes,
# HEAD and other methods included; then the flags both accept (names, types, defaults), the
# addresses each port binds, the log lines from start to a graceful stop and their order, and the
# exit status. Where the stand-in differs on purpose, it is not compared here (printed at the end).
. "$(dirname "$0")/lib.sh"
need_real_master
SHAPE=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/tools/shape

ADMIN_REQ=(
	"GET /health" "GET /health?x=1" "GET /role" "GET /ha_status" "GET /leader" "GET /metrics"
	"GET /metrics/summary" "GET /kv_events/status" "GET /query_key" "GET /query_key?key=absent"
	"GET /query_key?key=a%20b" "GET /get_all_keys" "GET /get_all_segments" "GET /get_segments_detail"
	"GET /query_segment" "GET /query_segment?segment=s" "GET /batch_query_keys"
	"GET /batch_query_keys?keys=" "GET /batch_query_keys?keys=b,a,b" "GET /batch_query_keys?keys=,"
	"GET /batch_query_keys?keys=a%2Cb" "GET /api/v1/drain_jobs/query"
	"GET /api/v1/drain_jobs/query?job_id=1" "GET /api/v1/segments/status"
	"GET /api/v1/segments/status?segment=s" "GET /api/v1/tenant_quotas"
	"GET /api/v1/tenant_quotas?tenant_id=t" "GET /nosuch" "GET /health/" "GET /HEALTH"
	"GET /api/v1/nosuch" "HEAD /health" "HEAD /nosuch" "POST /health" "PUT /role" "DELETE /leader"
	"OPTIONS /health"
)
META_REQ=(
	"GET /health" "GET /metadata" "GET /metadata?key=absent" "PUT /metadata?key=k1" "GET /metadata?key=k1"
	"PUT /metadata?key=k1" "DELETE /metadata?key=k1" "GET /metadata?key=k1" "DELETE /metadata?key=k1"
	"PUT /metadata?key=rpc_meta/n1" "PUT /metadata?key=rpc_meta/n1" "GET /metadata?key=rpc_meta/n1"
	"GET /nosuch" "HEAD /health" "POST /health"
)

# ask PORT "METHOD PATH" N: the answer's shape (PUT sends a body that differs by N).
ask() {
	local m=${2%% *} p=${2#* } opt
	opt=(-X "$m")
	case $m in
	HEAD) opt=(-I) ;;
	PUT) opt=(-X PUT --data-binary "value-$3") ;;
	esac
	rm -f "$T/a.hdr" "$T/a.body"
	curl -s -m 5 "${opt[@]}" -D "$T/a.hdr" -o "$T/a.body" "http://127.0.0.1:$1$p"
	[ -f "$T/a.hdr" ] || echo "no answer" >"$T/a.hdr"
	[ "$m" = HEAD ] && : >"$T/a.body"
	touch "$T/a.body"
	python3 "$SHAPE" "$T/a.hdr" "$T/a.body"
}

# bound PORT: the address a listening socket on PORT is bound to, the port masked.
bound() { ss -Hltn "sport = :$1" | awk '{print $4}' | sed "s/:$1\$/:PORT/" | sort -u | tr '\n' ' '; }

# transcript NAME BINARY: run it, ask everything, stop it, keep what it said.
transcript() {
	local name=$1 bin=$2 pid t0 t1 i
	new_ports
	"$bin" --rpc_port="$RPC" --rpc_address=127.0.0.1 --enable_http_metadata_server=true \
	    --http_metadata_server_port="$META" --http_metadata_server_host=127.0.0.1 \
	    --metrics_port="$ADMIN" --metrics_host=127.0.0.1 --port="$RPC" >"$T/$name.stdout" 2>"$T/$name.log" &
	pid=$!
	STARTED+=($pid)
	t0=$(now_ms)
	wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:$META/health" || fail "$name: no metadata port"
	wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:$ADMIN/health" || fail "$name: no admin port"
	wait_for 10 accepts "$RPC" || fail "$name: no RPC port"
	t1=$(now_ms)
	echo "   $name: metadata to admin and RPC in $((t1 - t0)) ms (this script's polls)"
	{
		echo "admin $(bound "$ADMIN")"
		echo "rpc $(bound "$RPC")"
		echo "metadata $(bound "$META")"
	} >"$T/$name.bind"
	: >"$T/$name.shapes"
	for i in "${!ADMIN_REQ[@]}"; do
		echo "admin ${ADMIN_REQ[$i]} -> $(ask "$ADMIN" "${ADMIN_REQ[$i]}" "$i")" >>"$T/$name.shapes"
	done
	for i in "${!META_REQ[@]}"; do
		echo "metadata ${META_REQ[$i]} -> $(ask "$META" "${META_REQ[$i]}" "$i")" >>"$T/$name.shapes"
	done
	kill -TERM "$pid"
	wait "$pid"
	echo "exit $?" >"$T/$name.exit"
	echo "$pid" >"$T/$name.pid"
}

# loglines NAME: the glog lines without time, thread id and digits (the metrics reporter's state
# masked too: it logs the state of its moment), first all of them sorted, then, in their order, the
# lines of the main thread. The real master's other threads (task cleanup, metrics reporter) log
# before or after the main thread as they run; the stand-in has one thread, so its order is
# compared on the lines the real master's main thread wrote.
loglines() {
	python3 - "$T/$1.log" "$(cat "$T/$1.pid")" "${2:-}" <<'PY'
import re, sys
path, pid, main_of = sys.argv[1], sys.argv[2], sys.argv[3]
lines = []
for l in open(path, errors="replace"):
    m = re.match(r"^([IWEF])\d{8} [\d:.]+ +(\d+) (.*)$", l.rstrip("\n"))
    text, tid = (m.group(1) + " " + m.group(3), m.group(2)) if m else (l.rstrip("\n"), pid)
    text = re.sub(r"role=[a-z]+, state=[a-z]+, service_ready=[a-z]+", "role=R, state=S, service_ready=B", text)
    lines.append((re.sub(r"[0-9]+", "9", text), tid == pid))
for t in sorted(set(t for t, _ in lines)):
    print("all:", t)
main = set(open(main_of).read().split("\n")) if main_of else None
for t, on_main in lines:
    if (main is None and on_main) or (main is not None and "main: " + t in main):
        print("main:", t)
PY
}

transcript real "$REAL"
transcript standin "$STANDIN"

# compare WHAT FILE: the real master's and the stand-in's FILE line by line.
compare() {
	local d
	d=$(diff "$T/real.$2" "$T/standin.$2") || fail "$1 differ (< real, > stand-in):
$(head -c 3000 <<<"$d")"
}
compare "answers" shapes
pass "$(wc -l <"$T/real.shapes") answers alike: status, content type, header names, body shape (${#ADMIN_REQ[@]} admin, ${#META_REQ[@]} metadata requests)"
compare "bound addresses" bind
pass "each port binds the same address: $(tr '\n' ';' <"$T/real.bind")"
loglines real >"$T/real.lines"
loglines standin "$T/real.lines" >"$T/standin.lines"
compare "log lines" lines
compare "exit status" exit
pass "the same $(grep -c '^all: ' "$T/real.lines") log lines from start to graceful stop, the main thread's $(grep -c '^main: ' "$T/real.lines") in the same order, and $(cat "$T/real.exit")"

# Flags: gflags' --helpfull of master.cpp and utils.cpp (name, type, default) against the stand-in's.
helpflags() {
	"$1" --helpfull 2>/dev/null | python3 -c '
import re, sys
every = sys.argv[1] == "1"
sect, flags = False, []
for line in sys.stdin:
    if line.startswith("  Flags from "):
        sect = every or re.search(r"(master|utils)\.cpp:$", line.rstrip()) is not None
    elif sect:
        flags.append(line) if line.startswith("    -") else flags and flags.__setitem__(-1, flags[-1] + line)
for f in flags:
    f = " ".join(f.split())
    m = re.match(r"-(\w+) .*type: (\w+) default: (.*)$", f)
    if m:
        d = m.group(3)
        print(m.group(1), m.group(2), d[1:-1] if d.startswith("\"") else d)
' "$2" | sort
}
helpflags "$REAL" 0 >"$T/real.flags"
helpflags "$STANDIN" 1 | grep -vE '^(log_dir|logtostderr|minloglevel|v) ' >"$T/standin.flags"
[ "$(wc -l <"$T/real.flags")" -gt 50 ] || fail "could not read the real master's flags: $(head -3 "$T/real.flags")"
compare "flags" flags
for g in log_dir logtostderr minloglevel v; do
	helpflags "$REAL" 1 | grep -q "^$g " || fail "the real master has no glog flag $g"
done
pass "the same $(wc -l <"$T/real.flags") flags with the same types and defaults, and the glog flags the stand-in takes"
# --helpxml, which the sidecar asks: the same names and types (master.cpp and utils.cpp; the
# stand-in's glog flags are in the real one too), the same exit status (1), --version's first word
# after "version".
helpxml() {
	"$1" --helpxml 2>/dev/null | python3 -c '
import re, sys
every = sys.argv[1] == "1"
for m in re.finditer(r"<flag><file>([^<]*)</file><name>([^<]*)</name>.*?<type>([^<]*)</type></flag>", sys.stdin.read()):
    if every or re.search(r"(master|utils)\.cpp$", m.group(1)):
        print(m.group(2), m.group(3))
' "$2" | sort
	echo "exit ${PIPESTATUS[0]}"
}
helpxml "$REAL" 0 >"$T/real.helpxml"
helpxml "$STANDIN" 1 | grep -vE '^(log_dir|logtostderr|minloglevel|v) ' >"$T/standin.helpxml"
[ "$(wc -l <"$T/real.helpxml")" -gt 50 ] || fail "could not read the real master's --helpxml: $(head -3 "$T/real.helpxml")"
compare "--helpxml flags" helpxml
helpxml "$REAL" 1 >"$T/real.allxml"
for g in log_dir logtostderr minloglevel v; do
	grep -q "^$g " "$T/real.allxml" || fail "the real master's --helpxml has no glog flag $g"
done
vr=$("$REAL" --version 2>&1 | head -1 | sed -n 's/.* version \([^ ]*\).*/\1/p')
vs=$("$STANDIN" --version 2>&1 | head -1 | sed -n 's/.* version \([^ ]*\).*/\1/p')
[ -n "$vr" ] && [ "$vr" = "$vs" ] || fail "--version: the real master says \"$vr\", the stand-in \"$vs\""
pass "--helpxml: the same $(($(wc -l <"$T/real.helpxml") - 1)) flags by name and type, and $(tail -1 "$T/real.helpxml"); --version $vr from both"
echo "   not compared, on purpose: the stand-in's fault knobs (MC_STANDIN_*), its HA roles (this build"
echo "   of the real master has no etcd, so --enable_ha aborts it), and stored objects (MC_STANDIN_KEYS:"
echo "   the real master gets objects only from clients of its RPC port)"
finish
