#ifndef DAEMON_CTL_H
#define DAEMON_CTL_H
/* mooncake-sidecar ctl VERB [TARGET] [options]: the operator's verbs on a running sidecar, over its
 * control socket (no token needed: only its owner can connect) or its admin URL. Exit codes are
 * sysexits.h's. argv[0] is "ctl". */
int	ctl_main(int, char **);
#endif
