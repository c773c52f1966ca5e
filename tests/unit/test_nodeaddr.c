/* The address a node's workers bind and dial: srtctl's rules (core/ip_utils/get_node_ip.sh: the
 * first address of the interface that is not empty, 0.0.0.0, 127.* or 169.254.*, an RFC 1918 one
 * first), a fake resolver and fake interfaces, and what a leader's /status must say. */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "addrkey.h"
#include "nodeaddr.h"
#include "unit.h"

/* The fake resolver: "name=ip,ip;name=..." ; a name not listed does not resolve. */
static int
fake_resolve(const char *name, char (*out)[NODEADDR_LEN], size_t max, char *err, size_t errlen, void *arg)
{
	const char *p = arg;
	size_t nl = strlen(name);
	int n = 0;
	while (p != NULL && *p) {
		const char *end = strchr(p, ';');
		if (strncmp(p, name, nl) == 0 && p[nl] == '=') {
			p += nl + 1;
			while (p < (end ? end : p + strlen(p)) && (size_t)n < max) {
				size_t l = strcspn(p, ",;");
				snprintf(out[n++], NODEADDR_LEN, "%.*s", (int)l, p);
				p += l + (p[l] == ',');
			}
			return n;
		}
		p = end ? end + 1 : NULL;
	}
	snprintf(err, errlen, "Name or service not known");
	return -1;
}

static const struct nodeaddr_if ifs[] = {
	{ "lo", "127.0.0.1" }, { "eth0", "198.51.100.7" }, { "ib0", "169.254.3.3" }, { "ib0", "10.1.2.3" },
	{ "ib1", "169.254.9.9" },
};
#define NIFS	(sizeof ifs / sizeof ifs[0])
#define HOSTS	"n1=127.0.1.1;n2=10.0.0.2;n3=127.0.0.1,203.0.113.9,192.168.1.3;n4=169.254.1.1,0.0.0.0"

static const struct {
	const char	*node;
	int		 self;
	const char	*iface;
	int		 quality;
	const char	*addr, *source;
	int		 ok;	/* nodeaddr_check in a multi-node job */
} cases[] = {
	/* Debian's /etc/hosts maps the machine's own name to 127.0.1.1: not what other nodes dial. */
	{ "n1", 1, "", NODEADDR_LOOPBACK, "10.1.2.3", "interface ib0 (the name n1 resolves only to 127.0.1.1)", 0 },
	{ "n1", 0, "", NODEADDR_LOOPBACK, "127.0.1.1", "the name n1 resolves only to it", 0 },
	{ "n2", 0, "", NODEADDR_GOOD, "10.0.0.2", "the name n2 resolves to it", 1 },
	{ "n2", 1, "", NODEADDR_GOOD, "10.0.0.2", "the name n2 resolves to it", 1 },
	/* A private address before a public one, loopback never. */
	{ "n3", 0, "", NODEADDR_GOOD, "192.168.1.3", "the name n3 resolves to it", 1 },
	{ "n4", 0, "", NODEADDR_LOOPBACK, "169.254.1.1", "the name n4 resolves only to it", 0 },
	{ "gpu-07", 0, "", NODEADDR_UNRESOLVED, "gpu-07",
	  "unresolved (Name or service not known): the name is used as it is", 0 },
	/* The interface decides, whatever the name resolves to; link-local is skipped. */
	{ "n1", 1, "ib0", NODEADDR_GOOD, "10.1.2.3", "interface ib0", 1 },
	{ "n1", 1, "eth0", NODEADDR_GOOD, "198.51.100.7", "interface eth0", 1 },
	{ "n1", 1, "ib1", NODEADDR_NO_IFACE, "n1", "interface ib1: no usable IPv4 address on it", 0 },
	{ "n1", 1, "lo", NODEADDR_NO_IFACE, "n1", "interface lo: no usable IPv4 address on it", 0 },
	{ "n1", 1, "ens9", NODEADDR_NO_IFACE, "n1", "interface ens9: no usable IPv4 address on it", 0 },
	/* Another node's interface: only its own sidecar can say. */
	{ "n2", 0, "ib0", NODEADDR_REMOTE, "n2", "interface ib0 of n2: its sidecar names it", 1 },
};

