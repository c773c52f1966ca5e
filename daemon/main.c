#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sysexits.h>
#include <unistd.h>
#include <event2/event.h>
#include "addrs.h"
#include "admin.h"
#include "atomicfile.h"
#include "cfg.h"
#include "endpoints.h"
#include "follow.h"
#include "workerenv.h"
#include "clock.h"
#include "log.h"
#include "master.h"
#include "metrics.h"
#include "notify.h"
#include "plan.h"
#include "sidecar.h"
#include "topology.h"
#include "workers.h"

static struct sidecar sc;

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: mooncake-sidecar [-c FILE] [-n|--check-config] [--plan[=all]] [--node NAME]\n"
	    "                        [--listen ADDR:PORT] [--status [URL] [--token-file FILE] [--cacert FILE]]\n"
	    "                        [-v] [-V|--version]\n"
	    "                        [-h]\n");
}

static void
master_changed(struct master *m, void *arg)
{
	(void)m;
	sidecar_changed(arg);
}

/* This node's address, decided once before the loop. A job.network_interface this node lacks is an
 * error only where workers run (workers_new says so); elsewhere the name decides, with a warning. */
static void
node_address(struct sidecar *s)
{
	const struct cfg *c = &s->cfg;
	addrs_decide(c->job.node, c->job.node, c->job.network_interface, &s->node_addr);
	if (s->node_addr.quality == NODEADDR_NO_IFACE) {
		s->iface_missing = 1;
		addrs_decide(c->job.node, c->job.node, "", &s->node_addr);
		log_warn("job.network_interface: no usable IPv4 address on %s here; this node's address is %s (%s)",
		    c->job.network_interface, s->node_addr.addr, s->node_addr.source);
	}
	log_info("this node (%s) is %s: %s", s->cfg.job.node, s->node_addr.addr, s->node_addr.source);
}

static void
files_changed(void *arg)
{
	sidecar_changed(arg);
}

/* A stop signal is recorded; the reconcile step stops the workers, then the master. */
static void
shutdown_begin(struct sidecar *s, int now)
{
	if (s->stopping && !now)
		return;
	if (!s->stopping)
		log_notice("shutting down%s", now ? " now" : "");
	else
		log_notice("second stop signal: skipping the waits");
	s->stopping = 1;
	s->stop_now = now;
	notify_stopping();
	sidecar_changed(s);
}

static void
signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct sidecar *s = arg;
	switch (sig) {
	case SIGTERM:
	case SIGINT:
		shutdown_begin(s, s->stopping);
		break;
	case SIGQUIT:
		log_notice("SIGQUIT: stopping at once");
		shutdown_begin(s, 1);
		break;
	case SIGHUP:
	case SIGUSR1:	/* logrotate's convention */
		notify_reloading();
		log_notice("%s: reopening log files", sig == SIGHUP ? "SIGHUP" : "SIGUSR1");
		s->reload = 1;
		s->ready_sent = 0;
		sidecar_changed(s);
		break;
	case SIGCHLD:
		child_reap();
		break;
	default:
		/* Signals whose default action would end the sidecar (and with it, by PDEATHSIG, the
		 * master and the workers) are caught and ignored. */
		if (sig > 0 && sig < NSIG && !s->ignored_logged[sig]) {
			log_warn("ignoring signal %d (%s): it is not one the sidecar acts on",
			    (int)sig, strsignal((int)sig));
			s->ignored_logged[sig] = 1;
		}
		break;
	}
}

/* Another sidecar is reached over https: master.url or a job.sidecars URL says so, or, for the
 * default URLs, this node's own admin.tls (the job's sidecars are configured alike). */
static int
needs_peer_tls(const struct cfg *c)
{
	if (c->admin.tls_cert_file[0] != '\0' && c->job.nodes.n > 1)
		return 1;
	if (strncmp(c->master.url, "https://", 8) == 0)
		return 1;
	for (size_t i = 0; i < c->job.sidecars.n; i++)
		if (strncmp(c->job.sidecars.v[i].value, "https://", 8) == 0)
			return 1;
	return 0;
}

