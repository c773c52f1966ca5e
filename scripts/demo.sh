#!/bin/bash
# Install what is missing, build, and run the sidecar in the foreground on loopback with
# conf/demo.json. Uses mooncake_master from PATH when there is one, else the one scripts/real-master.sh
# built into its cache, else the stand-in. With the real master and Mooncake's store client library
# (built with it), the two workers are store clients that put and get a value every second, and
# their lines are shown here. Ctrl-C stops it cleanly (the workers, then the master, get SIGTERM).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash scripts/deps.sh
build=${DEMO_BUILD_DIR:-$top/build-demo}
echo "building in $build ..."
bash scripts/build.sh "$build"
if command -v mooncake_master >/dev/null 2>&1; then
	MOONCAKE_MASTER_BIN=$(command -v mooncake_master)
	echo "using the real mooncake_master: $MOONCAKE_MASTER_BIN"
elif MOONCAKE_MASTER_BIN=$(bash scripts/real-master.sh --cached 2>/dev/null | tail -1) && [ -n "$MOONCAKE_MASTER_BIN" ]; then
	echo "using the real mooncake_master: $MOONCAKE_MASTER_BIN"
else
	MOONCAKE_MASTER_BIN=$build/tests/standin/mooncake_master
	echo "mooncake_master is not on PATH: using the stand-in $MOONCAKE_MASTER_BIN"
fi
export MOONCAKE_MASTER_BIN
export DEMO_RUN_DIR=${DEMO_RUN_DIR:-/tmp/mooncake-sidecar/demo}
# Two fake GPU workers (they record their argv and environment, then wait): one GPU each.
export FAKE_WORKER_BIN=$top/tests/tools/fake-worker FAKE_WORKER_DIR=$DEMO_RUN_DIR
# With the real master, the workers are Mooncake's own store client when its library is there.
client=
if [ "$MOONCAKE_MASTER_BIN" != "$build/tests/standin/mooncake_master" ]; then
	client=$(MCS_CLIENT_CACHED=1 bash scripts/store-client.sh "$build/tests/tools/client" 2>/dev/null | tail -1) || client=
fi
if [ -n "$client" ]; then
	export FAKE_WORKER_CLIENT="env $client"
	echo "the two workers are Mooncake's store client: a put and a get every second each, shown below"
	mkdir -p "$DEMO_RUN_DIR"
	# their lines, until the sidecar (which this shell becomes) exits
	tail -q -F --pid=$$ -n 0 "$DEMO_RUN_DIR/localhost_agg_w0.log" "$DEMO_RUN_DIR/localhost_agg_w1.log" 2>/dev/null |
	    grep --line-buffered -E '^(config|setup|put|get|done|old key)' | sed -u 's/^/  [worker] /' &
fi
cat <<TXT

mooncake-sidecar is starting in the foreground: the master, then two fake GPU workers once the
endpoint files are written (Ctrl-C stops the workers, then the master).
In another terminal, try:
  curl -s http://127.0.0.1:9103/status                  # state, pid, restarts, ports, probes
  curl -s http://127.0.0.1:9103/health                  # proxied to the master's admin port
  curl -s http://127.0.0.1:9103/role                    # leader
  curl -s http://127.0.0.1:9103/readyz                  # ready, or 503 with the reason
  curl -s http://127.0.0.1:9103/metrics | head          # the sidecar's metrics, then the master's
  $build/daemon/mooncake-sidecar --status               # a summary, like systemctl status
  kill -9 \$(cat $DEMO_RUN_DIR/mooncake_master.pid)      # the sidecar restarts it within ~100 ms, restoring
                                                        # its last snapshot (every 5 s, master.snapshot)
                                                        # (with the store client: its puts fail, then work
                                                        # again, and its first key is still there)
  cat $DEMO_RUN_DIR/mooncake.env                        # what workers read
  cat $DEMO_RUN_DIR/worker-7500.env | grep -E 'CUDA|MOONCAKE'   # what worker 0 got
  tail -f $DEMO_RUN_DIR/mooncake_master.log $DEMO_RUN_DIR/localhost_agg_w0.log

TXT
exec "$build/daemon/mooncake-sidecar" -c "$top/conf/demo.json" "$@"
