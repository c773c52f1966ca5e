#include "config.h"
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include "atomicfile.h"
#include "cfg.h"
#include "tls.h"

#define TLS_FILE_MAX	(1024 * 1024)

static char *
read_pem(const char *key, const char *path, char *err, size_t errlen)
{
	size_t len = 0;
	char *s = file_read_at(AT_FDCWD, path, TLS_FILE_MAX, 0, &len), why[64];	/* read at a reload too: never a wait */
	if (s == NULL)
		snprintf(err, errlen, "%s: cannot read %s: %s", key, path, file_read_error(errno, TLS_FILE_MAX, why, sizeof why));
	else if (len == 0 || len > TLS_FILE_MAX || strlen(s) != len) {
		snprintf(err, errlen, "%s: %s is not a PEM file (empty, over 1 MiB, or binary)", key, path);
		free(s);
		s = NULL;
	}
	return s;
}

int
tls_load(const struct cfg *c, struct tls_pem *out, char *err, size_t errlen)
{
	struct tls_pem t = { NULL, NULL, NULL };
	gnutls_certificate_credentials_t cred = NULL;
	gnutls_datum_t cert, key, ca;
	int rc;

	if ((t.cert = read_pem("admin.tls.cert_file", c->admin.tls_cert_file, err, errlen)) == NULL ||
	    (t.key = read_pem("admin.tls.key_file", c->admin.tls_key_file, err, errlen)) == NULL ||
	    (c->admin.tls_client_ca_file[0] != '\0' &&
	    (t.ca = read_pem("admin.tls.client_ca_file", c->admin.tls_client_ca_file, err, errlen)) == NULL))
		goto fail;
	if (gnutls_certificate_allocate_credentials(&cred) != GNUTLS_E_SUCCESS) {
		snprintf(err, errlen, "admin.tls: GnuTLS cannot allocate credentials");
		goto fail;
	}
	cert = (gnutls_datum_t){ (unsigned char *)t.cert, (unsigned)strlen(t.cert) };
	key = (gnutls_datum_t){ (unsigned char *)t.key, (unsigned)strlen(t.key) };
	if ((rc = gnutls_certificate_set_x509_key_mem(cred, &cert, &key, GNUTLS_X509_FMT_PEM)) < 0) {
		snprintf(err, errlen, "admin.tls: cert_file %s and key_file %s: %s", c->admin.tls_cert_file,
		    c->admin.tls_key_file, gnutls_strerror(rc));
		goto fail;
	}
	if (t.ca != NULL) {
		ca = (gnutls_datum_t){ (unsigned char *)t.ca, (unsigned)strlen(t.ca) };
		if ((rc = gnutls_certificate_set_x509_trust_mem(cred, &ca, GNUTLS_X509_FMT_PEM)) <= 0) {
			snprintf(err, errlen, "admin.tls.client_ca_file: %s: %s", c->admin.tls_client_ca_file,
			    rc < 0 ? gnutls_strerror(rc) : "no certificate in it");
			goto fail;
		}
	}
	gnutls_certificate_free_credentials(cred);
	*out = t;
	return 0;
fail:
	if (cred != NULL)
		gnutls_certificate_free_credentials(cred);
	tls_pem_free(&t);
	return -1;
}

void
tls_pem_free(struct tls_pem *t)
{
	free(t->cert);
	free(t->key);
	free(t->ca);
	t->cert = t->key = t->ca = NULL;
}

int
tls_client_cred(const char *key, const char *ca_file, void **out, char *err, size_t errlen)
{
	gnutls_certificate_credentials_t cred;
	int rc;
	if (gnutls_certificate_allocate_credentials(&cred) != GNUTLS_E_SUCCESS) {
		snprintf(err, errlen, "GnuTLS cannot allocate credentials");
		return -1;
	}
	if (ca_file != NULL && ca_file[0] != '\0') {
		char *pem = read_pem(key, ca_file, err, errlen);
		gnutls_datum_t d;
		if (pem == NULL) {
			gnutls_certificate_free_credentials(cred);
			return -1;
		}
		d = (gnutls_datum_t){ (unsigned char *)pem, (unsigned)strlen(pem) };
		rc = gnutls_certificate_set_x509_trust_mem(cred, &d, GNUTLS_X509_FMT_PEM);
		free(pem);
		if (rc <= 0) {
			snprintf(err, errlen, "%s: %s: %s", key, ca_file, rc < 0 ? gnutls_strerror(rc) :
			    "no certificate in it");
			gnutls_certificate_free_credentials(cred);
			return -1;
		}
	} else if ((rc = gnutls_certificate_set_x509_system_trust(cred)) < 0) {
		snprintf(err, errlen, "the system's trusted CA certificates: %s", gnutls_strerror(rc));
		gnutls_certificate_free_credentials(cred);
		return -1;
	}
	*out = cred;
	return 0;
}

void
tls_client_cred_free(void *cred)
{
	if (cred != NULL)
		gnutls_certificate_free_credentials(cred);
}

int
tls_client_verified(void *session, char *why, size_t len)
{
	unsigned status = 0;
	int rc;
	if (session == NULL) {
		snprintf(why, len, "not a TLS connection");
		return -1;
	}
	unsigned n = 0;
	if (gnutls_certificate_get_peers(session, &n) == NULL || n == 0) {
		snprintf(why, len, "no client certificate");
		return -1;
	}
	if ((rc = gnutls_certificate_verify_peers2(session, &status)) < 0) {
		snprintf(why, len, "client certificate: %s", gnutls_strerror(rc));
		return -1;
	}
	if (status != 0) {
		gnutls_datum_t out;
		if (gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &out, 0) == 0) {
			snprintf(why, len, "client certificate: %s", (const char *)out.data);
			gnutls_free(out.data);
		} else
			snprintf(why, len, "client certificate not trusted");
		return -1;
	}
	return 0;
}