/* Names in the configuration resolve (before the loop, where a blocking lookup is allowed). */
static void
check_names(struct sidecar *s, struct strv *errs)
{
	const struct cfg *cfg = &s->cfg;
	struct httpc_target t;
	struct url u;
	char err[512];
	if (cfg->master.runs_here) {
		if (master_targets(cfg, s->master_targets, err, sizeof err) != 0)
			strv_pushf(errs, "%s", err);
		if (cfg->master.address[0] != '\0' && httpc_resolve(cfg->master.address,
		    (int)cfg->master.rpc_port, &t, err, sizeof err) != 0)
			strv_pushf(errs, "master.address: %s", err);
	} else if (cfg->master.url[0] != '\0' && url_parse(cfg->master.url, &u, err, sizeof err) == 0 &&
	    httpc_resolve(u.host, u.port, &t, err, sizeof err) != 0)
		strv_pushf(errs, "master.url: %s", err);
	if (dir_safe(cfg->job.run_dir, err, sizeof err) != 0)
		strv_pushf(errs, "job.run_dir: %s", err);
	if (strcmp(cfg->job.log_dir, cfg->job.run_dir) != 0 && dir_safe(cfg->job.log_dir, err, sizeof err) != 0)
		strv_pushf(errs, "job.log_dir: %s", err);
	if (cfg->job.user[0] != '\0' && getpwnam(cfg->job.user) == NULL)
		strv_pushf(errs, "job.user: no user \"%s\" on this node", cfg->job.user);
	if (cfg->admin.tls_cert_file[0] != '\0' && tls_load(cfg, &s->tls, err, sizeof err) != 0)
		strv_pushf(errs, "%s", err);
	if (needs_peer_tls(cfg) && tls_client_cred("master.ca_file", cfg->master.ca_file, &s->peer_cred, err, sizeof err) != 0)
		strv_pushf(errs, "%s", err);
	if (cfg->admin.bearer_token_file[0] != '\0' && sidecar_read_token(cfg->admin.bearer_token_file,
	    s->token, sizeof s->token, err, sizeof err) != 0)
		strv_pushf(errs, "admin.auth.bearer_token_file: %s", err);
}

/* Raise the open-file limit to its hard limit, and keep the admin server inside what is left once
 * the sidecar's own needs (upstream pool, probes, children's pipes and logs) are set aside. */
static void
fd_budget(struct cfg *cfg)
{
	struct rlimit rl;
	long reserve = 128 + 4 * (cfg->job.gpus_per_node > 0 ? cfg->job.gpus_per_node : 8), avail;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY)
		return;
	avail = (long)rl.rlim_cur - reserve;
	if (avail < 16)
		avail = 16;
	if (cfg->admin.max_connections > avail) {
		log_warn("admin.max_connections %ld does not fit the open-file limit %ld (the sidecar keeps "
		    "%ld for itself): at most %ld admin connections", cfg->admin.max_connections,
		    (long)rl.rlim_cur, reserve, avail);
		cfg->admin.max_connections = avail;
	}
}

/* job.user: from root, become that user (its groups, its gid, its uid) before anything is written
 * or started; the run and log directories become its own. Already that user: nothing to do. */
