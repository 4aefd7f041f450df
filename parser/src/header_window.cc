#include "header_window.h"

#include <cstring>
#include <new>

#include "asan_marks.h"

namespace stguard::detail {

HeaderWindow::HeaderWindow(std::uint64_t header_size, std::size_t capacity, std::size_t lookahead)
    : header_size_(header_size), capacity_(capacity), lookahead_(lookahead) {}

HeaderWindow::~HeaderWindow() {
  if (buffer_ != nullptr) mark_readable(buffer_.get(), capacity_);
}

HeaderWindow::View HeaderWindow::move_to(std::uint64_t from) {
  if (buffer_ == nullptr) {
    // Left uninitialised, and unreadable for AddressSanitizer until read
    // into, so that a scan reading past the bytes in is reported.
    buffer_.reset(new (std::nothrow) std::uint8_t[capacity_]);
    if (buffer_ == nullptr) return View{nullptr, nullptr, from};  // the scan declines
    mark_unreadable(buffer_.get(), capacity_);
  }
  // The bytes from `from` that are in move to the front.
  const auto kept = static_cast<std::size_t>(offset_ + in_ - from);
  if (from != offset_) {
    std::memmove(buffer_.get(), buffer_.get() + (from - offset_), kept);
    mark_unreadable(buffer_.get() + kept, capacity_ - kept);
    offset_ = from;
    in_ = kept;
  }
  const std::uint64_t left = header_size_ - (offset_ + in_);
  const std::size_t room = capacity_ - in_;
  const auto more = static_cast<std::size_t>(left < room ? left : room);
  if (more > 0 && !failed_) {
    mark_readable(buffer_.get() + in_, more);
    if (read(offset_ + in_, buffer_.get() + in_, more)) {
      in_ += more;
    } else {
      mark_unreadable(buffer_.get() + in_, more);
      failed_ = true;
    }
  }
  return View{buffer_.get(), buffer_.get() + in_, offset_};
}

bool BytesHeaderWindow::read(std::uint64_t offset, std::uint8_t* out, std::size_t len) {
  if (offset + len > fail_from_) return false;
  std::memcpy(out, header_.data() + offset, len);
  ++reads_;
  return true;
}

}  // namespace stguard::detail