START_TEST(test_decide)
{
	struct nodeaddr a;
	char err[512] = "";
	nodeaddr_decide(cases[_i].node, cases[_i].self, cases[_i].iface, ifs, NIFS, fake_resolve, HOSTS, &a);
	ck_assert_int_eq(a.quality, cases[_i].quality);
	ck_assert_str_eq(a.addr, cases[_i].addr);
	ck_assert_str_eq(a.source, cases[_i].source);
	ck_assert_int_eq(nodeaddr_check(&a, cases[_i].node, cases[_i].iface, err, sizeof err) == 0, cases[_i].ok);
	if (!cases[_i].ok)
		ck_assert_msg(strstr(err, cases[_i].node) != NULL, "the error names the node: %s", err);
}
END_TEST

START_TEST(test_check_messages)
{
	struct nodeaddr a;
	char err[512];
	nodeaddr_decide("n1", 1, "", ifs, NIFS, fake_resolve, HOSTS, &a);
	nodeaddr_check(&a, "n1", "", err, sizeof err);
	ck_assert_str_eq(err, "job.nodes: node n1 has no address other nodes can reach (interface ib0 (the name n1 "
	    "resolves only to 127.0.1.1)); set job.network_interface to the interface its workers use, or make "
	    "the name resolve to a routable address");
	nodeaddr_decide("n1", 1, "ib1", ifs, NIFS, fake_resolve, HOSTS, &a);
	nodeaddr_check(&a, "n1", "ib1", err, sizeof err);
	ck_assert_str_eq(err, "job.network_interface: node n1 has no usable IPv4 address on interface ib1");
	/* No interface but loopback: the loopback answer stays (a single-node job may use it). */
	nodeaddr_decide("n1", 1, "", ifs, 1, fake_resolve, HOSTS, &a);
	ck_assert_str_eq(a.addr, "127.0.1.1");
}
END_TEST

