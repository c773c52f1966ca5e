/* --status: a blocking one-shot client (it never runs inside the daemon's loop). */
#include "config.h"
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sysexits.h>
#include <unistd.h>
#include <jansson.h>
#include "sidecar.h"
#include "xalloc.h"

#define STATUS_TIMEOUT_MS	3000

static int
wait_fd(int fd, short ev)
{
	struct pollfd p = { fd, ev, 0 };
	return poll(&p, 1, STATUS_TIMEOUT_MS) == 1 ? 0 : -1;
}

static char *
http_get(const char *url, const char *path, int *code, char *err, size_t errlen)
{
	char host[128], port[16] = "80", *req, *buf = NULL;
	const char *h = url, *end;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	size_t len = 0, cap = 0;
	int fd = -1, rc;

	if (strncmp(h, "http://", 7) == 0)
		h += 7;
	if (*h == '[') {
		end = strchr(h, ']');
		if (end == NULL) {
			snprintf(err, errlen, "bad URL %s", url);
			return NULL;
		}
		snprintf(host, sizeof host, "%.*s", (int)(end - h - 1), h + 1);
		end++;
	} else {
		end = h + strcspn(h, ":/");
		snprintf(host, sizeof host, "%.*s", (int)(end - h), h);
	}
	if (*end == ':')
		snprintf(port, sizeof port, "%.*s", (int)strcspn(end + 1, "/"), end + 1);
	if ((rc = getaddrinfo(host, port, &hints, &ai)) != 0) {
		snprintf(err, errlen, "%s: %s", host, gai_strerror(rc));
		return NULL;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) ||
	    wait_fd(fd, POLLOUT) != 0) {
		snprintf(err, errlen, "cannot connect to %s:%s: %s", host, port,
		    errno ? strerror(errno) : "timed out");
		goto fail;
	}
	int soerr = 0;
	socklen_t sl = sizeof soerr;
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
	if (soerr != 0) {
		snprintf(err, errlen, "cannot connect to %s:%s: %s", host, port, strerror(soerr));
		goto fail;
	}
	req = xasprintf("GET %s HTTP/1.0\r\nHost: %s\r\n\r\n", path, host);
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		snprintf(err, errlen, "write: %s", strerror(errno));
		free(req);
		goto fail;
	}
	free(req);
	for (;;) {
		ssize_t r;
		if (wait_fd(fd, POLLIN) != 0) {
			snprintf(err, errlen, "no answer from %s:%s", host, port);
			goto fail;
		}
		if (len + 4096 + 1 > cap)
			buf = xrealloc(buf, cap = (len + 4096 + 1) * 2);
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	freeaddrinfo(ai);
	if (buf == NULL || len < 12 || strncmp(buf, "HTTP/1.", 7) != 0) {
		snprintf(err, errlen, "not an HTTP answer");
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	*code = atoi(buf + 9);
	char *body = strstr(buf, "\r\n\r\n");
	char *out = xstrdup(body ? body + 4 : "");
	free(buf);
	return out;
fail:
	if (fd >= 0)
		close(fd);
	freeaddrinfo(ai);
	free(buf);
	return NULL;
}

static const char *
str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "-";
}

int
status_main(const char *url)
{
	char err[512];
	int code = 0;
	char *body = http_get(url, "/status", &code, err, sizeof err);
	json_t *root, *m, *w;
	json_error_t je;
	size_t i;

	if (body == NULL) {
		fprintf(stderr, "mooncake-sidecar --status: %s\n", err);
		return EX_UNAVAILABLE;
	}
	root = json_loads(body, 0, &je);
	free(body);
	if (code != 200 || root == NULL) {
		fprintf(stderr, "mooncake-sidecar --status: %s/status answered HTTP %d%s\n", url, code,
		    root ? "" : " without JSON");
		json_decref(root);
		return EX_UNAVAILABLE;
	}
	m = json_object_get(root, "master");
	int ready = json_is_true(json_object_get(root, "ready"));
	printf("%s mooncake-sidecar %s on %s (job %s), up %.0f s\n", ready ? "●" : "○",
	    str(root, "version"), str(root, "node"), str(root, "job_id"),
	    json_number_value(json_object_get(root, "uptime_s")));
	if (json_is_object(m)) {
		json_t *ports = json_object_get(m, "ports"), *le = json_object_get(m, "last_exit");
		printf("   master: %s", str(m, "state"));
		if (json_integer_value(json_object_get(m, "pid")) > 0)
			printf(", pid %" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(m, "pid")));
		printf(", %" JSON_INTEGER_FORMAT " restarts",
		    json_integer_value(json_object_get(m, "restarts")));
		if (json_is_string(json_object_get(m, "ready_since")))
			printf(", ready since %s", str(m, "ready_since"));
		printf("\n");
		if (json_is_string(json_object_get(m, "reason")) && *str(m, "reason"))
			printf("   reason: %s\n", str(m, "reason"));
		if (json_is_object(le))
			printf("   last exit: %s %" JSON_INTEGER_FORMAT "\n",
			    json_object_get(le, "code") ? "code" : "signal",
			    json_integer_value(json_object_get(le, "code") ? json_object_get(le, "code") :
			    json_object_get(le, "signal")));
		if (json_is_object(ports))
			printf("   ports: rpc %" JSON_INTEGER_FORMAT ", metadata %" JSON_INTEGER_FORMAT
			    ", admin %" JSON_INTEGER_FORMAT "\n",
			    json_integer_value(json_object_get(ports, "rpc")),
			    json_integer_value(json_object_get(ports, "metadata")),
			    json_integer_value(json_object_get(ports, "admin")));
	} else
		printf("   master: not on this node\n");
	w = json_object_get(root, "workers");
	if (json_array_size(w) > 0) {
		json_t *e;
		printf("   %-28s %-8s %-9s %8s %8s %s\n", "WORKER", "ROLE", "STATE", "PID", "RESTARTS",
		    "CUDA_VISIBLE_DEVICES");
		json_array_foreach(w, i, e)
			printf("   %-28s %-8s %-9s %8" JSON_INTEGER_FORMAT " %8" JSON_INTEGER_FORMAT " %s\n",
			    str(e, "name"), str(e, "role"), str(e, "state"),
			    json_integer_value(json_object_get(e, "pid")),
			    json_integer_value(json_object_get(e, "restarts")),
			    str(e, "cuda_visible_devices"));
	}
	json_decref(root);
	return ready ? 0 : 3;
}
