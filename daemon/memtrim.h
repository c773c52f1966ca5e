#ifndef DAEMON_MEMTRIM_H
#define DAEMON_MEMTRIM_H

/* Give back the resident pages of shared libraries the sidecar links but never calls (GnuTLS and
 * its chain, pulled in by libmicrohttpd's HTTPS support; the journal compressors pulled in by
 * libsystemd). Only clean file pages are reclaimed (MADV_PAGEOUT); if a page is ever needed it is
 * read back. Returns how many KiB left the resident set. */
long	memtrim_unused_libraries(void);
#endif
