// stguard/stguard.h: the whole public API of stguard::parser in one include.
//
//   #include <stguard/stguard.h>
//
//   auto file = stguard::File::open("model.safetensors");
//   if (!file) {
//     std::cerr << file.error().to_string() << "\n";  // reason, offset, message
//     return 1;
//   }
//
// error.h   Reason codes and Error (reason, absolute offset, message)
// result.h  Result<T>
// dtype.h   the 22 dtypes and their bit sizes
// header.h  parse_header(): validate header bytes, strict or reference profile
// lint.h    lint_header(): what a valid file does that a careful writer avoids
// simd.h    which vector instructions the parser uses (chosen at run time)
// file.h    File: map or read a file, validate, get tensor bytes
// writer.h  write_safetensors(): canonical output
#ifndef STGUARD_STGUARD_H_
#define STGUARD_STGUARD_H_

#include "stguard/dtype.h"
#include "stguard/error.h"
#include "stguard/file.h"
#include "stguard/header.h"
#include "stguard/lint.h"
#include "stguard/parser.h"
#include "stguard/result.h"
#include "stguard/simd.h"
#include "stguard/writer.h"

#endif  // STGUARD_STGUARD_H_
