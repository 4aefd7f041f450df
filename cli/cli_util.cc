#include "cli_util.h"

#include <cstdio>
#include <iostream>
#include <limits>

namespace stguard::cli {
namespace {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

// Splits "--name=value" into name and value; value is nullopt without '='.
struct OptionToken {
  std::string_view name;
  std::optional<std::string_view> value;
};

OptionToken split_option(std::string_view arg) {
  const std::size_t eq = arg.find('=');
  if (eq == std::string_view::npos) return {arg, std::nullopt};
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

void append_hex_escape(std::string& out, unsigned char byte) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 0xF];
}

void append_codepoint_escape(std::string& out, std::uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\u{%04x}", static_cast<unsigned>(cp));
  out += buf;
}

// Decodes one strict UTF-8 sequence at s[i]; returns its length (0 when the
// bytes there are not valid UTF-8) and stores the code point.
std::size_t decode_utf8(std::string_view s, std::size_t i, std::uint32_t* cp) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  std::size_t len = 0;
  std::uint32_t value = 0;
  std::uint32_t min = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    len = 2;
    value = lead & 0x1Fu;
    min = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    len = 3;
    value = lead & 0x0Fu;
    min = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    len = 4;
    value = lead & 0x07u;
    min = 0x10000;
  } else {
    return 0;
  }
  if (len > s.size() - i) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const unsigned char c = byte(i + k);
    if ((c & 0xC0) != 0x80) return 0;
    value = (value << 6) | (c & 0x3Fu);
  }
  if (value < min || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return 0;
  *cp = value;
  return len;
}

// Code points that change how following text is displayed.
bool is_invisible_control(std::uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) ||      // C1 controls (CSI etc.)
         (cp >= 0x200E && cp <= 0x200F) ||  // LRM, RLM
         (cp >= 0x202A && cp <= 0x202E) ||  // bidi embeddings and overrides
         (cp >= 0x2066 && cp <= 0x2069) ||  // bidi isolates
         cp == 0xFEFF;                      // BOM / zero width no-break space
}

}  // namespace

std::optional<std::uint64_t> parse_u64(std::string_view text) noexcept {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (kU64Max - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

std::optional<CommonOptions> parse_common_options(Args args, std::string* error) {
  CommonOptions options;
  bool options_ended = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (options_ended || arg.empty() || arg[0] != '-' || arg == "-") {
      options.files.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      options_ended = true;
      continue;
    }
    const OptionToken token = split_option(arg);
    const auto take_value = [&]() -> std::optional<std::string_view> {
      if (token.value) return token.value;
      if (i + 1 >= args.size()) {
        *error = "option '" + std::string(token.name) + "' needs a value";
        return std::nullopt;
      }
      return args[++i];
    };
    if (token.name == "--help" || token.name == "-h") {
      if (token.value) {
        *error = "option '--help' takes no value";
        return std::nullopt;
      }
      options.help = true;
    } else if (token.name == "--json") {
      if (token.value) {
        *error = "option '--json' takes no value";
        return std::nullopt;
      }
      options.json = true;
    } else if (token.name == "--profile") {
      const std::optional<std::string_view> value = take_value();
      if (!value) return std::nullopt;
      const std::optional<Profile> profile = profile_from_name(*value);
      if (!profile) {
        *error = "unknown profile '" + std::string(*value) + "' (use strict or reference)";
        return std::nullopt;
      }
      options.parse.profile = *profile;
    } else if (token.name == "--max-header-bytes") {
      const std::optional<std::string_view> value = take_value();
      if (!value) return std::nullopt;
      const std::optional<std::uint64_t> n = parse_u64(*value);
      if (!n) {
        *error = "--max-header-bytes needs a decimal number in [0, 2^64), got '" +
                 std::string(*value) + "'";
        return std::nullopt;
      }
      options.parse.limits.max_header_bytes = *n;
    } else {
      *error = "unknown option '" + std::string(token.name) + "'";
      return std::nullopt;
    }
  }
  return options;
}

int usage_error(std::string_view command, std::string_view usage, std::string_view error) {
  std::cerr << "stguard " << command << ": " << printable(error) << "\n"
            << "usage: " << usage << "\n"
            << "Try 'stguard " << command << " --help'.\n";
  return kExitUsage;
}

namespace {

std::string escape_unsafe(std::string_view text, bool escape_backslash) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\\' && escape_backslash) {
      out += "\\\\";
      ++i;
    } else if (c == '\n') {
      out += "\\n";
      ++i;
    } else if (c == '\t') {
      out += "\\t";
      ++i;
    } else if (c == '\r') {
      out += "\\r";
      ++i;
    } else if (c < 0x20 || c == 0x7F) {
      append_hex_escape(out, c);
      ++i;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
    } else {
      std::uint32_t cp = 0;
      const std::size_t len = decode_utf8(text, i, &cp);
      if (len == 0) {
        append_hex_escape(out, c);
        ++i;
      } else if (is_invisible_control(cp)) {
        append_codepoint_escape(out, cp);
        i += len;
      } else {
        out.append(text.substr(i, len));
        i += len;
      }
    }
  }
  return out;
}

}  // namespace

std::string printable(std::string_view text) { return escape_unsafe(text, true); }

std::string printable_message(std::string_view text) { return escape_unsafe(text, false); }

std::size_t display_width(std::string_view text) noexcept {
  std::size_t width = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;
  }
  return width;
}

std::string json_line(const nlohmann::ordered_json& value) {
  return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

nlohmann::ordered_json verdict_record(std::string_view file, Profile profile, const Error* error) {
  nlohmann::ordered_json record;
  record["file"] = std::string(file);
  if (error == nullptr) {
    record["verdict"] = "accept";
  } else if (error->reason == Reason::kIoError) {
    record["verdict"] = "error";
  } else {
    record["verdict"] = "reject";
  }
  record["profile"] = std::string(profile_name(profile));
  if (error == nullptr) {
    record["reason"] = nullptr;
    record["offset"] = nullptr;
    record["message"] = nullptr;
  } else {
    record["reason"] = std::string(reason_name(error->reason));
    if (error->reason == Reason::kIoError) {
      record["offset"] = nullptr;
    } else {
      record["offset"] = error->offset;
    }
    record["message"] = error->message;
  }
  return record;
}

int exit_code_for(const Error* error) noexcept {
  if (error == nullptr) return kExitOk;
  return error->reason == Reason::kIoError ? kExitUsage : kExitRejected;
}

std::string error_text(const Error& error) {
  std::string out;
  if (error.reason == Reason::kIoError) {
    out = "error " + std::string(reason_name(error.reason));
  } else {
    out = "reject " + std::string(reason_name(error.reason)) + " at byte " +
          std::to_string(error.offset);
  }
  if (!error.message.empty()) out += ": " + printable_message(error.message);
  return out;
}

std::string shape_string(const std::vector<std::uint64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) out += ',';
    out += std::to_string(shape[i]);
  }
  out += ']';
  return out;
}

}  // namespace stguard::cli
