#include "config.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "workerenv.h"
#include "xalloc.h"
#include "unit.h"

/* srtctl's vectors (get_mooncake_worker_env("10.0.0.1", "10.0.0.42") with its ports 8700/8701). */
static const struct master_addr m = { "10.0.0.1", 8700, 8701 };

static char *
flat(const struct kvlist *l)
{
	char *s = xstrdup("");
	for (size_t i = 0; i < l->n; i++) {
		char *t = xasprintf("%s%s=%s;", s, l->v[i].key, l->v[i].value);
		free(s);
		s = t;
	}
	return s;
}

static void
check_env(const char *flavor, const struct kvlist *user, const char *want)
{
	struct kvlist env = { 0 };
	char *got;
	workerenv_build(&env, flavor, &m, "/logs/mooncake_store_config.json", "10.0.0.42", user);
	got = flat(&env);
	ck_assert_str_eq(got, want);
	free(got);
	kvlist_clear(&env);
}

START_TEST(test_sglang_empty)
{
	check_env("sglang", NULL, "MOONCAKE_LOCAL_HOSTNAME=10.0.0.42;MOONCAKE_MASTER=10.0.0.1:8700;"
	    "MOONCAKE_TE_META_DATA_SERVER=http://10.0.0.1:8701/metadata;");
}
END_TEST

START_TEST(test_vllm_empty)
{
	check_env("vllm", NULL, "MOONCAKE_LOCAL_HOSTNAME=10.0.0.42;MOONCAKE_MASTER=10.0.0.1:8700;"
	    "MOONCAKE_TE_META_DATA_SERVER=http://10.0.0.1:8701/metadata;"
	    "MOONCAKE_CONFIG_PATH=/logs/mooncake_store_config.json;");
}
END_TEST

START_TEST(test_overrides)
{
	struct kvlist user = { 0 };
	kvlist_set(&user, "MOONCAKE_MASTER", "should-be-ignored:9999");
	kvlist_set(&user, "MOONCAKE_TE_META_DATA_SERVER", "http://nope/metadata");
	kvlist_set(&user, "MOONCAKE_CONFIG_PATH", "/nope.json");
	kvlist_set(&user, "MOONCAKE_PROTOCOL", "rdma");
	check_env("vllm", &user, "MOONCAKE_LOCAL_HOSTNAME=10.0.0.42;MOONCAKE_MASTER=10.0.0.1:8700;"
	    "MOONCAKE_TE_META_DATA_SERVER=http://10.0.0.1:8701/metadata;"
	    "MOONCAKE_CONFIG_PATH=/logs/mooncake_store_config.json;MOONCAKE_PROTOCOL=rdma;");
	kvlist_clear(&user);
	kvlist_set(&user, "MOONCAKE_LOCAL_HOSTNAME", "custom-rdma-nic");
	check_env("sglang", &user, "MOONCAKE_LOCAL_HOSTNAME=custom-rdma-nic;MOONCAKE_MASTER=10.0.0.1:8700;"
	    "MOONCAKE_TE_META_DATA_SERVER=http://10.0.0.1:8701/metadata;");
	kvlist_clear(&user);
}
END_TEST

START_TEST(test_no_metadata_server_and_ipv6)
{
	struct kvlist env = { 0 };
	struct master_addr v6 = { "fd00::1", 50051, 0 };
	char *got;
	workerenv_build(&env, "sglang", &v6, "", "fd00::42", NULL);
	got = flat(&env);
	ck_assert_str_eq(got, "MOONCAKE_LOCAL_HOSTNAME=fd00::42;MOONCAKE_MASTER=[fd00::1]:50051;");
	free(got);
	kvlist_clear(&env);
}
END_TEST

static void
check_store(const char *in, const char *want)
{
	json_error_t je;
	json_t *j = in ? json_loads(in, 0, &je) : NULL;
	char *got = workerenv_store_config(j, &m);
	ck_assert_str_eq(got, want);
	free(got);
	json_decref(j);
}

START_TEST(test_store_config)
{
	check_store(NULL, "{\n  \"master_server_address\": \"10.0.0.1:8700\"\n}");
	check_store("{\"metadata_server\":\"http://my-metadata:9000\",\"master_server_address\":"
	    "\"this-should-be-overridden:1\",\"global_segment_size\":\"100GB\",\"local_buffer_size\":\"8GB\","
	    "\"protocol\":\"tcp\",\"device_name\":\"mlx5_0\"}",
	    "{\n  \"metadata_server\": \"http://my-metadata:9000\",\n  \"master_server_address\": "
	    "\"10.0.0.1:8700\",\n  \"global_segment_size\": \"100GB\",\n  \"local_buffer_size\": \"8GB\",\n"
	    "  \"protocol\": \"tcp\",\n  \"device_name\": \"mlx5_0\"\n}");
	check_store("{\"new_upstream_field\":\"some_value\",\"another_new_field\":42}",
	    "{\n  \"new_upstream_field\": \"some_value\",\n  \"another_new_field\": 42,\n"
	    "  \"master_server_address\": \"10.0.0.1:8700\"\n}");
	check_store("{\"nested\":{\"a\":[1,2.5,true,null]},\"name\":\"caf\\u00e9\"}",
	    "{\n  \"nested\": {\n    \"a\": [\n      1,\n      2.5,\n      true,\n      null\n    ]\n  },\n"
	    "  \"name\": \"caf\\u00E9\",\n  \"master_server_address\": \"10.0.0.1:8700\"\n}");
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("workerenv");
	TCase *tc = tcase_create("workerenv");
	tcase_add_test(tc, test_sglang_empty);
	tcase_add_test(tc, test_vllm_empty);
	tcase_add_test(tc, test_overrides);
	tcase_add_test(tc, test_no_metadata_server_and_ipv6);
	tcase_add_test(tc, test_store_config);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
