/* Cold X509_verify_cert rate against the system libssl, for bench/run.sh.
 * Each iteration parses the leaf and intermediate DER, as a TLS client does with a fresh handshake; the
 * root store is built once, as our anchors are. usage: openssl_verify DIR HOST SECONDS */
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned char *slurp(const char *dir, const char *name, long *len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END); *len = ftell(f); rewind(f);
    unsigned char *buf = malloc(*len);
    if (!buf || fread(buf, 1, *len, f) != (size_t)*len) { fprintf(stderr, "cannot read %s\n", path); exit(2); }
    fclose(f);
    return buf;
}

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

static int verify_once(X509_STORE *store, const unsigned char *leaf, long leaf_len, const unsigned char *inter,
                       long inter_len, const char *host) {
    const unsigned char *p = leaf, *q = inter;
    X509 *l = d2i_X509(NULL, &p, leaf_len), *i = d2i_X509(NULL, &q, inter_len);
    STACK_OF(X509) *untrusted = sk_X509_new_null();
    sk_X509_push(untrusted, i);
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    X509_STORE_CTX_init(ctx, store, l, untrusted);
    X509_VERIFY_PARAM *param = X509_STORE_CTX_get0_param(ctx);
    X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER);
    X509_VERIFY_PARAM_set1_host(param, host, 0);
    int ok = X509_verify_cert(ctx);
    X509_STORE_CTX_free(ctx);
    sk_X509_pop_free(untrusted, X509_free);
    X509_free(l);
    return ok == 1;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s DIR HOST SECONDS\n", argv[0]); return 2; }
    long leaf_len, inter_len, root_len;
    unsigned char *leaf = slurp(argv[1], "leaf.der", &leaf_len);
    unsigned char *inter = slurp(argv[1], "intermediate.der", &inter_len);
    unsigned char *root = slurp(argv[1], "root.der", &root_len);
    const unsigned char *r = root;
    X509 *root_cert = d2i_X509(NULL, &r, root_len);
    X509_STORE *store = X509_STORE_new();
    X509_STORE_add_cert(store, root_cert);
    double seconds = atof(argv[3]);
    for (int k = 0; k < 20; k++)
        if (!verify_once(store, leaf, leaf_len, inter, inter_len, argv[2])) { fprintf(stderr, "chain not trusted by OpenSSL\n"); return 1; }
    long n = 0;
    double start = now(), elapsed;
    do {
        for (int k = 0; k < 50; k++) verify_once(store, leaf, leaf_len, inter, inter_len, argv[2]);
        n += 50;
        elapsed = now() - start;
    } while (elapsed < seconds);
    printf("%.0f\n", n / elapsed);
    return 0;
}
