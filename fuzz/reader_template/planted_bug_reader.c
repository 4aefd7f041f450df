/* fuzz/reader_template/planted_bug_reader.c: see planted_bug_reader.h. */
#include "planted_bug_reader.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const uint8_t* p;
  const uint8_t* end;
} cursor;

static const struct {
  const char* name;
  uint64_t size;
} kDtypes[] = {{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8},
               {"I32", 4}, {"I16", 2}, {"I8", 1},  {"U8", 1},   {"BOOL", 1}};

static void skip_blanks(cursor* c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) {
    ++c->p;
  }
}

static int expect(cursor* c, char ch) {
  skip_blanks(c);
  if (c->p >= c->end || *c->p != (uint8_t)ch) return -1;
  ++c->p;
  return 0;
}

/* A string of printable ASCII without escapes, copied into a new buffer. */
static char* read_string(cursor* c) {
  if (expect(c, '"') != 0) return NULL;
  const uint8_t* start = c->p;
  while (c->p < c->end && *c->p != '"') {
    if (*c->p < 0x20 || *c->p > 0x7e || *c->p == '\\') return NULL;
    ++c->p;
  }
  if (c->p >= c->end) return NULL;
  size_t length = (size_t)(c->p - start);
  ++c->p;
  char* text = malloc(length + 1);
  if (text == NULL) return NULL;
  memcpy(text, start, length);
  text[length] = '\0';
  return text;
}

/* A JSON integer in 0..2^64-1 without a sign, fraction or exponent. */
static int read_u64(cursor* c, uint64_t* value) {
  skip_blanks(c);
  if (c->p >= c->end || *c->p < '0' || *c->p > '9') return -1;
  if (*c->p == '0' && c->p + 1 < c->end && c->p[1] >= '0' && c->p[1] <= '9') return -1;
  uint64_t v = 0;
  while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
    uint64_t digit = (uint64_t)(*c->p - '0');
    if (v > (UINT64_MAX - digit) / 10) return -1;
    v = v * 10 + digit;
    ++c->p;
  }
  if (c->p < c->end && (*c->p == '.' || *c->p == 'e' || *c->p == 'E')) return -1;
  *value = v;
  return 0;
}

/* [u64, ...] into values (at most max); the count in *count. */
static int read_u64_array(cursor* c, uint64_t* values, size_t max, size_t* count) {
  *count = 0;
  if (expect(c, '[') != 0) return -1;
  skip_blanks(c);
  if (c->p < c->end && *c->p == ']') {
    ++c->p;
    return 0;
  }
  for (;;) {
    if (*count == max || read_u64(c, &values[*count]) != 0) return -1;
    ++*count;
    skip_blanks(c);
    if (c->p < c->end && *c->p == ',') {
      ++c->p;
    } else {
      return expect(c, ']');
    }
  }
}

/* {"key": "value", ...}: checked and skipped. */
static int skip_metadata(cursor* c) {
  if (expect(c, '{') != 0) return -1;
  skip_blanks(c);
  if (c->p < c->end && *c->p == '}') {
    ++c->p;
    return 0;
  }
  for (;;) {
    char* key = read_string(c);
    if (key == NULL) return -1;
    free(key);
    if (expect(c, ':') != 0) return -1;
    char* value = read_string(c);
    if (value == NULL) return -1;
    free(value);
    skip_blanks(c);
    if (c->p < c->end && *c->p == ',') {
      ++c->p;
    } else {
      return expect(c, '}');
    }
  }
}

static int read_tensor(cursor* c, tiny_tensor* t) {
  int have_dtype = 0, have_shape = 0, have_offsets = 0;
  if (expect(c, '{') != 0) return -1;
  for (;;) {
    char* field = read_string(c);
    if (field == NULL || expect(c, ':') != 0) {
      free(field);
      return -1;
    }
    int ok = -1;
    if (strcmp(field, "dtype") == 0 && !have_dtype) {
      char* dtype = read_string(c);
      for (size_t i = 0; dtype != NULL && i < sizeof kDtypes / sizeof kDtypes[0]; ++i) {
        if (strcmp(dtype, kDtypes[i].name) == 0) {
          t->dtype = kDtypes[i].name;
          ok = 0;
        }
      }
      free(dtype);
      have_dtype = 1;
    } else if (strcmp(field, "shape") == 0 && !have_shape) {
      ok = read_u64_array(c, t->shape, TINY_MAX_RANK, &t->rank);
      have_shape = 1;
    } else if (strcmp(field, "data_offsets") == 0 && !have_offsets) {
      uint64_t offsets[2] = {0, 0};
      size_t count = 0;
      ok = read_u64_array(c, offsets, 2, &count);
      if (ok == 0 && count != 2) ok = -1;
      t->begin = offsets[0];
      t->end = offsets[1];
      have_offsets = 1;
    }
    free(field);
    if (ok != 0) return -1;
    skip_blanks(c);
    if (c->p < c->end && *c->p == ',') {
      ++c->p;
    } else {
      break;
    }
  }
  if (expect(c, '}') != 0 || !have_dtype || !have_shape || !have_offsets) return -1;
  return 0;
}

