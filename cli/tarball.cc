// cli/tarball.cc: reproducible .tar.gz archives (tarball.h).
//
// libarchive is opened when an archive is written, not linked
// (base/shared_library.h): linked, it and the eleven libraries it needs were
// loaded by every process, a large share of a `stguard check` of a small
// file (docs/performance.md). Only `corpus export --tarball` pays for it
// now.
#include "tarball.h"

#include <archive.h>
#include <archive_entry.h>

#include <memory>

#include "base/shared_library.h"

namespace stguard::cli {
namespace {

// libarchive's soname has been libarchive.so.13 since its 3.0 (2011).
constexpr const char* kLibArchive = "libarchive.so.13";

// The functions used, resolved from the library (declared by its headers,
// never called directly).
struct LibArchive {
  decltype(&archive_write_new) write_new;
  decltype(&archive_write_free) write_free;
  decltype(&archive_write_set_format_pax_restricted) set_format_pax_restricted;
  decltype(&archive_write_add_filter_gzip) add_filter_gzip;
  decltype(&archive_write_set_filter_option) set_filter_option;
  decltype(&archive_write_set_bytes_in_last_block) set_bytes_in_last_block;
  decltype(&archive_write_open2) open2;
  decltype(&archive_write_header) write_header;
  decltype(&archive_write_data) write_data;
  decltype(&archive_write_close) close;
  decltype(&archive_error_string) error_string;
  decltype(&archive_entry_new) entry_new;
  decltype(&archive_entry_free) entry_free;
  decltype(&archive_entry_set_pathname) set_pathname;
  decltype(&archive_entry_set_filetype) set_filetype;
  decltype(&archive_entry_set_perm) set_perm;
  decltype(&archive_entry_set_size) set_size;
  decltype(&archive_entry_set_mtime) set_mtime;
  decltype(&archive_entry_set_uid) set_uid;
  decltype(&archive_entry_set_gid) set_gid;
};

// The library, loaded once per process (never closed); fails saying why.
base::Result<const LibArchive*> libarchive() {
  static const base::Result<const LibArchive*> loaded = []() -> base::Result<const LibArchive*> {
    const base::Result<void*> opened = base::open_shared_library(kLibArchive, "libarchive13");
    if (!opened) {
      return base::fail("cannot write a tarball: " + opened.error().message);
    }
    void* const handle = *opened;
    const auto resolve = [handle](const char* name, auto& out) {
      return base::resolve_symbol(handle, name, out);
    };
    static LibArchive lib;
    const bool all =
        resolve("archive_write_new", lib.write_new) &&
        resolve("archive_write_free", lib.write_free) &&
        resolve("archive_write_set_format_pax_restricted", lib.set_format_pax_restricted) &&
        resolve("archive_write_add_filter_gzip", lib.add_filter_gzip) &&
        resolve("archive_write_set_filter_option", lib.set_filter_option) &&
        resolve("archive_write_set_bytes_in_last_block", lib.set_bytes_in_last_block) &&
        resolve("archive_write_open2", lib.open2) &&
        resolve("archive_write_header", lib.write_header) &&
        resolve("archive_write_data", lib.write_data) &&
        resolve("archive_write_close", lib.close) &&
        resolve("archive_error_string", lib.error_string) &&
        resolve("archive_entry_new", lib.entry_new) &&
        resolve("archive_entry_free", lib.entry_free) &&
        resolve("archive_entry_set_pathname", lib.set_pathname) &&
        resolve("archive_entry_set_filetype", lib.set_filetype) &&
        resolve("archive_entry_set_perm", lib.set_perm) &&
        resolve("archive_entry_set_size", lib.set_size) &&
        resolve("archive_entry_set_mtime", lib.set_mtime) &&
        resolve("archive_entry_set_uid", lib.set_uid) &&
        resolve("archive_entry_set_gid", lib.set_gid);
    if (!all) return base::fail(std::string(kLibArchive) + " lacks a function stguard needs");
    return &lib;
  }();
  return loaded;
}

// libarchive's write callback: appends to the std::string it was given.
la_ssize_t append(archive*, void* sink, const void* buffer, std::size_t length) {
  static_cast<std::string*>(sink)->append(static_cast<const char*>(buffer), length);
  return static_cast<la_ssize_t>(length);
}

}  // namespace

base::Result<std::string> tar_gz(std::span<const TarFile> files) {
  const base::Result<const LibArchive*> loaded = libarchive();
  if (!loaded) return loaded.error();
  const LibArchive& lib = **loaded;
  const auto failure = [&lib](archive* a, std::string_view what) {
    const char* why = lib.error_string(a);
    return base::Failure{"cannot write the tarball: " + std::string(what) + ": " +
                         (why != nullptr ? why : "libarchive gave no reason")};
  };
  const auto free_archive = [&lib](archive* a) { lib.write_free(a); };
  const auto free_entry = [&lib](archive_entry* e) { lib.entry_free(e); };

  std::string out;
  const std::unique_ptr<archive, decltype(free_archive)> a(lib.write_new(), free_archive);
  if (!a) return base::fail("cannot write the tarball: out of memory");
  // POSIX pax (ustar where it suffices), gzip without the file's time or name.
  if (lib.set_format_pax_restricted(a.get()) != ARCHIVE_OK ||
      lib.add_filter_gzip(a.get()) != ARCHIVE_OK ||
      lib.set_filter_option(a.get(), "gzip", "timestamp", nullptr) != ARCHIVE_OK ||
      lib.set_bytes_in_last_block(a.get(), 1) != ARCHIVE_OK) {
    return failure(a.get(), "setting it up");
  }
  if (lib.open2(a.get(), &out, nullptr, append, nullptr, nullptr) != ARCHIVE_OK) {
    return failure(a.get(), "opening it");
  }
  for (const TarFile& file : files) {
    const std::unique_ptr<archive_entry, decltype(free_entry)> entry(lib.entry_new(), free_entry);
    if (!entry) return base::fail("cannot write the tarball: out of memory");
    lib.set_pathname(entry.get(), file.path.c_str());
    lib.set_filetype(entry.get(), AE_IFREG);
    lib.set_perm(entry.get(), 0644);
    lib.set_size(entry.get(), static_cast<la_int64_t>(file.bytes.size()));
    lib.set_mtime(entry.get(), 0, 0);
    lib.set_uid(entry.get(), 0);
    lib.set_gid(entry.get(), 0);
    if (lib.write_header(a.get(), entry.get()) != ARCHIVE_OK) return failure(a.get(), file.path);
    if (!file.bytes.empty() && lib.write_data(a.get(), file.bytes.data(), file.bytes.size()) !=
                                   static_cast<la_ssize_t>(file.bytes.size())) {
      return failure(a.get(), file.path);
    }
  }
  if (lib.close(a.get()) != ARCHIVE_OK) return failure(a.get(), "closing it");
  return out;
}

}  // namespace stguard::cli
