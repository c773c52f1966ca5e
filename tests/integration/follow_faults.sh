#!/bin/bash
# A follower against a head that misbehaves (a fake head that answers at once, ignoring ?since=):
# it backs off on every answer that is not a fresh, valid, written one (503, 500, an unusable body,
# no change, a local write that fails), logs each problem once, and never writes what does not
# pass the head's own schema or a generation that goes back for the same head run.
. "$(dirname "$0")/lib.sh"
FAKE_HEAD=$top_srcdir/tests/tools/fake-head
[ -n "${top_srcdir:-}" ] || FAKE_HEAD=$(cd "$(dirname "$0")/../tools" && pwd)/fake-head
H=$T/head
mkdir -p "$H"
body() {	# body GEN READY [INSTANCE]
	cat >"$H/body" <<JSON
{ "generation": $1, "ready": $2, "job_id": "test", "instance": "${3:-aaaa}",
  "master": { "node": "head", "address": "127.0.0.1", "rpc": "127.0.0.1:50051",
    "metadata_url": "http://127.0.0.1:8080/metadata", "admin_url": "http://127.0.0.1:9003",
    "pid": 4242, "restarts": 0, "ready_at": null },
  "sidecar": { "admin_url": "http://127.0.0.1:1" } }
JSON
}
requests() { wc -l <"$H/requests" 2>/dev/null || echo 0; }
# rate WHAT: the requests the follower makes in a 3 s measurement window
rate() { : >"$H/requests"; sleep 3; requests; }
disk_gen() { "$TESTKIT" json-get "$T/fol/endpoints.json" generation 2>/dev/null; }

HP=$("$TESTKIT" freeports 1)
body 5 true
"$FAKE_HEAD" "$HP" "$H" &
STARTED+=($!)
wait_for 5 curl -sf -o /dev/null "http://127.0.0.1:$HP/endpoints" || fail "fake head did not start"
new_ports
write_config fol '"enabled": false, "node": "head", "url": "http://127.0.0.1:'"$HP"'"'
sed -i 's/"nodes": "localhost"/"nodes": "localhost,head"/' "$T/fol.json"
start_sidecar fol
wait_for 10 is 5 disk_gen || fail "generation 5 not mirrored"
N=$(rate)
[ "$N" -le 15 ] || fail "$N requests in 3 s to a head that ignores ?since="
grep -q "ignores ?since=" "$SC_OUT" || fail "the ignored ?since= was not logged"
pass "a head that ignores ?since=: $N requests in 3 s (backoff), logged $(count "$SC_OUT" 'ignores ?since=') time(s)"

for bad in '"ready": "true"' '"generation": -1' '"generation": 1099511627776' 'bad rpc' 'not json'; do
	body 5 true
	case $bad in
	'not json') echo '{"generation": 6, ' >"$H/body" ;;
	'bad rpc') sed -i 's/"generation": 5,/"generation": 6,/; s/"127.0.0.1:50051"/"not a host port"/' "$H/body" ;;
	*) sed -i "s/\"generation\": 5, \"ready\": true/\"generation\": 6, \"ready\": true, $bad/" "$H/body" ;;
	esac
	: >"$H/requests"
	wait_for 15 is 2 requests || fail "no poll with the bad body"
	[ "$(disk_gen)" = 5 ] || fail "wrote a bad answer ($bad): generation $(disk_gen)"
done
# four reasons (both generations out of range give the same one, logged once when it appears
# unless the backoff reaches its cap meanwhile), each logged, and not at every poll
N=$(count "$SC_OUT" 'unusable answer, not written')
[ "$N" -ge 4 ] && [ "$N" -le 12 ] || fail "unusable answers logged $N times"
grep -q 'unusable answer, not written: ready: not a boolean' "$SC_OUT" || fail "no reason for the string ready"
grep -q 'generation: not an integer from 1 to 2147483647' "$SC_OUT" || fail "no reason for the generation"
pass "a string ready, generation -1 and 2^40, a bad rpc, broken JSON: none written, each logged with its reason"

body 3 true aaaa
wait_for 15 grep_q "$SC_OUT" 'generation 3 goes back from 5 for the same head' || fail "going back not logged"
[ "$(disk_gen)" = 5 ] || fail "generation went back to $(disk_gen) for the same head"
body 3 true bbbb
wait_for 15 is 3 disk_gen || fail "a new head run's generation 3 was not accepted"
pass "generation 3 after 5: refused for the same head run, accepted from a new one"

