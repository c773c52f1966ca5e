#!/bin/bash
# admin.tls: the admin port speaks HTTPS with the configured certificate (curl with the CA gets
# through, without it does not); a key that does not match the certificate is a -n error naming
# the keys and GnuTLS's reason; with client_ca_file a client without a certificate the CA signed is
# refused and one with it answered; after SIGHUP a renewed certificate is served without a restart.
. "$(dirname "$0")/lib.sh"
command -v openssl >/dev/null || fail "openssl is not installed (scripts/deps.sh installs it)"
cd "$T" || exit 1
# a CA, a server certificate for 127.0.0.1 (serial 1001), a client certificate, a stranger's key
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=test-ca \
    -keyout ca.key -out ca.pem 2>/dev/null || fail "openssl: CA"
cert() {	# cert NAME SERIAL SUBJECT [EXT]
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "$3" -keyout "$1.key" -out "$1.csr" 2>/dev/null &&
	    openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -set_serial "$2" -days 2 ${4:+-extfile <(printf '%s' "$4")} \
	    -out "$1.pem" 2>/dev/null || fail "openssl: $1"
}
cert server 1001 /CN=127.0.0.1 "subjectAltName=IP:127.0.0.1"
cert client 2001 /CN=prometheus
openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:P-256 -out stranger.key 2>/dev/null || fail "openssl: key"
cp server.pem live.pem; cp server.key live.key
new_ports
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/token"
TLS='"admin": { "listen": "127.0.0.1:@SIDE@", "auth": { "bearer_token_file": "'"$T"'/token" }, "tls": { "cert_file": "'"$T"'/live.pem", "key_file": "'"$T"'/@KEY@" } }'
write_config bad '"address": "127.0.0.1"' "${TLS/@KEY@/stranger.key}"
OUT=$("$SIDECAR" -c "$T/bad.json" -n 2>&1); RC=$?
[ "$RC" -eq 78 ] && grep -q "admin.tls: cert_file $T/live.pem and key_file $T/stranger.key: " <<<"$OUT" ||
    fail "-n with a key that is not the certificate's: $RC $OUT"
pass "-n: a key that does not match the certificate is an error naming both files: $(grep -o 'key_file [^:]*: .*' <<<"$OUT" | sed 's/^[^:]*: //')"

