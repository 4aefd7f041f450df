// cli/tarball.cc: reproducible .tar.gz archives (tarball.h).
#include "tarball.h"

#include <archive.h>
#include <archive_entry.h>

#include <memory>

namespace stguard::cli {
namespace {

struct ArchiveDeleter {
  void operator()(archive* a) const { archive_write_free(a); }
};
struct EntryDeleter {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};

// libarchive's write callback: appends to the std::string it was given.
la_ssize_t append(archive*, void* sink, const void* buffer, std::size_t length) {
  static_cast<std::string*>(sink)->append(static_cast<const char*>(buffer), length);
  return static_cast<la_ssize_t>(length);
}

base::Failure failure(archive* a, std::string_view what) {
  const char* why = archive_error_string(a);
  return base::Failure{"cannot write the tarball: " + std::string(what) + ": " +
                       (why != nullptr ? why : "libarchive gave no reason")};
}

}  // namespace

base::Result<std::string> tar_gz(std::span<const TarFile> files) {
  std::string out;
  const std::unique_ptr<archive, ArchiveDeleter> a(archive_write_new());
  if (!a) return base::fail("cannot write the tarball: out of memory");
  // POSIX pax (ustar where it suffices), gzip without the file's time or name.
  if (archive_write_set_format_pax_restricted(a.get()) != ARCHIVE_OK ||
      archive_write_add_filter_gzip(a.get()) != ARCHIVE_OK ||
      archive_write_set_filter_option(a.get(), "gzip", "timestamp", nullptr) != ARCHIVE_OK ||
      archive_write_set_bytes_in_last_block(a.get(), 1) != ARCHIVE_OK) {
    return failure(a.get(), "setting it up");
  }
  if (archive_write_open2(a.get(), &out, nullptr, append, nullptr, nullptr) != ARCHIVE_OK) {
    return failure(a.get(), "opening it");
  }
  for (const TarFile& file : files) {
    const std::unique_ptr<archive_entry, EntryDeleter> entry(archive_entry_new());
    if (!entry) return base::fail("cannot write the tarball: out of memory");
    archive_entry_set_pathname(entry.get(), file.path.c_str());
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_perm(entry.get(), 0644);
    archive_entry_set_size(entry.get(), static_cast<la_int64_t>(file.bytes.size()));
    archive_entry_set_mtime(entry.get(), 0, 0);
    archive_entry_set_uid(entry.get(), 0);
    archive_entry_set_gid(entry.get(), 0);
    if (archive_write_header(a.get(), entry.get()) != ARCHIVE_OK) {
      return failure(a.get(), file.path);
    }
    if (!file.bytes.empty() && archive_write_data(a.get(), file.bytes.data(), file.bytes.size()) !=
                                   static_cast<la_ssize_t>(file.bytes.size())) {
      return failure(a.get(), file.path);
    }
  }
  if (archive_write_close(a.get()) != ARCHIVE_OK) return failure(a.get(), "closing it");
  return out;
}

}  // namespace stguard::cli
