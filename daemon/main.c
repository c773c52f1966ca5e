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
#include <limits.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>
#include <event2/event.h>
#include <jansson.h>
#include "addrs.h"
#include "admin.h"
#include "atomicfile.h"
#include "auth.h"
#include "cfg.h"
#include "audit.h"
#include "clock.h"
#include "control.h"
#include "counters.h"
#include "ctl.h"
#include "draining.h"
#include "endpoints.h"
#include "follow.h"
#include "log.h"
#include "master.h"
#include "masterflags.h"
#include "notify.h"
#include "plan.h"
#include "routes.h"
#include "source.h"
#include "sidecar.h"
#include "status.h"
#include "topology.h"
#include "view.h"
#include "workers.h"

static struct sidecar sc;

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: mooncake-sidecar [-c FILE] [-n|--check-config] [--plan[=all]] [--node NAME]\n"
	    "                        [--listen ADDR:PORT] [--status [URL] [--token-file FILE] [--cacert FILE]]\n"
	    "                        [-v] [-V|--version] [-h]\n"
	    "       mooncake-sidecar ctl VERB [TARGET] [--wait[=SECONDS]] [-c FILE] [--socket PATH | --url URL]\n"
	    "                        [--token-file FILE] [--cacert FILE]\n");
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
bye_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sidecar *s = arg;
	(void)fd;
	(void)what;
	s->bye_waited = 1;
	sidecar_changed(s);
}

/* A stop signal is recorded; the reconcile step stops the workers, then the master. A follower
 * waits at most FOLLOW_BYE_MS for its head to hear that it stops. */