write_config s '"address": "127.0.0.1"' "${TLS/@KEY@/live.key}"
start_sidecar s
up() { [ "$(curl -s --cacert "$T/ca.pem" "https://127.0.0.1:$SIDE/livez")" = ok ]; }
wait_for 10 up || fail "no HTTPS answer: $(tail -5 "$SC_OUT")"
curl -s "https://127.0.0.1:$SIDE/livez" >/dev/null; RC=$?
[ "$RC" -eq 60 ] || fail "curl without the CA: exit $RC, want 60 (certificate not trusted)"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SIDE/livez")" != 200 ] || fail "plain HTTP answered 200"
pass "HTTPS: curl --cacert gets /livez; without the CA curl refuses the certificate (exit 60); plain HTTP is not answered"

serial() { openssl s_client -connect "127.0.0.1:$SIDE" -CAfile "$T/ca.pem" </dev/null 2>/dev/null |
    openssl x509 -noout -serial 2>/dev/null; }
[ "$(serial)" = serial=03E9 ] || fail "served serial: $(serial)"
cert renewed 1002 /CN=127.0.0.1 "subjectAltName=IP:127.0.0.1"
cp renewed.pem live.pem; cp renewed.key live.key
kill -HUP "$SC_PID"
renewed() { [ "$(serial)" = serial=03EA ]; }
wait_for 10 renewed || fail "after SIGHUP still $(serial): $(grep admin "$SC_OUT" | tail -3)"
up || fail "not answering after the reload"
cp stranger.key live.key
kill -HUP "$SC_PID"
wait_for 10 grep_q "$SC_OUT" "still serving the certificate read before" || fail "a bad key at SIGHUP: $(tail -3 "$SC_OUT")"
renewed && up || fail "a bad key at SIGHUP stopped the good certificate"
pass "SIGHUP: the renewed certificate (serial 1001 -> 1002) is served without a restart; a bad one is refused and the good one kept"

# A follower over https with the token mirrors the head; with another CA it refuses the head's
# certificate and writes nothing; --status speaks https with --cacert.
HEAD_SIDE=$SIDE HEAD_PID=$SC_PID
fol() {	# fol NAME CA
	follower_config "$1" "$HEAD_SIDE"
	python3 - "$T/$1.json" "$T/token" "$2" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["master"]["url"] = c["master"]["url"].replace("http://", "https://")
c["master"]["ca_file"] = sys.argv[3]
c["admin"]["auth"] = {"bearer_token_file": sys.argv[2]}
json.dump(c, open(sys.argv[1], "w"))
PY
	start_sidecar "$1"
}
fol f "$T/ca.pem"
wait_for 10 grep_q "$T/f/endpoints.json" '"ready": true' || fail "the follower did not mirror the head over https: $(tail -3 "$SC_OUT")"
F_PID=$SC_PID
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=other-ca -keyout other.key -out other.pem 2>/dev/null
fol g "$T/other.pem"
wait_for 10 grep_q "$SC_OUT" "TLS with 127.0.0.1:$HEAD_SIDE: " || fail "a follower with another CA: $(tail -3 "$SC_OUT")"
[ -e "$T/g/endpoints.json" ] && grep -q '"ready": true' "$T/g/endpoints.json" && fail "a follower that cannot trust the head wrote ready files"
REASON=$(grep -m1 -o "TLS with 127.0.0.1:$HEAD_SIDE: .*" "$SC_OUT" | head -c 160)
kill -TERM "$SC_PID" "$F_PID"; wait "$SC_PID" "$F_PID"
SIDECARS=("$HEAD_PID")
"$SIDECAR" --status "https://127.0.0.1:$HEAD_SIDE" --cacert "$T/ca.pem" --token-file "$T/token" >"$T/st.out" 2>&1 ||
    fail "--status over https: $(cat "$T/st.out")"
grep -q 'master: ready' "$T/st.out" || fail "--status: $(cat "$T/st.out")"
"$SIDECAR" --status "https://127.0.0.1:$HEAD_SIDE" --cacert "$T/other.pem" --token-file "$T/token" >"$T/st.out" 2>&1 &&
    fail "--status trusted a certificate of another CA"
pass "a follower over https with the token mirrors the head; one trusting another CA refuses it ($REASON) and writes nothing; --status https:// --cacert"
SC_PID=$HEAD_PID
kill -TERM "$SC_PID"; wait "$SC_PID"; rc=$?
[ $rc -eq 0 ] || fail "exit $rc"
SIDECARS=()

new_ports
cp server.pem live.pem; cp server.key live.key
MTLS='"admin": { "listen": "127.0.0.1:@SIDE@", "tls": { "cert_file": "'"$T"'/live.pem", "key_file": "'"$T"'/live.key", "client_ca_file": "'"$T"'/ca.pem" } }'
write_config m '"address": "127.0.0.1"' "$MTLS"
start_sidecar m
mup() { [ "$(curl -s --cacert "$T/ca.pem" --cert "$T/client.pem" --key "$T/client.key" "https://127.0.0.1:$SIDE/livez")" = ok ]; }
wait_for 10 mup || fail "mutual TLS with the client certificate: no answer: $(tail -5 "$SC_OUT")"
CODE=$(curl -s --cacert "$T/ca.pem" -o "$T/refused" -w '%{http_code}' "https://127.0.0.1:$SIDE/livez")
[ "$CODE" != 200 ] || fail "mutual TLS: answered 200 without a client certificate"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=self -keyout self.key -out self.pem 2>/dev/null
CODE2=$(curl -s --cacert "$T/ca.pem" --cert self.pem --key self.key -o /dev/null -w '%{http_code}' "https://127.0.0.1:$SIDE/status")
[ "$CODE2" != 200 ] || fail "mutual TLS: answered 200 to a certificate the CA did not sign"
pass "mutual TLS: with the client certificate 200; without one $CODE ($(head -c 120 "$T/refused")); a self-signed one $CODE2"
finish
