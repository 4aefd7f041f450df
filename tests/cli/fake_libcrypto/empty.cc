// tests/cli/fake_libcrypto: a libcrypto.so.3 without a single function, put
// first on LD_LIBRARY_PATH by shared_libraries_cli_test.cc so that the
// command's first hash meets a library that lacks what it calls.
extern "C" {
int stguard_fake_libcrypto_marker = 0;  // NOLINT: a shared library needs one symbol
}