static void
shutdown_begin(struct sidecar *s, int now)
{
	if (s->stopping && !now)
		return;
	if (!s->stopping && s->follow != NULL) {
		struct timeval tv = ms_tv(FOLLOW_BYE_MS);
		event_base_once(s->base, -1, EV_TIMEOUT, bye_cb, s, &tv);
	}
	if (!s->stopping)
		log_notice("shutting down%s", now ? " now" : "");
	else
		log_notice("second stop signal: skipping the waits");
	if (now)
		drain_skip(s->drain);
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
	case SIGHUP:	/* kill -HUP: as POST /control/reload, which also reopens the logs */
		if (!s->stopping) {
			struct admin_control req = { "reload", NULL, "signal:SIGHUP", 0, NULL };
			struct admin_answer ans = { 0 };
			log_notice("SIGHUP: reopening log files, reloading the configuration");
			control_act(s, &req, &ans);
			free(ans.body);
			break;
		}
		/* FALLTHROUGH */
	case SIGUSR1:	/* logrotate's convention */
		log_notice("%s: reopening log files", sig == SIGHUP ? "SIGHUP" : "SIGUSR1");
		control_reopen(s);
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
	if (cfg->admin.bearer_token_file[0] != '\0' && auth_token_read(cfg->admin.bearer_token_file,
	    s->token, sizeof s->token, err, sizeof err) != 0)
		strv_pushf(errs, "admin.auth.bearer_token_file: %s", err);
	if (admin_control_socket_check(cfg->admin.control_socket, err, sizeof err) != 0)
		strv_pushf(errs, "%s", err);
	cfg_check_exec(cfg, child_environ_bytes(), sysconf(_SC_ARG_MAX), errs);
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
	if (avail < (long)cfg->job.nodes.n - 1)
		fatalx(EX_CONFIG, "the open-file limit %ld cannot hold a connection from each of this job's %zu other "
		    "nodes and the %ld the sidecar keeps for itself: raise it to at least %zu (LimitNOFILE= in the "
		    "unit, ulimit -n, or the SLURM job's limits)", (long)rl.rlim_cur, cfg->job.nodes.n - 1, reserve,
		    cfg->job.nodes.n - 1 + (size_t)reserve);
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
	if (strcmp(c->admin.control_socket, "off") != 0 && chown(c->admin.control_socket, pw->pw_uid, pw->pw_gid) != 0)
		fatalx(EX_NOPERM, "job.user: chown %s to %s: %s", c->admin.control_socket, c->job.user, strerror(errno));
	if (initgroups(c->job.user, pw->pw_gid) != 0 || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
		fatalx(EX_NOPERM, "job.user: cannot become %s: %s", c->job.user, strerror(errno));
	if (setuid(0) == 0)
		fatalx(EX_NOPERM, "job.user: became %s but could become root again", c->job.user);
	log_notice("running as %s (uid %ld, gid %ld) from here on, and so do the master and the workers",
	    c->job.user, (long)pw->pw_uid, (long)pw->pw_gid);
}

/* Load and check the configuration. On success t holds the workers' layout, built once here for
 * the plan or the workers to take over. */
/* master.command's binary, where the master runs: the likeliest first failure is that it is not
 * installed, which a start would only find by retrying it until fatal. */
static void
check_master_binary(const struct cfg *cfg, struct strv *errs)
{
	char path[PATH_MAX];
	struct stat st;
	const char *cmd = cfg->master.command[0];
	if (!cfg->master.runs_here || command_path(cmd, path, sizeof path) == 0)
		return;
	strv_pushf(errs, "master.command: %s %s: install Mooncake (pip install mooncake-transfer-engine, or a build "
	    "of mooncake_master) or give the binary's full path", cmd, strchr(cmd, '/') != NULL ?
	    (stat(cmd, &st) != 0 ? "does not exist" : "is not executable") : "is not found on PATH");
}

static int
check_config(const char *path, const struct cfg_overrides *ov, struct sidecar *s, int quiet, int plan,
    struct topology *t)
{
	struct strv errs = { 0 };
	struct cfg *cfg = &s->cfg;
	int rc;
	char err[512];
	/* read once: the document a reload later compares with is the one loaded (s->cfg_root) */
	if ((s->cfg_root = cfg_read_json(path, &errs)) == NULL) {
		cfg_defaults(cfg);
		rc = -1;
	} else
		rc = cfg_load_json(s->cfg_root, ov, cfg, &errs);
	memset(t, 0, sizeof *t);
	/* The workers must fit the allocation: srtctl's layout rules and its messages. */
	if (rc == 0 && topology_build(cfg, &cfg->job.nodes, cfg->job.gpus_per_node, t, err, sizeof err) != 0) {
		strv_pushf(&errs, "workers: %s", err);
		rc = -1;
	}
	if (rc == 0) {
		struct strv warns = { 0 };
		check_names(s, &errs);
		if (!plan)	/* a plan is made anywhere, the binary needed only where it runs */
			check_master_binary(cfg, &errs);
		if (cfg->master.runs_here && cfg->master.check_flags)
			master_flags_check(cfg, 1, &errs, &warns);
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

/* What the command line asks for. */
struct args {
	const char		*path, *status_url, *token_file, *cacert;
	struct cfg_overrides	 ov;
	int			 check, plan, verbose, status;
};

/* Parse argv; returns -1 to carry on, else the exit code (--version, --help, a usage error). */
static int
parse_args(int argc, char **argv, struct args *a)
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
	int opt;
	memset(a, 0, sizeof *a);
	a->path = "/etc/mooncake-sidecar/sidecar.json";
	while ((opt = getopt_long(argc, argv, "c:nvVh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c': a->path = optarg; break;
		case 'n': a->check = 1; break;
		case 'v': a->verbose = 1; break;
		case 'V': printf("mooncake-sidecar %s\n", PACKAGE_VERSION); return 0;
		case 'h': usage(stdout); return 0;
		case OPT_PLAN:
			if (optarg != NULL && strcmp(optarg, "all") != 0) {
				log_print(LOG_LVL_ERR, "--plan takes no value or \"all\", got \"%s\"", optarg);
				return EX_USAGE;
			}
			a->plan = optarg ? 2 : 1;
			break;
		case OPT_NODE: a->ov.node = optarg; break;
		case OPT_LISTEN: a->ov.listen = optarg; break;
		case OPT_TOKEN_FILE: a->token_file = optarg; break;
		case OPT_CACERT: a->cacert = optarg; break;
		case OPT_STATUS:
			a->status = 1;
			a->status_url = optarg;
			if (a->status_url == NULL && optind < argc && argv[optind][0] != '-')
				a->status_url = argv[optind++];
			break;
		default: usage(stderr); return EX_USAGE;
		}
	}
	if (optind < argc) {
		log_print(LOG_LVL_ERR, "unexpected argument \"%s\"", argv[optind]);
		usage(stderr);
		return EX_USAGE;
	}
	return -1;
}

/* Every signal is an event on the loop: the stop signals, SIGHUP/SIGUSR1, SIGCHLD, and those whose
 * default action would end the sidecar (caught and ignored). Returns how many. */
static int
signals_add(struct sidecar *s, struct event **ev, int max)
{
	static const int handled[] = {
		SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1, SIGCHLD, SIGUSR2, SIGALRM, SIGVTALRM,
		SIGPROF, SIGIO, SIGPWR, SIGXCPU, SIGXFSZ, SIGSTKFLT, SIGTRAP, SIGTSTP, SIGTTIN, SIGTTOU
	};
	int n = 0;
	for (size_t i = 0; i < sizeof handled / sizeof handled[0] && n < max; i++)
		ev[n++] = evsignal_new(s->base, handled[i], signal_cb, s);
	for (int rt = SIGRTMIN; rt <= SIGRTMAX && n < max; rt++)
		ev[n++] = evsignal_new(s->base, rt, signal_cb, s);
	for (int i = 0; i < n; i++)
		event_add(ev[i], NULL);
	return n;
}

/* workers.drain_on_stop: the host this node's segments are named by (what its workers are told to
 * call themselves), and where to ask: the master's admin port here, the head sidecar elsewhere. */
static void
drain_setup(struct sidecar *s)
{
	const struct cfg *c = &s->cfg;
	json_t *lh = json_object_get(c->endpoints.store_config, "local_hostname");
	const char *host = json_is_string(lh) ? json_string_value(lh) :
	    kvlist_get(&c->endpoints.env, "MOONCAKE_LOCAL_HOSTNAME") ? kvlist_get(&c->endpoints.env,
	    "MOONCAKE_LOCAL_HOSTNAME") : s->node_addr.addr;
	char via[400], err[512];
	struct httpc *h;
	if (c->master.runs_here) {
		h = httpc_new(s->base, &s->master_targets[PROBE_ADMIN], 1, 4u << 20, 5000);
		snprintf(via, sizeof via, "the master's admin port %s", s->master_targets[PROBE_ADMIN].name);
	} else if ((h = peers_client(&s->peers, c->master.node, via, sizeof via, 4u << 20, 5000, err, sizeof err)) == NULL)
		fatalx(EX_UNAVAILABLE, "workers.drain_on_stop: %s", err);
	s->drain = drain_new(s->base, c, h, via, host, sidecar_changed, s);
}

/* What the sidecar runs: the workers (addresses first: a job whose workers could not reach each
 * other starts nothing), the admin server, then as the user it becomes the endpoint files and
 * either the master or the follower of the head. */
static void
components_start(struct sidecar *s, struct topology *topo)
{
	struct workers_env wenv = { s->base, &s->cfg, &s->peers, &s->node_addr, s->iface_missing, sidecar_changed, s };
	struct admin_params ap = { s->base, &s->cfg, s->token, &s->tls,
		s->cfg.master.runs_here ? &s->master_targets[PROBE_ADMIN] : NULL,
		{ 0 }, &s->busy_until };
	char err[512];
	ap.source = source_of(s);
	s->peers = (struct peers){ s->base, &s->cfg, s->token, s->peer_cred };
	node_address(s);
	wenv.iface_missing = s->iface_missing;
	if ((s->workers = workers_new(&wenv, topo, err, sizeof err)) == NULL)
		fatalx(EX_CONFIG, "workers: %s", err);
	if ((s->admin = admin_new(&ap, err, sizeof err)) == NULL)
		fatalx(EX_UNAVAILABLE, "admin: %s", err);
	s->cfg.admin.port = admin_port(s->admin);	/* the one bound, when admin.listen asked for any */
	become_user(&s->cfg);
	s->endpoints = endpoints_new(&s->cfg, s->base, s->node_addr.addr, workers_topology(s->workers),
	    sidecar_changed, s);
	if (s->cfg.master.runs_here) {
		snprintf(s->master_address, sizeof s->master_address, "%s", s->cfg.master.address[0] != '\0' ?
		    s->cfg.master.address : s->node_addr.addr);
		s->master = master_new(s->base, &s->cfg, s->master_targets, master_changed, s);
		master_start(s->master);
	} else if ((s->follow = follow_new(&s->peers, s->endpoints, sidecar_changed, s, err, sizeof err)) == NULL)
		fatalx(EX_UNAVAILABLE, "%s", err);
	if (s->cfg.workers.drain_on_stop && workers_count(s->workers) > 0)
		drain_setup(s);
	sidecar_changed(s);
}

/* Whatever happened before, the files say not ready at exit, or the exit status says why not. */
static int
components_stop(struct sidecar *s)
{
	int exit_code = 0;
	if (endpoints_flush(s->endpoints) != 0) {
		log_err("endpoints: exiting with files that could not be brought up to date: %s",
		    endpoints_error(s->endpoints));
		exit_code = EX_IOERR;
	}
	/* the admin server first: the long-polls it still holds are answered from the state below */
	admin_free(s->admin);
	s->admin = NULL;
	follow_free(s->follow);
	drain_free(s->drain);
	s->drain = NULL;
	workers_free(s->workers);
	s->workers = NULL;
	if (s->master != NULL)
		master_free(s->master);
	endpoints_free(s->endpoints);
	sidecar_sd_free(s);
	sidecar_free_events(s);
	return exit_code;
}

static void
config_free(struct sidecar *s)
{
	tls_pem_free(&s->tls);
	tls_client_cred_free(s->peer_cred);
	json_decref(s->cfg_root);
	cfg_free(&s->cfg);
}

int
main(int argc, char **argv)
{
	struct args args;
	struct event *sigev[NSIG];
	struct topology topo;	/* built by check_config, handed to the plan or the workers */
	char err[512];
	int rc, nsigs;

	if (argc > 1 && strcmp(argv[1], "ctl") == 0) {
		log_init(0);
		return ctl_main(argc - 1, argv + 1);
	}
	if ((rc = parse_args(argc, argv, &args)) >= 0)
		return rc;
	srandom((unsigned)getpid() ^ (unsigned)time(NULL));	/* jitter that differs between nodes */
	log_init(args.verbose);
	if (args.status)
		return status_main(args.status_url ? args.status_url : "http://127.0.0.1:9103", args.token_file,
		    args.cacert);
	if (check_config(args.path, &args.ov, &sc, !args.check, args.plan, &topo) != 0) {
		config_free(&sc);
		return EX_CONFIG;
	}
	sc.cfg_path = args.path;
	sc.ov = args.ov;
	if (args.check || args.plan) {
		rc = args.plan ? plan_print(&sc.cfg, &topo, args.plan == 2, stdout) : 0;
		topology_free(&topo);
		config_free(&sc);
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
	if ((sc.base = event_base_new()) == NULL)
		fatalx(EX_OSERR, "event_base_new failed");
	nsigs = signals_add(&sc, sigev, NSIG);
	notify_init(sc.base);
	fd_budget(&sc.cfg);
	sc.started = mono_now();
	sc.started_wall = wall_now();
	log_notice("mooncake-sidecar %s on node %s, job %s, run dir %s", PACKAGE_VERSION,
	    sc.cfg.job.node, sc.cfg.job.id, sc.cfg.job.run_dir);
	/* The unit runs it as a dynamic unprivileged user; as root, so is everything it starts, unless
	 * job.user says whom to become (once the admin port is bound). */
	if (geteuid() == 0 && getenv("INVOCATION_ID") == NULL && sc.cfg.job.user[0] == '\0')
		log_warn("running as root outside systemd: the master and every worker run as root too; "
		    "use the unit (DynamicUser=yes), set job.user, or start it as an unprivileged user");
	components_start(&sc, &topo);

	/* With admin.busy_poll_us, the loop polls without sleeping for that long after an answer to a
	 * client asking back to back (see admin_run()): in a VM an idle CPU is halted, and waking it
	 * again is most of a proxied request's latency. */
	while (!event_base_got_exit(sc.base) && !event_base_got_break(sc.base))
		if (event_base_loop(sc.base, sc.busy_until > mono_now() ? EVLOOP_NONBLOCK : EVLOOP_ONCE) != 0)
			break;	/* no events left (1), or an error (-1), as event_base_dispatch */

	rc = components_stop(&sc);
	counters_free();
	audit_free();
	notify_free();
	for (int i = 0; i < nsigs; i++)
		event_free(sigev[i]);
	event_base_free(sc.base);
	config_free(&sc);
	log_notice("stopped");
	return rc;
}
