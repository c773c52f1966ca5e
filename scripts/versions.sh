# The versions of the test-time peers installed from the package registries, in one place (sourced
# by the scripts that install them). Nothing here is linked into the daemon.
#
# The released Mooncake. 0.3.14, the newest, is published only as mooncake-transfer-engine-cuda13:
# its mooncake_master runs without a GPU (tried here: it serves, with its etcd and Redis HA backends
# and the OpLog), but its Python store client does not load without libcuda.so.1. The newest whose
# client runs on a CPU is 0.3.13.post1's -non-cuda build: the etcd HA test runs its masters and its
# client, so that both are one version. Each is the fallback of the other for the master alone.
MCS_WHEEL=${MCS_WHEEL:-mooncake-transfer-engine-cuda13==0.3.14}
MCS_WHEEL_CPU=${MCS_WHEEL_CPU:-mooncake-transfer-engine-non-cuda==0.3.13.post1}
# etcd for the etcd HA test: Debian 12's etcd-server (3.4.23; the v3 API and its JSON gateway, which
# the released masters' etcd client and the sidecar both speak), installed by scripts/deps.sh.
