// A large header checked a window at a time: its bytes are read into one
// small buffer, reused, just ahead of the scan (header_scanner.h), instead of
// all of them into fresh memory first.
//
// Why: `stguard check` of a 10 MB header spent more time on getting the
// header into memory than on checking it: the kernel zeroed ten megabytes of
// fresh pages, then copied the file into them, and the scan read them back
// (docs/performance.md). A window of a few hundred KiB is zeroed once and
// stays in cache, and the scan reads each byte just after it arrived.
//
// The window is a fast path for the common case, never a second opinion. The
// scan in a window reads what it reads on the whole header, member by member
// (the window moves on only between members, and a member is read whole), so
// when it accepts, its answer is the whole header's. Whatever else it meets,
// it declines, and the caller reads the whole header and checks it as any
// other: a fault of any kind (its offset and message may need bytes the
// window let go of, and the syntax pass after a fault rereads the header), a
// member longer than the window's lookahead, invalid UTF-8 (each window is
// checked before it is let go, once a string held a non-ASCII byte), a name
// it needs again after the window has moved past it (a possible repeat), a
// read that failed (the whole header's read reports it). A file that changes
// in between is then read again: the answer is the second read's, as a check
// started then would give.
#ifndef STGUARD_SRC_HEADER_WINDOW_H_
#define STGUARD_SRC_HEADER_WINDOW_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>

#include "stguard/header.h"

namespace stguard::detail {

// The header's N bytes, read into a buffer of `capacity` bytes a window at
// a time. A subclass reads them (read()); this class keeps the buffer.
class HeaderWindow {
 public:
  // What the window holds: the header bytes [offset, offset + (end - begin)).
  struct View {
    const std::uint8_t* begin = nullptr;
    const std::uint8_t* end = nullptr;
    std::uint64_t offset = 0;
  };

  // `lookahead` (less than `capacity`): a member at most this long is always
  // read whole, since the scan moves the window on before each member with
  // fewer than this many bytes left in it.
  HeaderWindow(std::uint64_t header_size, std::size_t capacity, std::size_t lookahead);
  virtual ~HeaderWindow();
  HeaderWindow(const HeaderWindow&) = delete;
  HeaderWindow& operator=(const HeaderWindow&) = delete;

  // Moves the window to start at header offset `from` (at or after its
  // start, at most its end): the bytes from there that are in stay, moved to
  // the front, and more are read after them until the buffer is full or the
  // header ends. After a failed read it reads nothing more, and the window
  // ends short of the header's end. The first call, move_to(0), reads in the
  // first window.
  View move_to(std::uint64_t from);
  // Whether `view` ends where the header does.
  bool reaches_end(const View& view) const noexcept {
    return view.offset + static_cast<std::uint64_t>(view.end - view.begin) == header_size_;
  }
  std::uint64_t header_size() const noexcept { return header_size_; }
  std::size_t lookahead() const noexcept { return lookahead_; }

 protected:
  // Reads `len` header bytes from header offset `offset` into `out`; false
  // if the read failed.
  virtual bool read(std::uint64_t offset, std::uint8_t* out, std::size_t len) = 0;

 private:
  std::uint64_t header_size_;
  std::size_t capacity_;
  std::size_t lookahead_;
  std::unique_ptr<std::uint8_t[]> buffer_;
  std::uint64_t offset_ = 0;  // the header offset of buffer_[0]
  std::size_t in_ = 0;        // bytes of the buffer that hold header bytes
  bool failed_ = false;
};

// A header already in memory, read through a window all the same: for the
// tests and fuzz harnesses that check the window's answers against the whole
// header's. Reads that reach header offset `fail_from` fail.
class BytesHeaderWindow final : public HeaderWindow {
 public:
  BytesHeaderWindow(std::span<const std::uint8_t> header, std::size_t capacity,
                    std::size_t lookahead,
                    std::uint64_t fail_from = std::numeric_limits<std::uint64_t>::max())
      : HeaderWindow(header.size(), capacity, lookahead), header_(header), fail_from_(fail_from) {}
  int reads() const noexcept { return reads_; }  // successful ones

 private:
  bool read(std::uint64_t offset, std::uint8_t* out, std::size_t len) override;

  std::span<const std::uint8_t> header_;
  std::uint64_t fail_from_;
  int reads_ = 0;
};

// validate_header and parse_header of a header read through `window`, whose
// length prefix the caller has checked (parse_header_length) against the
// limits and the file's size: the header, when the window's scan and the
// checks after it accept it (the same result as for the whole header), or
// nullopt when it declines (see above). The scan's memory is `scratch`'s.
struct Scratch;
std::optional<HeaderSummary> validate_header_in_window(std::uint64_t file_size,
                                                       const ParseOptions& options,
                                                       HeaderWindow& window, Scratch& scratch);
std::optional<Header> parse_header_in_window(std::uint64_t file_size, const ParseOptions& options,
                                             HeaderWindow& window, Scratch& scratch);

}  // namespace stguard::detail

#endif  // STGUARD_SRC_HEADER_WINDOW_H_