START_TEST(test_usable)
{
	static const char *const bad[] = { "", "0.0.0.0", "127.0.0.1", "127.255.0.9", "169.254.0.1", "1.2.3",
		"1.2.3.4.5", "256.1.1.1", "1.2.3.4 ", "01234.1.1.1", "a.b.c.d", "::1", "fe80::1", "1..2.3" };
	static const char *const good[] = { "10.0.0.1", "1.2.3.4", "169.253.0.1", "128.0.0.1", "255.255.255.255" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(!nodeaddr_usable(bad[i]), "%s", bad[i]);
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		ck_assert_msg(nodeaddr_usable(good[i]), "%s", good[i]);
	const char *ips[] = { "127.0.0.1", "203.0.113.1", "172.16.0.1", "172.32.0.1" };
	ck_assert_int_eq(nodeaddr_pick(ips, 4), 2);
	ck_assert_int_eq(nodeaddr_pick(ips, 2), 1);
	ck_assert_int_eq(nodeaddr_pick(ips, 1), -1);
	ck_assert_int_eq(nodeaddr_pick(ips, 0), -1);
}
END_TEST

static const struct {
	const char	*body;
	const char	*addr, *err;
} statuses[] = {
	{ "{\"node\":\"n1\",\"node_address\":{\"address\":\"10.1.2.3\",\"source\":\"interface ib0\"}}", "10.1.2.3", NULL },
	{ "{\"node_address\":{\"address\":\"127.0.1.1\"}}", NULL,
	  "/status names node_address \"127.0.1.1\", not a usable IPv4 address" },
	{ "{\"node_address\":{\"address\":\"n1\"}}", NULL, "/status names node_address \"n1\", not a usable IPv4 address" },
	{ "{\"node_address\":{\"address\":5}}", NULL, "/status names no node_address.address" },
	{ "{\"node_address\":\"10.1.2.3\"}", NULL, "/status names no node_address.address" },
	{ "{\"node\":\"n1\"}", NULL, "/status names no node_address.address" },
	{ "[1]", NULL, "/status names no node_address.address" },
};

START_TEST(test_from_status)
{
	char addr[NODEADDR_LEN] = "", err[256] = "";
	int rc = nodeaddr_from_status(statuses[_i].body, strlen(statuses[_i].body), addr, sizeof addr, err, sizeof err);
	if (statuses[_i].addr != NULL) {
		ck_assert_msg(rc == 0, "%s", err);
		ck_assert_str_eq(addr, statuses[_i].addr);
	} else {
		ck_assert_int_eq(rc, -1);
		ck_assert_str_eq(err, statuses[_i].err);
	}
}
END_TEST

/* A body cut at every byte is refused cleanly (the client hands over whole bodies only). */
START_TEST(test_from_status_truncated)
{
	const char *body = statuses[0].body;
	char addr[NODEADDR_LEN], err[256];
	for (size_t n = 0; n < strlen(body); n++)
		ck_assert_int_eq(nodeaddr_from_status(body, n, addr, sizeof addr, err, sizeof err), -1);
	ck_assert_int_eq(nodeaddr_from_status(body, strlen(body), addr, 4, err, sizeof err), -1);
}
END_TEST

/* Whom the per-address connection limit counts as one: an IPv4 address; an IPv6 /64 (every
 * address of one subnet is one client); an IPv4-mapped IPv6 address as its IPv4 address. */
static struct addrkey
key_of(const char *ip)
{
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
	if (inet_pton(AF_INET, ip, &s4.sin_addr) == 1)
		return addrkey_of((struct sockaddr *)&s4, sizeof s4);
	ck_assert_int_eq(inet_pton(AF_INET6, ip, &s6.sin6_addr), 1);
	return addrkey_of((struct sockaddr *)&s6, sizeof s6);
}

START_TEST(test_addrkey)
{
	struct addrkey a = key_of("2001:db8:1:2::1"), b = key_of("2001:db8:1:2:ffff:ffff:ffff:ffff"),
	    c = key_of("2001:db8:1:3::1"), d = key_of("192.0.2.7"), e = key_of("::ffff:192.0.2.7"),
	    f = key_of("192.0.2.8"), g = key_of("::1"), h = key_of("::2");
	struct sockaddr_un { sa_family_t f; char p[8]; } un = { AF_UNIX, "x" };
	struct addrkey z = addrkey_of((struct sockaddr *)&un, sizeof un), s4 = key_of("0.0.0.0");
	ck_assert(addrkey_eq(&a, &b));			/* one /64 */
	ck_assert_uint_eq(addrkey_hash(&a), addrkey_hash(&b));
	ck_assert(!addrkey_eq(&a, &c));			/* the next /64 */
	ck_assert(addrkey_eq(&d, &e));			/* mapped */
	ck_assert_int_eq(e.family, AF_INET);
	ck_assert(!addrkey_eq(&d, &f));
	ck_assert(addrkey_eq(&g, &h));			/* ::/64 */
	ck_assert_int_eq(z.family, 0);			/* not limited */
	ck_assert_int_eq(addrkey_of(NULL, 0).family, 0);
	ck_assert_int_eq(addrkey_of((struct sockaddr *)&un, 2).family, 0);
	ck_assert(!addrkey_eq(&s4, &g));		/* 0.0.0.0 and ::/64: both 0 bits, not one family */
	ck_assert_int_eq(key_of("2001:db8::1").family, AF_INET6);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("nodeaddr");
	TCase *tc = tcase_create("nodeaddr");
	tcase_add_loop_test(tc, test_decide, 0, (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(tc, test_check_messages);
	tcase_add_test(tc, test_addrkey);
	tcase_add_test(tc, test_usable);
	tcase_add_loop_test(tc, test_from_status, 0, (int)(sizeof statuses / sizeof statuses[0]));
	tcase_add_test(tc, test_from_status_truncated);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
