/* What a follower accepts from the head's /endpoints: the schema the head writes, nothing else. */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "epcheck.h"
#include "unit.h"

#define GOOD "{\"generation\": 7, \"ready\": true, \"job_id\": \"j\", \"instance\": \"0a1b\", " \
	"\"master\": {\"rpc\": \"10.0.0.5:50051\", \"metadata_url\": \"http://10.0.0.5:8080/metadata\", " \
	"\"admin_url\": \"http://10.0.0.5:9003\", \"pid\": 42, \"restarts\": 0}}"

static const struct {
	const char	*from, *to;	/* GOOD with from replaced by to */
	const char	*err;		/* NULL: accepted */
} cases[] = {
	{ "", "", NULL },
	{ "\"pid\": 42", "\"pid\": null", NULL },
	{ "\"http://10.0.0.5:8080/metadata\"", "null", NULL },
	{ "\"instance\": \"0a1b\", ", "", NULL },
	{ "\"10.0.0.5:50051\"", "\"[fd00::5]:50051\"", NULL },
	{ "\"10.0.0.5:50051\"", "\"master-0.cluster.example:50051\"", NULL },
	{ "\"ready\": true", "\"ready\": \"true\"", "ready: not a boolean" },
	{ "\"ready\": true", "\"ready\": 1", "ready: not a boolean" },
	{ "\"generation\": 7", "\"generation\": -1", "generation: not an integer from 1 to 2147483647" },
	{ "\"generation\": 7", "\"generation\": 0", "generation: not an integer from 1 to 2147483647" },
	{ "\"generation\": 7", "\"generation\": 1099511627776", "generation: not an integer from 1 to 2147483647" },
	{ "\"generation\": 7", "\"generation\": 7.5", "generation: not an integer from 1 to 2147483647" },
	{ "\"generation\": 7", "\"generation\": \"7\"", "generation: not an integer from 1 to 2147483647" },
	{ "\"job_id\": \"j\"", "\"job_id\": 3", "job_id: not a string" },
	{ "\"job_id\": \"j\"", "\"job_id\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"", "job_id: longer than 255 bytes" },
	{ "\"0a1b\"", "\"xyz\"", "instance: not 1 to 32 hex digits" },
	{ "\"10.0.0.5:50051\"", "\"10.0.0.5\"", "master.rpc: not HOST:PORT" },
	{ "\"10.0.0.5:50051\"", "\"10.0.0.5:0\"", "master.rpc: not HOST:PORT" },
	{ "\"10.0.0.5:50051\"", "\"a b:1\"", "master.rpc: not HOST:PORT" },
	{ "\"http://10.0.0.5:8080/metadata\"", "\"http://10.0.0.5:8080/other\"", "master.metadata_url: not null or http://HOST:PORT/metadata" },
	{ "\"http://10.0.0.5:9003\"", "\"ftp://x\"", "master.admin_url: not an http URL" },
	{ "\"pid\": 42", "\"pid\": -3", "master.pid: not null or a positive integer" },
	{ "\"restarts\": 0", "\"restarts\": -1", "master.restarts: not a non-negative integer" },
	{ "\"master\": {", "\"master\": 5, \"x\": {", "master: not an object" },
	{ "\"restarts\": 0", "\"restarts\": 0, \"client_address\": \"etcd://h1:2379;h2:2379\"", NULL },
	{ "\"restarts\": 0", "\"restarts\": 0, \"client_address\": \"10.0.0.5:50051\"", NULL },
	{ "\"restarts\": 0", "\"restarts\": 0, \"client_address\": 5", "master.client_address: not a string of 1 to 511 bytes" },
	{ "\"restarts\": 0", "\"restarts\": 0, \"client_address\": \"\"", "master.client_address: not a string of 1 to 511 bytes" },
	{ "\"restarts\": 0", "\"restarts\": 0, \"client_address\": \"etcd://a\\nb\"", "master.client_address: holds a control character" },
	{ "\"job_id\": \"j\"", "\"job_id\": \"j\", \"workers\": [{\"node\": \"n1\", \"role\": \"agg\", \"worker_index\": 0, \"dp_rank\": null, \"http_port\": 6100}]", NULL },
	{ "\"job_id\": \"j\"", "\"job_id\": \"j\", \"workers\": []", NULL },
	{ "\"job_id\": \"j\"", "\"job_id\": \"j\", \"workers\": {}", "workers: not an array" },
	{ "\"job_id\": \"j\"", "\"job_id\": \"j\", \"workers\": [{\"node\": \"n1\", \"role\": \"agg\", \"http_port\": 0}]", "workers: not a list of {node, role, http_port}" },
	{ "\"job_id\": \"j\"", "\"job_id\": \"j\", \"workers\": [{\"role\": \"agg\", \"http_port\": 6100}]", "workers: not a list of {node, role, http_port}" },
	{ "\"job_id\": \"j\"", "\"job_id\": \"j\", \"workers\": [5]", "workers: not a list of {node, role, http_port}" },
};

START_TEST(test_check)
{
	char in[1024], err[256] = "";
	struct ep_view v;
	const char *at = *cases[_i].from ? strstr(GOOD, cases[_i].from) : GOOD;
	ck_assert_ptr_nonnull(at);
	snprintf(in, sizeof in, "%.*s%s%s", (int)(at - GOOD), GOOD, cases[_i].to, at + strlen(cases[_i].from));
	int rc = epcheck(in, strlen(in), &v, err, sizeof err);
	if (cases[_i].err == NULL) {
		ck_assert_msg(rc == 0, "%s: %s", in, err);
		ck_assert_int_eq(v.generation, 7);
		ck_assert_int_eq(v.rpc_port, 50051);
	} else {
		ck_assert_msg(rc == -1, "accepted: %s", in);
		ck_assert_str_eq(err, cases[_i].err);
	}
}
END_TEST

START_TEST(test_view)
{
	struct ep_view v;
	char err[256];
	ck_assert_int_eq(epcheck(GOOD, strlen(GOOD), &v, err, sizeof err), 0);
	ck_assert_int_eq(v.ready, 1);
	ck_assert_str_eq(v.instance, "0a1b");
	ck_assert_str_eq(v.rpc_host, "10.0.0.5");
	ck_assert_str_eq(v.meta_host, "10.0.0.5");
	ck_assert_int_eq(v.meta_port, 8080);
	ck_assert_int_eq(epcheck("[]", 2, &v, err, sizeof err), -1);
	ck_assert_int_eq(epcheck("{", 1, &v, err, sizeof err), -1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("epcheck");
	TCase *tc = tcase_create("epcheck");
	tcase_add_loop_test(tc, test_check, 0, (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(tc, test_view);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