static uint64_t dtype_size(const char* dtype) {
  for (size_t i = 0; i < sizeof kDtypes / sizeof kDtypes[0]; ++i) {
    if (strcmp(dtype, kDtypes[i].name) == 0) return kDtypes[i].size;
  }
  return 0;
}

static int by_offsets(const void* a, const void* b) {
  const tiny_tensor* x = a;
  const tiny_tensor* y = b;
  if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
  if (x->end != y->end) return x->end < y->end ? -1 : 1;
  return 0;
}

static int reject(tiny_file* out, const char** error, const char* why) {
  tiny_free(out);
  *error = why;
  return -1;
}

int tiny_read(const uint8_t* bytes, size_t size, tiny_file* out, const char** error) {
  memset(out, 0, sizeof *out);
  if (size < 8) return reject(out, error, "shorter than the length prefix");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[i];
  if (n > size - 8 || n > 100000000) return reject(out, error, "header length beyond the file");
  cursor c = {bytes + 8, bytes + 8 + n};
  while (c.end > c.p && c.end[-1] == ' ') --c.end; /* the writer's space padding */
  if (c.p >= c.end || *c.p != '{') return reject(out, error, "header does not start with {");
  out->data = bytes + 8 + n;
  out->data_len = size - 8 - n;

  int seen_metadata = 0;
  ++c.p;
  skip_blanks(&c);
  if (c.p < c.end && *c.p == '}') {
    ++c.p;
  } else {
    for (;;) {
      char* name = read_string(&c);
      if (name == NULL || name[0] == '\0' || expect(&c, ':') != 0) {
        free(name);
        return reject(out, error, "bad tensor name");
      }
      if (strcmp(name, "__metadata__") == 0) {
        free(name);
        if (seen_metadata || skip_metadata(&c) != 0) return reject(out, error, "bad metadata");
        seen_metadata = 1;
      } else {
        for (size_t i = 0; i < out->count; ++i) {
          if (strcmp(out->tensors[i].name, name) == 0) {
            free(name);
            return reject(out, error, "duplicate tensor name");
          }
        }
        tiny_tensor* grown = realloc(out->tensors, (out->count + 1) * sizeof *grown);
        if (grown == NULL) {
          free(name);
          return reject(out, error, "out of memory");
        }
        out->tensors = grown;
        tiny_tensor* t = &out->tensors[out->count++];
        memset(t, 0, sizeof *t);
        t->name = name;
        if (read_tensor(&c, t) != 0) return reject(out, error, "bad tensor entry");
      }
      skip_blanks(&c);
      if (c.p < c.end && *c.p == ',') {
        ++c.p;
      } else {
        break;
      }
    }
    if (expect(&c, '}') != 0) return reject(out, error, "header object not closed");
  }
  if (c.p != c.end) return reject(out, error, "bytes after the header object");

  for (size_t i = 0; i < out->count; ++i) {
    const tiny_tensor* t = &out->tensors[i];
    uint64_t bytes_needed = dtype_size(t->dtype);
    for (size_t d = 0; d < t->rank; ++d) {
      if (t->shape[d] != 0 && bytes_needed > UINT64_MAX / t->shape[d]) {
        return reject(out, error, "tensor size overflows");
      }
      bytes_needed *= t->shape[d];
    }
    if (t->begin > t->end || t->end - t->begin != bytes_needed) {
      return reject(out, error, "data_offsets do not match dtype and shape");
    }
    if (t->end > out->data_len) return reject(out, error, "tensor beyond the data");
  }
  /* The layout: sorted by offsets, each tensor must start where the one
   * before ended. THE PLANTED BUG: only a gap is caught; a tensor starting
   * before the previous one ended (an overlap) passes. */
  tiny_tensor* sorted = malloc((out->count + 1) * sizeof *sorted);
  if (sorted == NULL) return reject(out, error, "out of memory");
  if (out->count != 0) memcpy(sorted, out->tensors, out->count * sizeof *sorted);
  qsort(sorted, out->count, sizeof *sorted, by_offsets);
  uint64_t previous_end = 0;
  int gap = 0;
  for (size_t i = 0; i < out->count; ++i) {
    if (sorted[i].begin > previous_end) gap = 1;
    previous_end = sorted[i].end;
  }
  free(sorted);
  if (gap) return reject(out, error, "gap between tensors");
  if (previous_end != out->data_len) return reject(out, error, "data not covered by tensors");
  return 0;
}

void tiny_free(tiny_file* file) {
  for (size_t i = 0; i < file->count; ++i) free(file->tensors[i].name);
  free(file->tensors);
  memset(file, 0, sizeof *file);
}