static void
become_user(const struct cfg *c)
{
	const struct passwd *pw;
	const char *dirs[2] = { c->job.run_dir, c->job.log_dir };
	if (c->job.user[0] == '\0')
		return;
	if ((pw = getpwnam(c->job.user)) == NULL)
		fatalx(EX_NOUSER, "job.user: no user \"%s\" on this node", c->job.user);
	if (geteuid() == pw->pw_uid)
		return;
	if (geteuid() != 0)
		fatalx(EX_NOPERM, "job.user: the sidecar runs as uid %ld and cannot become %s (uid %ld); start it "
		    "as root or as that user", (long)geteuid(), c->job.user, (long)pw->pw_uid);
	for (int i = 0; i < 2; i++)
		if (chown(dirs[i], pw->pw_uid, pw->pw_gid) != 0)
			fatalx(EX_NOPERM, "job.user: chown %s to %s: %s", dirs[i], c->job.user, strerror(errno));
	if (initgroups(c->job.user, pw->pw_gid) != 0 || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
		fatalx(EX_NOPERM, "job.user: cannot become %s: %s", c->job.user, strerror(errno));
	if (setuid(0) == 0)
		fatalx(EX_NOPERM, "job.user: became %s but could become root again", c->job.user);
	log_notice("running as %s (uid %ld, gid %ld) from here on, and so do the master and the workers",
	    c->job.user, (long)pw->pw_uid, (long)pw->pw_gid);
}

/* Load and check the configuration. On success t holds the workers' layout, built once here for
 * the plan or the workers to take over. */
static int
check_config(const char *path, const struct cfg_overrides *ov, struct sidecar *s, int quiet,
    struct topology *t)
{
	struct strv errs = { 0 };
	struct cfg *cfg = &s->cfg;
	int rc = cfg_load_file(path, ov, cfg, &errs);
	char err[512];
	memset(t, 0, sizeof *t);
	/* The workers must fit the allocation: srtctl's layout rules and its messages. */
	if (rc == 0 && topology_build(cfg, &cfg->job.nodes, cfg->job.gpus_per_node, t, err, sizeof err) != 0) {
		strv_pushf(&errs, "workers: %s", err);
		rc = -1;
	}
	if (rc == 0) {
		struct strv warns = { 0 };
		check_names(s, &errs);
		rc = errs.n > 0 ? -1 : 0;
		cfg_warnings(cfg, &warns);
		for (size_t i = 0; i < warns.n; i++) {
			if (quiet)
				log_warn("%s", warns.v[i]);
			else
				log_print(LOG_LVL_WARN, "warning: %s", warns.v[i]);
		}
		strv_free(&warns);
	}
	for (size_t i = 0; i < errs.n; i++)
		log_print(LOG_LVL_ERR, "%s", errs.v[i]);
	if (rc != 0)
		log_print(LOG_LVL_ERR, "%s: %zu error%s", path, errs.n, errs.n == 1 ? "" : "s");
	else if (!quiet)
		printf("configuration OK\n");
	strv_free(&errs);
	if (rc != 0)
		topology_free(t);
	return rc;
}

int
main(int argc, char **argv)
{
	enum { OPT_PLAN = 256, OPT_NODE, OPT_LISTEN, OPT_STATUS, OPT_TOKEN_FILE, OPT_CACERT };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, 'n' },
		{ "plan", optional_argument, NULL, OPT_PLAN },
		{ "node", required_argument, NULL, OPT_NODE },
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "status", optional_argument, NULL, OPT_STATUS },
		{ "token-file", required_argument, NULL, OPT_TOKEN_FILE },
		{ "cacert", required_argument, NULL, OPT_CACERT },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *path = "/etc/mooncake-sidecar/sidecar.json", *status_url = NULL, *token_file = NULL;
	const char *cacert = NULL;
	struct cfg_overrides ov = { NULL, NULL };
	int opt, check = 0, plan = 0, verbose = 0, status = 0;
	int sigs[NSIG], nsigs = 0;
	struct event *sigev[NSIG];
	struct topology topo;	/* built by check_config, handed to the plan or the workers */
	char err[512];
	int exit_code = 0;

	while ((opt = getopt_long(argc, argv, "c:nvVh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c': path = optarg; break;
		case 'n': check = 1; break;
		case 'v': verbose = 1; break;
		case 'V': printf("mooncake-sidecar %s\n", PACKAGE_VERSION); return 0;
		case 'h': usage(stdout); return 0;
		case OPT_PLAN:
			if (optarg != NULL && strcmp(optarg, "all") != 0) {
				log_print(LOG_LVL_ERR, "--plan takes no value or \"all\", got \"%s\"", optarg);
				return EX_USAGE;
			}
			plan = optarg ? 2 : 1;
			break;
		case OPT_NODE: ov.node = optarg; break;
		case OPT_LISTEN: ov.listen = optarg; break;
		case OPT_TOKEN_FILE: token_file = optarg; break;
		case OPT_CACERT: cacert = optarg; break;
		case OPT_STATUS:
			status = 1;
			status_url = optarg;
			if (status_url == NULL && optind < argc && argv[optind][0] != '-')
				status_url = argv[optind++];
			break;
		default: usage(stderr); return EX_USAGE;
		}
	}
	if (optind < argc) {
		log_print(LOG_LVL_ERR, "unexpected argument \"%s\"", argv[optind]);
		usage(stderr);
		return EX_USAGE;
	}
	log_init(verbose);
	if (status)
		return status_main(status_url ? status_url : "http://127.0.0.1:9103", token_file, cacert);
	if (check_config(path, &ov, &sc, !check, &topo) != 0) {
		tls_pem_free(&sc.tls);
		tls_client_cred_free(sc.peer_cred);
		cfg_free(&sc.cfg);
		return EX_CONFIG;
	}
	if (check || plan) {
		int rc = plan ? plan_print(&sc.cfg, &topo, plan == 2, stdout) : 0;
		topology_free(&topo);
		tls_pem_free(&sc.tls);
		tls_client_cred_free(sc.peer_cred);
		cfg_free(&sc.cfg);
		return rc;
	}

	if (mkdir_p(sc.cfg.job.run_dir, 0750, err, sizeof err) != 0)
		fatalx(EX_CANTCREAT, "run directory: %s", err);
	if (mkdir_p(sc.cfg.job.log_dir, 0750, err, sizeof err) != 0)
		fatalx(EX_CANTCREAT, "log directory (job.log_dir): %s", err);
	child_log_rotation(sc.cfg.log.max_bytes, (int)sc.cfg.log.keep);
	signal(SIGPIPE, SIG_IGN);
	/* Orphaned grandchildren of the master (a wrapper's children) come back to us to be reaped. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	sc.base = event_base_new();
	if (sc.base == NULL)
		fatalx(EX_OSERR, "event_base_new failed");
	{
		static const int handled[] = {
			SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1, SIGCHLD, SIGUSR2, SIGALRM, SIGVTALRM,
			SIGPROF, SIGIO, SIGPWR, SIGXCPU, SIGXFSZ, SIGSTKFLT, SIGTRAP, SIGTSTP, SIGTTIN, SIGTTOU
		};
		for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++)
			sigs[nsigs++] = handled[i];
		for (int rt = SIGRTMIN; rt <= SIGRTMAX && nsigs < NSIG; rt++)
			sigs[nsigs++] = rt;
	}
	for (int i = 0; i < nsigs; i++) {
		sigev[i] = evsignal_new(sc.base, sigs[i], signal_cb, &sc);
		event_add(sigev[i], NULL);
	}
	notify_init(sc.base);
	fd_budget(&sc.cfg);
	sc.started = mono_now();
	metrics_init();
	log_notice("mooncake-sidecar %s on node %s, job %s, run dir %s", PACKAGE_VERSION,
	    sc.cfg.job.node, sc.cfg.job.id, sc.cfg.job.run_dir);
	/* The unit runs it as a dynamic unprivileged user; as root, so is everything it starts, unless
	 * job.user says whom to become (below, once the admin port is bound). */
	if (geteuid() == 0 && getenv("INVOCATION_ID") == NULL && sc.cfg.job.user[0] == '\0')
		log_warn("running as root outside systemd: the master and every worker run as root too; "
		    "use the unit (DynamicUser=yes), set job.user, or start it as an unprivileged user");
	/* Addresses first: a job whose workers could not reach each other starts nothing. */
	node_address(&sc);
	if ((sc.workers = workers_new(&sc, &topo, err, sizeof err)) == NULL)
		fatalx(EX_CONFIG, "workers: %s", err);
	if ((sc.admin = admin_new(&sc, err, sizeof err)) == NULL)
		fatalx(EX_UNAVAILABLE, "admin: %s", err);
	become_user(&sc.cfg);
	if (sc.cfg.master.runs_here) {
		snprintf(sc.master_address, sizeof sc.master_address, "%s", sc.cfg.master.address[0] != '\0' ?
		    sc.cfg.master.address : sc.node_addr.addr);
		sc.endpoints = endpoints_new(&sc.cfg, sc.base, sc.node_addr.addr, workers_topology(sc.workers),
		    files_changed, &sc);
		sc.master = master_new(sc.base, &sc.cfg, sc.master_targets, master_changed, &sc);
		master_start(sc.master);
	} else {
		sc.endpoints = endpoints_new(&sc.cfg, sc.base, sc.node_addr.addr, workers_topology(sc.workers),
		    files_changed, &sc);
		if ((sc.follow = follow_new(&sc, err, sizeof err)) == NULL)
			fatalx(EX_UNAVAILABLE, "%s", err);
	}
	sidecar_changed(&sc);

	/* With admin.busy_poll_us, the loop polls without sleeping for that long after an answer to a
	 * client asking back to back (see admin_run()): in a VM an idle CPU is halted, and waking it
	 * again is most of a proxied request's latency. */
	while (!event_base_got_exit(sc.base) && !event_base_got_break(sc.base))
		if (event_base_loop(sc.base, sc.busy_until > mono_now() ? EVLOOP_NONBLOCK : EVLOOP_ONCE) != 0)
			break;	/* no events left (1), or an error (-1), as event_base_dispatch */

	/* Whatever happened before, the files say not ready at exit, or the exit status says why not. */
	if (endpoints_flush(sc.endpoints) != 0) {
		log_err("endpoints: exiting with files that could not be brought up to date: %s",
		    endpoints_error(sc.endpoints));
		exit_code = EX_IOERR;
	}
	/* the admin server first: the long-polls it still holds are answered from the state below */
	admin_free(sc.admin);
	sc.admin = NULL;
	follow_free(sc.follow);
	workers_free(sc.workers);
	sc.workers = NULL;
	if (sc.master != NULL)
		master_free(sc.master);
	endpoints_free(sc.endpoints);
	sidecar_free_events(&sc);
	metrics_free();
	notify_free();
	for (int i = 0; i < nsigs; i++)
		event_free(sigev[i]);
	event_base_free(sc.base);
	tls_pem_free(&sc.tls);
	tls_client_cred_free(sc.peer_cred);
	cfg_free(&sc.cfg);
	log_notice("stopped");
	return exit_code;
}
