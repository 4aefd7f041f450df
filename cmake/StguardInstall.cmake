# install(EXPORT) so that consumers can find_package(stguard) and link
# stguard::parser. tests/consumer builds a small program against the result.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS stguard_parser EXPORT stguardTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY parser/include/stguard DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET stguard_cli)
  install(TARGETS stguard_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
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
