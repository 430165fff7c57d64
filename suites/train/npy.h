/* suites/train/npy.h - NumPy .npy files (format version 1.0), written whole.
 *
 * Layout: the magic "\x93NUMPY", version 1.0, a little-endian uint16 header
 * length, then an ASCII dict {'descr': '<f4', 'fortran_order': False,
 * 'shape': (64, 3, 28, 28), } padded with spaces and ended by '\n' so the
 * data starts at a multiple of 64 bytes, then the C-order data. numpy.load
 * and torch.from_numpy read it as is.
 */
#ifndef SUITES_TRAIN_NPY_H
#define SUITES_TRAIN_NPY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes path (a new file: temporary + rename, every write and close
 * checked). descr: "<f4" (float32) or "<i8" (int64); ndim 0 is a scalar.
 * data holds prod(shape) elements of the dtype, little-endian. 0, or -1 with
 * err_set naming the file and the reason. */
int npy_write(const char *path, const char *descr, int ndim, const long long *shape,
              const void *data, size_t bytes);

/* Reads back a file npy_write wrote (for tests): checks magic, version and
 * descr, fills shape (up to 8 dims) and returns the data (malloc'd; NULL with
 * err_set on any mismatch). */
void *npy_read(const char *path, const char *descr, int *ndim, long long *shape, size_t *bytes);

#ifdef __cplusplus
}
#endif
#endif
