#include "config.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "workerenv.h"
#include "xalloc.h"
#include "unit.h"

/* srtctl's vectors (get_mooncake_worker_env("10.0.0.1", "10.0.0.42") with its ports 8700/8701). */
static const struct master_addr m = { "10.0.0.1", 8700, 8701, NULL };

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
	struct master_addr v6 = { "fd00::1", 50051, 0, NULL };
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
	char *got = workerenv_store_config(j, &m, NULL);
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

/* The sidecar's two additions: the node's local_hostname unless the config names one, and the
 * master's metadata URL for "{metadata_url}" (left as it is without a metadata server). */
START_TEST(test_store_config_additions)
{
	json_t *j = json_loads("{\"metadata_server\":\"{metadata_url}\",\"protocol\":\"tcp\"}", 0, NULL);
	struct master_addr nometa = { "10.0.0.1", 8700, 0, NULL };
	char *s = workerenv_store_config(j, &m, "10.0.0.42");
	ck_assert_str_eq(s, "{\n  \"metadata_server\": \"http://10.0.0.1:8701/metadata\",\n  \"protocol\": \"tcp\",\n"
	    "  \"master_server_address\": \"10.0.0.1:8700\",\n  \"local_hostname\": \"10.0.0.42\"\n}");
	free(s);
	s = workerenv_store_config(j, &nometa, NULL);
	ck_assert_str_eq(s, "{\n  \"metadata_server\": \"{metadata_url}\",\n  \"protocol\": \"tcp\",\n"
	    "  \"master_server_address\": \"10.0.0.1:8700\"\n}");
	free(s);
	json_decref(j);
	j = json_loads("{\"local_hostname\":\"rdma-nic-0\"}", 0, NULL);
	s = workerenv_store_config(j, &m, "10.0.0.42");
	ck_assert_str_eq(s, "{\n  \"local_hostname\": \"rdma-nic-0\",\n  \"master_server_address\": \"10.0.0.1:8700\"\n}");
	free(s);
	json_decref(j);
}
END_TEST

/* The HA entry as mooncake_master resolves its flags (master.cpp ResolveHABackendConnstring). */
START_TEST(test_ha_entry)
{
	static const struct { const char *args[6]; int rc; const char *entry; } cases[] = {
		{ { "--rpc_port=1", NULL }, 0, "" },
		{ { "--enable_ha=false", "--etcd_endpoints=e:2379", NULL }, 0, "" },
		{ { "--enable_ha", "--noenable_ha", "--etcd_endpoints=e:2379", NULL }, 0, "" },
		{ { "--enable_ha=true", "--etcd_endpoints=h1:2379;h2:2379", NULL }, 1, "etcd://h1:2379;h2:2379" },
		{ { "-enable_ha", "-etcd_endpoints", "h1:2379", NULL }, 1, "etcd://h1:2379" },
		{ { "--enable_ha=1", "--etcd_endpoints=e:1", "--ha_backend_connstring=c:2", NULL }, 1, "etcd://c:2" },
		{ { "--enable_ha", "--ha_backend_type=redis", "--ha_backend_connstring=r:6379", NULL }, 1, "redis://r:6379" },
		{ { "--enable_ha", "--ha_backend_type=redis", "--etcd_endpoints=e:2379", NULL }, -1, "" },
		{ { "--enable_ha=true", NULL }, -1, "" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char out[512] = "", err[300] = "";
		int rc = workerenv_ha_entry((char *const *)cases[i].args, out, sizeof out, err, sizeof err);
		ck_assert_msg(rc == cases[i].rc, "case %zu: %d (%s)", i, rc, err);
		if (rc == 1)
			ck_assert_str_eq(out, cases[i].entry);
		if (rc < 0)
			ck_assert_ptr_nonnull(strstr(err, "--etcd_endpoints"));
	}
}
END_TEST

/* With an entry, MOONCAKE_MASTER and master_server_address carry it, not the leader's address. */
START_TEST(test_ha_files)
{
	struct master_addr ha = { "10.0.0.1", 8700, 8701, "etcd://h1:2379;h2:2379" };
	struct kvlist env = { 0 };
	json_t *sc = json_object();
	char *s;
	workerenv_build(&env, "vllm", &ha, "/c.json", "10.0.0.42", NULL);
	ck_assert_str_eq(kvlist_get(&env, "MOONCAKE_MASTER"), "etcd://h1:2379;h2:2379");
	ck_assert_str_eq(kvlist_get(&env, "MOONCAKE_TE_META_DATA_SERVER"), "http://10.0.0.1:8701/metadata");
	s = workerenv_store_config(sc, &ha, NULL);
	ck_assert_str_eq(s, "{\n  \"master_server_address\": \"etcd://h1:2379;h2:2379\"\n}");
	free(s);
	json_decref(sc);
	kvlist_clear(&env);
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
	tcase_add_test(tc, test_store_config_additions);
	tcase_add_test(tc, test_ha_entry);
	tcase_add_test(tc, test_ha_files);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
