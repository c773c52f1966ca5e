#ifndef DAEMON_TLS_H
#define DAEMON_TLS_H
#include <stddef.h>

struct cfg;

/* admin.tls: the PEM of the certificate (chain), the key and the client CA, read from their files
 * and checked together with GnuTLS (before the loop, and again at SIGHUP). */
struct tls_pem {
	char	*cert, *key, *ca;	/* ca NULL: no client certificates asked for */
};

/* 0 with t filled, -1 with err naming the key and GnuTLS's reason; t is untouched then. */
int	tls_load(const struct cfg *, struct tls_pem *, char *, size_t);
void	tls_pem_free(struct tls_pem *);
/* Credentials for speaking https to other sidecars (and --status): trust the CA certificates of
 * ca_file (PEM), or the system's when it is "" or NULL; key names where ca_file came from
 * ("master.ca_file", "--cacert"). 0 with *cred (gnutls certificate credentials), or -1 with err
 * naming the file. */
int	tls_client_cred(const char *, const char *, void **, char *, size_t);
void	tls_client_cred_free(void *);
/* Did the peer of this GnuTLS session present a certificate that the client CA signed? 0, or -1
 * with why. */
int	tls_client_verified(void *, char *, size_t);
#endif
