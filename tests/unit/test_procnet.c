#include "config.h"
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "procnet.h"
#include "unit.h"

/* Real /proc/net/tcp lines: 127.0.0.1:50051 (C383) listening, 0.0.0.0:8080 (1F90) listening,
 * an established connection to 50051 and a TIME_WAIT on 9003 (232B). */
static const char tcp[] =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    "   0: 0100007F:C383 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0000000000000000 100 0 0 10 0\n"
    "   1: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5151 1 0000000000000000 100 0 0 10 0\n"
    "   2: 0100007F:D6D8 0100007F:C383 01 00000000:00000000 00:00000000 00000000     0        0 6161 1 0000000000000000 20 4 30 10 -1\n"
    "   3: 0100007F:232B 0100007F:D6DA 06 00000000:00000000 03:00001770 00000000     0        0 0 3 0000000000000000\n";
static const char tcp6[] =
    "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    "   0: 00000000000000000000000000000000:232B 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 7777 1 0000000000000000 100 0 0 10 0\n";

START_TEST(test_listeners)
{
	unsigned long in[4];
	ck_assert_uint_eq(procnet_listeners(tcp, 50051, in, 4), 1);
	ck_assert_uint_eq(in[0], 4242);
	ck_assert_uint_eq(procnet_listeners(tcp, 8080, in, 4), 1);
	ck_assert_uint_eq(in[0], 5151);
	ck_assert_uint_eq(procnet_listeners(tcp, 9003, in, 4), 0);	/* TIME_WAIT is not a listener */
	ck_assert_uint_eq(procnet_listeners(tcp, 55000, in, 4), 0);	/* client side of a connection */
	ck_assert_uint_eq(procnet_listeners(tcp6, 9003, in, 4), 1);
	ck_assert_uint_eq(in[0], 7777);
	ck_assert_uint_eq(procnet_listeners("header only\n", 1, in, 4), 0);
	ck_assert_uint_eq(procnet_listeners("", 1, in, 4), 0);
}
END_TEST

/* The server side of a client's connection: local port 50051 established (line 2 is the client's
 * side, local 55000; it counts for 55000, not for 50051). */
START_TEST(test_established)
{
	static const char srv[] =
	    "   4: 0100007F:C383 0100007F:D6D8 01 00000000:00000000 00:00000000 00000000     0        0 6262 1 0000000000000000 20 4 30 10 -1\n";
	char both[sizeof tcp + sizeof srv];
	ck_assert_uint_eq(procnet_established(tcp, 50051), 0);	/* a listener is not a client */
	ck_assert_uint_eq(procnet_established(tcp, 55000), 1);
	ck_assert_uint_eq(procnet_established(tcp, 9003), 0);	/* TIME_WAIT is gone */
	snprintf(both, sizeof both, "%s%s", tcp, srv);
	ck_assert_uint_eq(procnet_established(both, 50051), 1);
	ck_assert_uint_eq(procnet_established("", 50051), 0);
	for (size_t n = 0; n < sizeof both - 1; n++) {	/* every cut: no crash, no more than whole lines */
		char cut[sizeof both];
		memcpy(cut, both, n);
		cut[n] = '\0';
		ck_assert_uint_le(procnet_established(cut, 50051), 1);
	}
}
END_TEST

START_TEST(test_inode)
{
	ck_assert_uint_eq(procnet_socket_inode("socket:[123456]"), 123456);
	ck_assert_uint_eq(procnet_socket_inode("pipe:[99]"), 0);
	ck_assert_uint_eq(procnet_socket_inode("/dev/null"), 0);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("procnet");
	TCase *tc = tcase_create("procnet");
	tcase_add_test(tc, test_listeners);
	tcase_add_test(tc, test_established);
	tcase_add_test(tc, test_inode);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
