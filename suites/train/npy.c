/* suites/train/npy.c - NumPy .npy files, format 1.0 (see npy.h). */
#define _POSIX_C_SOURCE 200809L
#include "npy.h"
#include "errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char MAGIC[] = "\x93NUMPY";

/* The header: magic, version, length, dict padded so data starts at 64k. */
static int header(char *out, size_t cap, const char *descr, int ndim, const long long *shape)
{
    char dict[512], dims[256] = "";
    size_t used = 0;
    for (int i = 0; i < ndim; i++) {
        int w = snprintf(dims + used, sizeof dims - used, "%lld,%s", shape[i],
                         i + 1 < ndim ? " " : "");
        if (w < 0 || (size_t)w >= sizeof dims - used) return -1;
        used += (size_t)w;
    }
    if (ndim > 1) dims[used - 1] = '\0';   /* (2, 3) but (5,) for one dim */
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                     descr, dims);
    if (n < 0 || (size_t)n >= sizeof dict) return -1;
    size_t total = (10 + (size_t)n + 1 + 63) / 64 * 64;   /* + '\n' */
    size_t hlen = total - 10;
    if (total > cap || hlen > 65535) return -1;
    memcpy(out, MAGIC, 6);
    out[6] = 1;
    out[7] = 0;
    out[8] = (char)(hlen & 0xff);
    out[9] = (char)(hlen >> 8);
    memcpy(out + 10, dict, (size_t)n);
    memset(out + 10 + n, ' ', hlen - (size_t)n - 1);
    out[total - 1] = '\n';
    return (int)total;
}

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = (const char *)p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w == 0) errno = EIO;   /* write(2) wrote nothing and said nothing */
        if (w <= 0) return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

int npy_write(const char *path, const char *descr, int ndim, const long long *shape,
              const void *data, size_t bytes)
{
    char hdr[1024], tmp[4200];
    int hn = header(hdr, sizeof hdr, descr, ndim, shape);
    if (hn < 0) {
        err_set("%s: .npy header too long", path);
        return -1;
    }
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp) {
        err_set("%s: name too long", path);
        return -1;
    }
    /* errors name the file asked for; its temporary is removed */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
    if (fd < 0) {
        err_set("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    if (write_all(fd, hdr, (size_t)hn) || write_all(fd, data, bytes)) {
        err_set("cannot write %s: %s", path, strerror(errno));
        close(fd);
        unlink(tmp);
        return -1;
    }
    if (close(fd) != 0) {
        err_set("cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        err_set("cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

void *npy_read(const char *path, const char *descr, int *ndim, long long *shape, size_t *bytes)
{
    FILE *f = fopen(path, "rb");
    unsigned char pre[10];
    char dict[65536], want[64];
    void *data = NULL;
    if (!f) {
        err_set("cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, MAGIC, 6) != 0 || pre[6] != 1 || pre[7] != 0) {
        err_set("%s: not a version 1.0 .npy file", path);
        goto out;
    }
    size_t hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    if ((10 + hlen) % 64 != 0 || fread(dict, 1, hlen, f) != hlen || dict[hlen - 1] != '\n') {
        err_set("%s: bad header (length %zu)", path, hlen);
        goto out;
    }
    dict[hlen] = '\0';
    snprintf(want, sizeof want, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    if (strncmp(dict, want, strlen(want)) != 0) {
        err_set("%s: header '%.80s' is not %s, C order", path, dict, descr);
        goto out;
    }
    size_t elem = 1, esize = strcmp(descr, "<i8") == 0 ? 8 : 4;
    char *p = dict + strlen(want);
    *ndim = 0;
    while (*p != ')') {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || *ndim >= 8) {
            err_set("%s: bad shape in '%.80s'", path, dict);
            goto out;
        }
        shape[(*ndim)++] = v;
        elem *= (size_t)v;
        p = end;
        while (*p == ',' || *p == ' ') p++;
    }
    *bytes = elem * esize;
    data = malloc(*bytes ? *bytes : 1);
    if (!data || fread(data, 1, *bytes, f) != *bytes || fgetc(f) != EOF) {
        err_set("%s: data is not %zu bytes", path, *bytes);
        free(data);
        data = NULL;
    }
out:
    fclose(f);
    return data;
}