echo 503 >"$H/status"
N=$(rate)
[ "$N" -le 15 ] || fail "$N requests in 3 s to a head answering 503"
echo 500 >"$H/status"
N5=$(rate)
[ "$N5" -le 15 ] || fail "$N5 requests in 3 s to a head answering 500"
pass "503: $N requests in 3 s, 500: $N5 (backoff)"

# The follower's own run_dir cannot be written: back off, do not hammer the head.
rm -f "$T/fol/mooncake.env"; mkdir "$T/fol/mooncake.env"
body 9 true bbbb
rm -f "$H/status"
wait_for 10 grep_q "$SC_OUT" "cannot write the files here" || fail "the local write failure was not reported"
N=$(rate)
[ "$N" -le 15 ] || fail "$N requests in 3 s while the local write fails"
L=$(count "$SC_OUT" 'cannot write the files here')
[ "$L" -le 4 ] || fail "the local write failure logged $L times"
rmdir "$T/fol/mooncake.env"
wait_for 15 is true "$TESTKIT" json-get "$T/fol/endpoints.json" ready || fail "not written after the obstacle went"
[ "$(disk_gen)" = 9 ] || fail "generation $(disk_gen)"
pass "a run_dir that cannot be written: $N requests in 3 s, logged $L time(s); written once it can be"

# The same head as an event stream that ends at once: the same backoff, and a bad event is not written.
touch "$H/stream"
: >"$H/requests"
wait_for 10 grep_q "$SC_OUT" "ended its event stream at once without a change" || fail "a stream ending at once was not logged"
N=$(rate)
[ "$N" -le 15 ] || fail "$N requests in 3 s to a head whose stream ends at once"
sed -i 's/"generation": 9,/"generation": 10,/; s/"127.0.0.1:50051"/"not a host port"/' "$H/body"
: >"$H/requests"
wait_for 15 is 2 requests || fail "no stream with the bad event"
[ "$(disk_gen)" = 9 ] || fail "wrote a bad event: generation $(disk_gen)"
grep -q 'unusable answer, not written: master.rpc' "$SC_OUT" || fail "the bad event's reason: $(grep follow: "$SC_OUT" | tail -1)"
body 11 true bbbb
wait_for 15 is 11 disk_gen || fail "generation 11 not mirrored from a stream"
rm -f "$H/stream"
pass "a head whose event stream ends at once: $N requests in 3 s (backoff); a bad event not written; a good one is"

# A head of another job (job.id differs): nothing written, and the log says why.
sed -i 's/"job_id": "test"/"job_id": "other"/' "$H/body"
follower_config oj "$HP"
"$SIDECAR" -c "$T/oj.json" >"$T/sidecar-oj.out" 2>&1 &
STARTED+=($!)
SIDECARS+=($!)
wait_for 10 grep_q "$T/sidecar-oj.out" 'it serves job "other" and this node is of job "test" (job.id): not written' ||
    fail "another job's head: $(grep follow: "$T/sidecar-oj.out" | tail -2)"
[ ! -e "$T/oj/endpoints.json" ] && [ ! -e "$T/oj/mooncake.env" ] || fail "files written from another job's head"
pass "a head of another job: nothing written, the follower says which job the head serves"

# A head that is not a sidecar (a plain web server): nothing written, the answer named.
mkdir -p "$T/www"
WP=$("$TESTKIT" freeports 1)
/usr/bin/python3 -m http.server "$WP" --bind 127.0.0.1 --directory "$T/www" >/dev/null 2>&1 &
STARTED+=($!)
wait_for 10 accepts "$WP" || fail "the web server did not start"
follower_config ns "$WP"
"$SIDECAR" -c "$T/ns.json" >"$T/sidecar-ns.out" 2>&1 &
STARTED+=($!)
SIDECARS+=($!)
wait_for 10 grep_q "$T/sidecar-ns.out" "waiting for the head sidecar at http://127.0.0.1:$WP: /endpoints answered HTTP 404" ||
    fail "a head that is not a sidecar: $(grep follow: "$T/sidecar-ns.out" | tail -2)"
[ ! -e "$T/ns/endpoints.json" ] || fail "files written from a web server"
pass "a head that is not a sidecar (a web server answering 404): nothing written, the answer named"
finish
