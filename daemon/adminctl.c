/*
 * The operator's routes (POST /control/VERB?target=T): never public, never proxied. They need
 * admin.auth's credentials over the network; over the local control socket (admin.control_socket,
 * mode 0600: only its owner, the sidecar's user, can connect) the peer's uid is who asks. What a
 * verb does is the source's (daemon/control.c); every action and every refusal goes to it, so that
 * one place logs and counts them.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "admin_int.h"
#include "atomicfile.h"
#include "log.h"

#define CONTROL_PREFIX	"/control/"

int
adm_control_path(const char *url)
{
	return strncmp(url, CONTROL_PREFIX, strlen(CONTROL_PREFIX)) == 0;
}

/* The uid at the other end of a connection of the control socket, or -1. */
long
adm_peer_uid(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct ucred cr;
	socklen_t len = sizeof cr;
	if (ci == NULL || getsockopt(ci->connect_fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0)
		return -1;
	return (long)cr.uid;
}

/* The source hears of a request to a control route that was refused with code, and why: every
 * refusal is audited, whatever refused it. */
void
adm_control_refused(struct request *r, int code, const char *why)
{
	struct admin_answer ans;
	struct admin_control ctl = { r->path + strlen(CONTROL_PREFIX), NULL, r->who[0] ? r->who : "anonymous", code,
		why };
	char tbuf[256];
	if (!r->control || r->a->p.source.control == NULL)
		return;
	ctl.target = adm_own_arg(r, "target", tbuf, sizeof tbuf);
	memset(&ans, 0, sizeof ans);
	r->a->p.source.control(r->a->p.source.arg, &ctl, &ans);
	free(ans.body);
}

static enum MHD_Result
refuse(struct request *r, int code, const char *msg)
{
	adm_control_refused(r, code, msg);
	r->route = "/control";
	return adm_respond_error(r, code, msg);
}

int
adm_local(const struct request *r)
{
	const union MHD_ConnectionInfo *ci;
	if (r->a->cmhd == NULL)
		return 0;
	ci = MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_DAEMON);
	return ci != NULL && ci->daemon == r->a->cmhd;
}

int
adm_control_begin(struct request *r, const char *method, enum MHD_Result *ret)
{
	struct admin *a = r->a;
	r->control = 1;
	r->route = "/control";
	if (strcmp(method, MHD_HTTP_METHOD_POST) != 0) {
		struct MHD_Response *m;
		char *s = adm_error_json(a, "the control routes take POST only");
		adm_control_refused(r, MHD_HTTP_METHOD_NOT_ALLOWED, "the control routes take POST only");
		m = adm_response("application/json", s, strlen(s));
		free(s);
		MHD_add_response_header(m, MHD_HTTP_HEADER_ALLOW, MHD_HTTP_METHOD_POST);
		r->code = MHD_HTTP_METHOD_NOT_ALLOWED;
		*ret = MHD_queue_response(r->conn, MHD_HTTP_METHOD_NOT_ALLOWED, m);
		MHD_destroy_response(m);
		return 1;
	}
	if (r->local) {
		if (r->uid != (long)geteuid() && r->uid != 0) {
			*ret = refuse(r, MHD_HTTP_FORBIDDEN, "the control socket serves its owner and root only");
			return 1;
		}
		return 0;
	}
	if (a->p.token[0] == '\0' && a->basic == NULL) {
		char msg[CFG_SOCKET_PATH_MAX + 200];
		snprintf(msg, sizeof msg, "the control routes need admin.auth over the network; on this node use "
		    "the control socket %s (mooncake-sidecar ctl)", a->cfd >= 0 ? a->p.cfg->admin.control_socket :
		    "(admin.control_socket is off)");
		*ret = refuse(r, MHD_HTTP_FORBIDDEN, msg);
		return 1;
	}
	return 0;
}

/* A request of /control/... that passed: the source acts and answers. */
enum MHD_Result
adm_control_answer(struct request *r)
{
	struct admin *a = r->a;
	struct admin_answer ans;
	struct admin_control ctl = { r->path + strlen(CONTROL_PREFIX), NULL, r->who[0] ? r->who : "anonymous", 0, NULL };
	char tbuf[256];
	ctl.target = adm_own_arg(r, "target", tbuf, sizeof tbuf);
	memset(&ans, 0, sizeof ans);
	ans.ctype = "application/json";
	if (a->p.source.control == NULL)
		return adm_respond_error(r, MHD_HTTP_NOT_FOUND, "no control routes here");
	a->p.source.control(a->p.source.arg, &ctl, &ans);
	return adm_answer_now(r, &ans);
}

