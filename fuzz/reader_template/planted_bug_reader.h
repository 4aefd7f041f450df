/* fuzz/reader_template/planted_bug_reader.h: a tiny safetensors reader in C
 * with one bug planted on purpose, for the reader template's test: it lets
 * tensors overlap (the layout check looks for gaps only). Everything else it
 * checks as the format requires, and what it does not support (escapes and
 * non-ASCII in strings, dtypes other than the common ten, rank above 8) it
 * rejects, so the only divergence from stguard a campaign can find is the
 * planted one.
 *
 *   tiny_file f;
 *   const char* error = NULL;
 *   if (tiny_read(bytes, size, &f, &error) == 0) { ...f.tensors[i]...; tiny_free(&f); }
 */
#ifndef STGUARD_FUZZ_READER_TEMPLATE_PLANTED_BUG_READER_H_
#define STGUARD_FUZZ_READER_TEMPLATE_PLANTED_BUG_READER_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { TINY_MAX_RANK = 8 };

typedef struct {
  char* name; /* NUL-terminated, owned */
  const char* dtype;
  uint64_t shape[TINY_MAX_RANK];
  size_t rank;
  uint64_t begin, end; /* relative to data */
} tiny_tensor;

typedef struct {
  tiny_tensor* tensors;
  size_t count;
  const uint8_t* data; /* points into the caller's bytes */
  uint64_t data_len;
} tiny_file;

/* 0 on success (free with tiny_free), -1 with *error set on rejection. */
int tiny_read(const uint8_t* bytes, size_t size, tiny_file* out, const char** error);
void tiny_free(tiny_file* file);

#ifdef __cplusplus
}
#endif

#endif /* STGUARD_FUZZ_READER_TEMPLATE_PLANTED_BUG_READER_H_ */
