#include "config.h"
#include <check.h>
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
	tcase_add_test(tc, test_inode);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
