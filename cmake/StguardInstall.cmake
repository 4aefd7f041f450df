# install(EXPORT) so that consumers can find_package(stguard) and link
# stguard::parser; the stguard command with its data under share/stguard/;
# and a Debian package of it all (CPack, `cpack -G DEB` in a build tree).
# tests/consumer builds a small program against the installed library;
# tests/install runs the installed command away from the source tree.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS stguard_parser EXPORT stguardTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY parser/include/stguard DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

if(TARGET stguard_cli)
  install(TARGETS stguard_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # The data the command finds next to itself (cli/data_dir.h): the corpus,
  # the recipes it is built from, and the bundled readers' adapters (without
  # their installed node_modules; `stguard conform --setup` installs those).
  set(data ${CMAKE_INSTALL_DATADIR}/stguard)
  install(DIRECTORY corpus DESTINATION ${data})
  install(DIRECTORY conformance/cases DESTINATION ${data}/conformance)
  # What a corpus release (`corpus export --tarball`) carries besides the
  # corpus, where the source tree has them.
  install(FILES LICENSE DESTINATION ${data})
  install(FILES docs/spec.md DESTINATION ${data}/docs)
  install(FILES conformance/vocabulary.txt conformance/corpus-version.txt
    conformance/corpus_readme.md.in conformance/README.md
    DESTINATION ${data}/conformance)
  install(DIRECTORY conformance/adapters DESTINATION ${data}/conformance
    PATTERN node_modules EXCLUDE
    PATTERN .gitignore EXCLUDE)
  # The man pages the command renders at build time (cli/CMakeLists.txt).
  install(DIRECTORY ${STGUARD_MAN_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
    FILES_MATCHING PATTERN "*.1")
endif()

set(STGUARD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/stguard)
install(EXPORT stguardTargets NAMESPACE stguard:: DESTINATION ${STGUARD_CMAKE_DIR})
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/stguardConfig.cmake
  "include(\${CMAKE_CURRENT_LIST_DIR}/stguardTargets.cmake)\n")
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/stguardConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/stguardConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/stguardConfigVersion.cmake
  DESTINATION ${STGUARD_CMAKE_DIR})

# pkg-config, beside the CMake package, for builds that do not use CMake.
# Relocatable: the prefix is found from the file's own place (${pcfiledir}),
# so `cmake --install --prefix` and the package's /usr both work.
file(RELATIVE_PATH STGUARD_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
configure_file(cmake/stguard.pc.in ${CMAKE_CURRENT_BINARY_DIR}/stguard.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/stguard.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The documentation (share/doc/stguard/): the licence, also as the Debian
# package's copyright file, the README, the changelog and docs/, which
# --help and the man pages point to.
install(FILES LICENSE README.md CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME copyright)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md")

# The Debian package: `cpack -G DEB` (or `cpack`) in a build tree.
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME stguard)
set(CPACK_PACKAGE_VENDOR "the stguard project")
set(CPACK_PACKAGE_CONTACT "the stguard project <https://github.com/stguard/stguard/issues>")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/stguard/stguard")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
  "Checks safetensors files with a hardened parser (strict and upstream-reference profiles), verifies model folders (shards, index, checksums), and grades other safetensors readers against a conformance corpus.")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# What the command needs on Debian 12 (libssl3: libcrypto for SHA-256, opened
# with dlopen on the first hash, base/libcrypto.h).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.34), libstdc++6 (>= 12), libgcc-s1, libssl3")
# Opened only by `corpus export --tarball` (cli/tarball.cc), which says so
# when it is missing.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libarchive13")
set(CPACK_PACKAGE_INSTALL_DIRECTORY stguard)
include(CPack)
