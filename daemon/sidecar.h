#ifndef DAEMON_SIDECAR_H
#define DAEMON_SIDECAR_H
#include <stdio.h>
#include <event2/event.h>
#include "cfg.h"
#include "httpc.h"
#include "nodeaddr.h"
#include "tls.h"
#include "url.h"

struct master;
struct admin;
struct endpoints;
struct follow;
struct workers;

/* The one daemon: its loop, its configuration and what it supervises. */
struct sidecar {
	struct event_base	*base;
	struct cfg		 cfg;
	struct master		*master;
	struct admin		*admin;
	struct endpoints	*endpoints;
	struct follow		*follow;	/* nodes without a master */
	struct workers		*workers;	/* this node's GPU workers */
	int			 stop_now;	/* a second stop signal: no more waiting */
	int			 workers_stop_sent;	/* 0, 1 (graceful), 2 (at once) */
	int			 master_stop_sent;
	int			 reload;	/* SIGHUP: for the next reconcile step */
	struct event		*reconcile_ev;
	double			 busy_until;	/* admin.busy_poll_us: poll the loop without sleeping until then */
	char			 master_address[URL_HOST_MAX];	/* advertised to workers */
	struct nodeaddr		 node_addr;	/* this node's, for its workers and MOONCAKE_LOCAL_HOSTNAME */
	int			 iface_missing;	/* job.network_interface has no address here */
	char			 token[4097];	/* admin.auth's bearer token, or "" */
	struct tls_pem		 tls;		/* admin.tls, read and checked; cert NULL: plain HTTP */
	void			*peer_cred;	/* https to other sidecars (master.ca_file), or NULL */
	struct httpc_target	 master_targets[3];	/* where the probes and the proxy connect */
	unsigned		 published;	/* the master generation last written as ready */
	char			 published_target[URL_HOST_MAX * 2 + 64];	/* and where it pointed workers */
	double			 started;	/* monotonic */
	int			 stopping;
	int			 ready_sent;
	int			 orphans_signalled;	/* at stop: escaped processes sent SIGTERM */
	char			 ignored_logged[65];	/* signals already logged as ignored (NSIG) */
};

/* Something changed: one deferred reconcile step (daemon/sidecar.c) decides what follows. */
void	sidecar_changed(struct sidecar *);
void	sidecar_free_events(struct sidecar *);
/* --status: query a running sidecar (with a bearer token, or NULL) and print a summary. */
int	status_main(const char *, const char *, const char *);
/* Read a bearer token file (before the loop). Returns 0, or -1 with err naming the file. */
int	sidecar_read_token(const char *, char *, size_t, char *, size_t);
#endif
