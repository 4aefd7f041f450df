// python/src/binding.cc: the `stguard._stguard` extension module, the C++
// libraries as the Python package (python/stguard/) calls them.
//
//   from stguard import _stguard
//   _stguard.check_fd(fd, "strict")  # (accepted, reason, offset, message, ...)
//
// Deliberately thin: plain tuples, dicts and strings out, and the Python
// layer turns them into typed objects. Files arrive as descriptors that the
// Python side opened, so a missing file or a directory is the OSError Python
// users expect, raised by Python itself; the parser then reads the
// descriptor with pread and never trusts what it finds. The GIL is released
// around every parse and around verify, so threads can check files at once.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "base/json.h"
#include "remote/head.h"
#include "remote/http.h"
#include "remote/hub.h"
#include "stguard/file.h"
#include "stguard/header.h"
#include "stguard/lint.h"
#include "verify/verify.h"

namespace py = pybind11;

namespace {

stguard::ParseOptions options_for(const std::string& profile) {
  const std::optional<stguard::Profile> p = stguard::profile_from_name(profile);
  if (!p)
    throw py::value_error("profile must be \"strict\" or \"reference\", not \"" + profile + "\"");
  stguard::ParseOptions options;
  options.profile = *p;
  return options;
}

// (accepted, reason, offset, message, tensor_count, header_len, file_size):
// the reason and offset are None for an accepted file, the counts None for a
// rejected one.
using Verdict = std::tuple<bool, std::optional<std::string>, std::optional<std::uint64_t>,
                           std::optional<std::string>, std::optional<std::uint64_t>,
                           std::optional<std::uint64_t>, std::optional<std::uint64_t>>;

Verdict to_verdict(const stguard::Result<stguard::HeaderSummary>& r) {
  if (r)
    return {true,          std::nullopt, std::nullopt, std::nullopt, r->tensor_count,
            r->header_len, r->file_size};
  const stguard::Error& e = r.error();
  return {false,        std::string(stguard::reason_name(e.reason)),
          e.offset,     e.message,
          std::nullopt, std::nullopt,
          std::nullopt};
}

Verdict check_fd(int fd, const std::string& profile) {
  const stguard::ParseOptions options = options_for(profile);
  py::gil_scoped_release unlocked;
  return to_verdict(stguard::validate_fd(fd, options));
}

// A file at an http(s) URL or an hf:// address naming one file, read as
// `stguard check URL` reads it (remote/head.h): its header alone. An I/O
// failure is the IO_ERROR verdict, which the Python side raises as OSError.
Verdict check_url(const std::string& address, const std::string& profile) {
  const stguard::ParseOptions options = options_for(profile);
  std::string url = address;
  const auto settings = stguard::remote::hub_settings_from_environment();
  if (!settings)
    return to_verdict(stguard::Error{stguard::Reason::kIoError, 0, settings.error().message});
  const stguard::remote::HubSettings& hub = *settings;
  if (stguard::remote::is_hub_address(address)) {
    const auto parsed = stguard::remote::parse_hub_address(address);
    if (!parsed) throw py::value_error(parsed.error().message);
    if (parsed->path.empty()) {
      throw py::value_error(address +
                            " names a repository, not a file: give its path "
                            "(hf://ORG/NAME[@REVISION]/PATH)");
    }
    url = stguard::remote::resolve_url(hub, *parsed, parsed->path);
  }
  py::gil_scoped_release unlocked;
  stguard::remote::HttpOptions http = stguard::remote::http_options_from_environment();
  stguard::remote::add_token(hub, http);
  stguard::remote::HttpClient client(http);
  const auto head = stguard::remote::read_head(client, url, options);
  if (!head) return to_verdict(head.error());
  stguard::Parser parser;
  return to_verdict(stguard::remote::validate_head(parser, *head, options));
}

Verdict check_bytes(const py::buffer& data, const std::string& profile) {
  const stguard::ParseOptions options = options_for(profile);
  const py::buffer_info info = data.request();
  if (info.ndim != 1 || info.itemsize != 1 || info.strides[0] != 1) {
    throw py::type_error("check() takes a contiguous buffer of bytes");
  }
  const std::span<const std::uint8_t> bytes(static_cast<const std::uint8_t*>(info.ptr),
                                            static_cast<std::size_t>(info.size));
  // Only an immutable bytes object may be read without the GIL: another
  // thread could resize a bytearray under the parse.
  if (py::isinstance<py::bytes>(data)) {
    py::gil_scoped_release unlocked;
    return to_verdict(stguard::validate_header(bytes, bytes.size(), options));
  }
  return to_verdict(stguard::validate_header(bytes, bytes.size(), options));
}

// Names, keys and values are UTF-8 the parser checked, but an escape such as
// \ud800 can still unescape to bytes Python will not decode; they come out
// as surrogate escapes, never as an exception in the middle of a header.
py::str text(std::string_view bytes) {
  PyObject* s =
      PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "surrogateescape");
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

py::object optional_index(const std::optional<std::size_t>& i) {
  return i ? py::object(py::int_(*i)) : py::object(py::none());
}

// The header as a dict: {"header_len", "file_size", "data_offset",
// "tensors": [{"name", "dtype", "shape", "data_offsets", "absolute",
// "header_offset"}], "metadata": {..} or None, "lints": [{"code", "tensor",
// "other"}]}; or the rejection as inspect_fd's second element.
std::pair<py::object, Verdict> inspect_fd(int fd, const std::string& profile) {
  const stguard::ParseOptions options = options_for(profile);
  std::optional<stguard::Result<stguard::Header>> parsed;
  std::vector<stguard::Lint> lints;
  {
    py::gil_scoped_release unlocked;
    parsed.emplace(stguard::parse_fd(fd, options));
    if (*parsed) lints = stguard::lint_header(**parsed);
  }
  const stguard::Result<stguard::Header>& r = *parsed;
  if (!r) {
    const stguard::Error& e = r.error();
    return {py::none(),
            {false, std::string(stguard::reason_name(e.reason)), e.offset, e.message, std::nullopt,
             std::nullopt, std::nullopt}};
  }
  const stguard::Header& h = *r;
  py::list tensors;
  for (const stguard::TensorInfo& t : h.tensors) {
    py::dict d;
    d["name"] = text(t.name);
    d["dtype"] = std::string(stguard::dtype_name(t.dtype));
    d["shape"] = py::tuple(py::cast(t.shape.to_vector()));
    d["data_offsets"] = py::make_tuple(t.begin, t.end);
    d["absolute"] = py::make_tuple(h.data_offset() + t.begin, h.data_offset() + t.end);
    d["header_offset"] = t.header_offset;
    tensors.append(d);
  }
  py::object metadata = py::none();
  if (h.metadata) {
    py::dict m;
    for (const auto& [key, value] : *h.metadata) {
      m[text(key)] = text(value);
    }
    metadata = m;
  }
  py::list lint_list;
  for (const stguard::Lint& l : lints) {
    py::dict d;
    d["code"] = std::string(stguard::lint_code_name(l.code));
    d["tensor"] = optional_index(l.tensor);
    d["other"] = optional_index(l.other);
    lint_list.append(d);
  }
  py::dict out;
  out["header_len"] = h.header_len;
  out["file_size"] = h.file_size;
  out["data_offset"] = h.data_offset();
  out["tensors"] = tensors;
  out["metadata"] = metadata;
  out["lints"] = lint_list;
  return {out, Verdict{true, std::nullopt, std::nullopt, std::nullopt, h.tensors.size(),
                       h.header_len, h.file_size}};
}

// The report of `stguard verify --json`, as its JSON text: one serialiser
// for the command and the package.
std::string verify_json(const std::string& dir, bool scan_values, unsigned jobs) {
  stguard::verify::VerifyOptions options;
  options.scan_values = scan_values;
  options.jobs = jobs;
  py::gil_scoped_release unlocked;
  const stguard::verify::VerifyReport report = stguard::verify::verify_model_folder(dir, options);
  return stguard::base::json_line(stguard::verify::report_to_json(report));
}

}  // namespace

PYBIND11_MODULE(_stguard, m) {
  m.doc() = "stguard's C++ libraries; use the stguard package, not this module.";
  m.def("check_fd", &check_fd, py::arg("fd"), py::arg("profile"));
  m.def("check_bytes", &check_bytes, py::arg("data"), py::arg("profile"));
  m.def("check_url", &check_url, py::arg("url"), py::arg("profile"));
  m.def("inspect_fd", &inspect_fd, py::arg("fd"), py::arg("profile"));
  m.def("verify_json", &verify_json, py::arg("dir"), py::arg("scan_values"), py::arg("jobs"));
}