/* A connection of the control socket, handed to its libmicrohttpd. */
static void
caccept_cb(evutil_socket_t fd, short what, void *arg)
{
	struct admin *a = arg;
	(void)what;
	for (int i = 0; i < 16; i++) {
		struct sockaddr_un sun;
		socklen_t len = sizeof sun;
		int c = accept4(fd, (struct sockaddr *)&sun, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			break;
		}
		(void)MHD_add_connection(a->cmhd, c, (struct sockaddr *)&sun, len);
	}
	adm_run(a);
}

/* Is path free for the control socket: nothing there, or a socket (a stale one is replaced)? Anything
 * else (a file, a directory, a link) is someone else's, never replaced: -1 with err. */
int
admin_control_socket_check(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (path == NULL || strcmp(path, "off") == 0 || lstat(path, &st) != 0 || S_ISSOCK(st.st_mode))
		return 0;
	snprintf(err, errlen, "admin.control_socket: %s exists and is not a socket (%s): the sidecar does not "
	    "replace it; remove it, or name another path", path, S_ISLNK(st.st_mode) ? "a symbolic link" :
	    S_ISDIR(st.st_mode) ? "a directory" : S_ISREG(st.st_mode) ? "a regular file" : "another kind of file");
	return -1;
}

/* admin.control_socket: a stale socket file (a sidecar that died) is replaced; a live one (another
 * sidecar of the same run_dir answers on it) is an error naming it, and so is anything there that
 * is not a socket. Made with mode 0600; its inode kept, so that the stop removes that socket only. */
int
adm_control_listen(struct admin *a, char *err, size_t errlen)
{
	const char *path = a->p.cfg->admin.control_socket;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	mode_t old;
	struct stat st;
	int fd, probe, rc;
	char dir[CFG_SOCKET_PATH_MAX], *slash;
	a->cfd = -1;
	if (path == NULL || strcmp(path, "off") == 0)
		return 0;
	snprintf(dir, sizeof dir, "%s", path);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (mkdir_p(dir, 0750, err, errlen) != 0)
			return -1;
	}
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
	probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (probe >= 0 && connect(probe, (struct sockaddr *)&sun, sizeof sun) == 0) {
		close(probe);
		snprintf(err, errlen, "admin.control_socket: %s is in use: another sidecar listens on it "
		    "(give each its own job.run_dir or admin.control_socket)", path);
		return -1;
	}
	if (probe >= 0)
		close(probe);
	if (admin_control_socket_check(path, err, errlen) != 0)
		return -1;
	(void)unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "admin.control_socket: %s", strerror(errno));
		return -1;
	}
	old = umask(0177);
	rc = bind(fd, (struct sockaddr *)&sun, sizeof sun);
	umask(old);
	if (rc != 0 || chmod(path, 0600) != 0 || listen(fd, 64) != 0) {
		snprintf(err, errlen, "admin.control_socket: cannot listen on %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (lstat(path, &st) == 0) {
		a->csock_dev = st.st_dev;
		a->csock_ino = st.st_ino;
	}
	a->cfd = fd;
	a->caccept_ev = event_new(a->p.base, fd, EV_READ | EV_PERSIST, caccept_cb, a);
	event_add(a->caccept_ev, NULL);
	log_info("admin: control socket %s (mode 0600)", path);
	return 0;
}

void
adm_control_close(struct admin *a)
{
	struct stat st;
	if (a->cfd < 0)
		return;
	event_free(a->caccept_ev);
	a->caccept_ev = NULL;
	close(a->cfd);
	a->cfd = -1;
	/* its own socket only: not what another sidecar (or anyone) has put at the path since */
	if (lstat(a->p.cfg->admin.control_socket, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == a->csock_dev &&
	    st.st_ino == a->csock_ino)
		(void)unlink(a->p.cfg->admin.control_socket);
}
