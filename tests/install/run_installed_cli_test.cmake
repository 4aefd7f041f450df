# cmake -P script run by the `install.cli_installed_data` ctest test: the
# installed command must work from anywhere on its installed data alone.
#   1. `cmake --install` the test suite's own build into a scratch prefix
#      (docs, man pages, pkg-config); make the Debian package with cpack,
#      install it with dpkg into a scratch root, check its file list, set
#      up a bundled reader (in the user's cache, not the package's data)
#      and remove the package again, leaving nothing;
#   2. from another directory, check that `stguard --version` names the
#      installed data (share/stguard next to the executable) as the data it
#      uses: the source tree the binary was built from is the lookup's last
#      resort and the only use the command makes of that path (cli/data_dir.h),
#      so a command that says "installed" cannot be reading the sources;
#   3. run `stguard check`, `stguard corpus list` and `stguard conform
#      --reader stguard-strict` there, and STGUARD_DATA_DIR over the installed
#      data.
# The build is installed rather than a copy of the sources compiled again:
# the install rules and the data lookup are under test, not the compiler.
# Inputs: STGUARD_BUILD_DIR WORK_DIR
foreach(var STGUARD_BUILD_DIR WORK_DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_installed_cli_test.cmake: ${var} is not set")
  endif()
endforeach()

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
    WORKING_DIRECTORY "${cwd}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(build "${STGUARD_BUILD_DIR}")
set(prefix "${WORK_DIR}/prefix")
set(cwd "${WORK_DIR}")
file(MAKE_DIRECTORY "${cwd}")
run_step("install" ${CMAKE_COMMAND} --install "${build}" --prefix "${prefix}")
foreach(installed bin/stguard share/doc/stguard/LICENSE share/stguard/corpus/manifest.json
    share/stguard/conformance/vocabulary.txt share/stguard/conformance/cases/layout.txt
    share/stguard/conformance/adapters/stguard-strict/reader.json)
  if(NOT EXISTS "${prefix}/${installed}")
    message(FATAL_ERROR "install did not produce ${installed}")
  endif()
endforeach()
if(EXISTS "${prefix}/share/stguard/conformance/adapters/safetensors-npm/node_modules")
  message(FATAL_ERROR "install copied node_modules")
endif()

# The documentation, the man pages (one per command, as `help --options`
# lists the commands) and the pkg-config file.
foreach(doc README.md CHANGELOG.md LICENSE copyright docs/cli.md)
  if(NOT EXISTS "${prefix}/share/doc/stguard/${doc}")
    message(FATAL_ERROR "install did not produce share/doc/stguard/${doc}")
  endif()
endforeach()
execute_process(COMMAND "${prefix}/bin/stguard" help --options OUTPUT_VARIABLE options RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "stguard help --options failed (${rc})")
endif()
string(REGEX MATCHALL "(^|\n)[a-z ]+\t" commands "${options}")
list(REMOVE_DUPLICATES commands)
set(pages stguard.1)
foreach(command IN LISTS commands)
  string(STRIP "${command}" command)
  if(command STREQUAL "help")
    continue()  # its text is stguard(1)
  endif()
  string(REPLACE " " "-" page "stguard-${command}.1")
  list(APPEND pages ${page})
endforeach()
list(LENGTH pages page_count)
if(page_count LESS 10)
  message(FATAL_ERROR "only ${page_count} commands in help --options: ${pages}")
endif()
foreach(page IN LISTS pages)
  set(file "${prefix}/share/man/man1/${page}")
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "install did not produce the man page ${page}")
  endif()
  file(READ "${file}" text)
  if(NOT text MATCHES "^\\.TH STGUARD[-A-Z]* 1 " OR NOT text MATCHES "\n\\.SH OPTIONS\n")
    message(FATAL_ERROR "${page} is not a man page with an OPTIONS section:\n${text}")
  endif()
endforeach()
find_program(PKG_CONFIG pkg-config REQUIRED)
file(GLOB_RECURSE pc_files "${prefix}/*/stguard.pc")
list(LENGTH pc_files pc_count)
if(NOT pc_count EQUAL 1)
  message(FATAL_ERROR "install made ${pc_count} stguard.pc files: ${pc_files}")
endif()
get_filename_component(pc_dir "${pc_files}" DIRECTORY)
execute_process(COMMAND ${CMAKE_COMMAND} -E env "PKG_CONFIG_PATH=${pc_dir}"
  ${PKG_CONFIG} --cflags --libs stguard OUTPUT_VARIABLE pc_flags RESULT_VARIABLE rc)
string(REGEX MATCH "-I([^ \n]+)" include_flag "${pc_flags}")
set(pc_include "${CMAKE_MATCH_1}")
string(REGEX MATCH "-L([^ \n]+)" lib_flag "${pc_flags}")
set(pc_lib "${CMAKE_MATCH_1}")
if(NOT rc EQUAL 0 OR NOT EXISTS "${pc_include}/stguard/header.h"
   OR NOT EXISTS "${pc_lib}/libstguard.a" OR NOT pc_flags MATCHES "-lstguard")
  message(FATAL_ERROR "pkg-config --cflags --libs stguard gave '${pc_flags}' (${rc}): "
    "no stguard/header.h under its -I or libstguard.a under its -L")
endif()

# The Debian package holds the command and its data: installed with dpkg
# into a scratch root (its own dpkg database; the dependencies are the
# machine's), its file list checked, and removed again without a trace.
find_program(DPKG dpkg REQUIRED)
run_step("cpack" ${CMAKE_CPACK_COMMAND} -G DEB -B "${WORK_DIR}/package" --config "${build}/CPackConfig.cmake")
file(GLOB debs "${WORK_DIR}/package/*.deb")
list(LENGTH debs deb_count)
if(NOT deb_count EQUAL 1)
  message(FATAL_ERROR "cpack made ${deb_count} .deb files: ${debs}")
endif()
set(root "${WORK_DIR}/root")
file(MAKE_DIRECTORY "${root}/var/lib/dpkg/info" "${root}/var/lib/dpkg/updates")
file(TOUCH "${root}/var/lib/dpkg/status")
set(dpkg_root ${DPKG} --root=${root} --force-not-root)
run_step("dpkg -i into a scratch root" ${dpkg_root} --force-depends -i ${debs})
run_step("dpkg -L stguard" ${dpkg_root} -L stguard)
foreach(packaged /usr/bin/stguard /usr/share/stguard/corpus/manifest.json
    /usr/share/stguard/conformance/adapters/safetensors-npm/reader.json
    /usr/share/man/man1/stguard.1 /usr/share/man/man1/stguard-conform-report.1
    /usr/share/doc/stguard/copyright /usr/share/doc/stguard/README.md
    /usr/share/doc/stguard/docs/cli.md /pkgconfig/stguard.pc /usr/include/stguard/header.h
    /cmake/stguard/stguardConfig.cmake)
  string(FIND "${step_output}" "${packaged}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the package lacks ${packaged}:\n${step_output}")
  endif()
endforeach()
string(FIND "${step_output}" "node_modules" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "the package holds node_modules:\n${step_output}")
endif()
set(packaged_stguard "${root}/usr/bin/stguard")
run_step("the packaged stguard --version" "${packaged_stguard}" --version)
string(FIND "${step_output}" "\ndata: ${root}/usr/share/stguard (installed)\n" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the packaged command does not use its installed data:\n${step_output}")
endif()

# A bundled reader with a setup command is set up in the user's cache, never
# in the installed data (the package's): a reader whose setup makes
# node_modules/ready and whose adapter needs it (and then runs `stguard
# adapter`), put beside the packaged readers for the test.
set(reader "${root}/usr/share/stguard/conformance/adapters/zz-needs-setup")
file(MAKE_DIRECTORY "${reader}")
file(WRITE "${reader}/reader.json" [=[
{"name": "zz-needs-setup",
 "command": ["sh", "-c", "test -f node_modules/ready || exit 3; exec \"$0\" adapter \"$1\"", "${STGUARD}"],
 "version_command": ["sh", "-c", "test -f node_modules/ready && echo 1"],
 "setup": ["sh", "-c", "mkdir -p node_modules && : > node_modules/ready"],
 "mode": "json"}
]=])
set(cache "${WORK_DIR}/cache")
set(conform_setup_args conform --reader zz-needs-setup --case "dtypes/*" --require-readers -q -j 2
  --memory-mb 0)  # the adapter may be a sanitizer build
execute_process(COMMAND ${CMAKE_COMMAND} -E env "XDG_CACHE_HOME=${cache}" "${packaged_stguard}"
  ${conform_setup_args} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET WORKING_DIRECTORY "${cwd}")
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "a reader not yet set up should be missing (exit 2), got ${rc}")
endif()
run_step("conform --setup into the cache" ${CMAKE_COMMAND} -E env "XDG_CACHE_HOME=${cache}"
  "${packaged_stguard}" ${conform_setup_args} --setup)
if(NOT EXISTS "${cache}/stguard/readers/zz-needs-setup/node_modules/ready")
  message(FATAL_ERROR "--setup did not set the reader up in ${cache}/stguard/readers")
endif()
if(EXISTS "${reader}/node_modules")
  message(FATAL_ERROR "--setup wrote into the installed data: ${reader}/node_modules")
endif()
run_step("conform on the set-up copy" ${CMAKE_COMMAND} -E env "XDG_CACHE_HOME=${cache}"
  "${packaged_stguard}" ${conform_setup_args})
file(REMOVE_RECURSE "${reader}")

# dpkg -r leaves nothing behind, after all that.
run_step("dpkg -r" ${dpkg_root} -r stguard)
file(GLOB_RECURSE left RELATIVE "${root}" "${root}/*")
list(FILTER left EXCLUDE REGEX "^var/lib/dpkg/")
if(left)
  message(FATAL_ERROR "dpkg -r left files behind: ${left}")
endif()

# Elsewhere, the installed command on its installed data.
set(cwd "${WORK_DIR}/elsewhere")
file(MAKE_DIRECTORY "${cwd}")
set(stguard "${prefix}/bin/stguard")
set(data "${prefix}/share/stguard")
run_step("stguard --version" "${stguard}" --version)
string(FIND "${step_output}" "\ndata: ${data} (installed)\n" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the installed command does not use its installed data:\n${step_output}")
endif()
run_step("stguard check" "${stguard}" check "${data}/corpus/dtypes/all-22-canonical.safetensors")
run_step("stguard corpus list" "${stguard}" corpus list)
string(FIND "${step_output}" "dtypes/all-22-canonical" at)
if(at EQUAL -1)
  message(FATAL_ERROR "corpus list does not list dtypes/all-22-canonical:\n${step_output}")
endif()
# The corpus release from the installed data: the spec and the licence are
# installed beside the corpus for it.
run_step("stguard corpus export --tarball" "${stguard}" corpus export --tarball "${cwd}")
file(GLOB tarballs "${cwd}/stguard-corpus-*.tar.gz")
list(LENGTH tarballs tarball_count)
if(NOT tarball_count EQUAL 1)
  message(FATAL_ERROR "corpus export --tarball made ${tarball_count} tarballs: ${tarballs}")
endif()
file(ARCHIVE_EXTRACT INPUT "${tarballs}" DESTINATION "${cwd}/release" PATTERNS "*/spec.md" "*/LICENSE")
file(GLOB released "${cwd}/release/*/spec.md" "${cwd}/release/*/LICENSE")
list(LENGTH released released_count)
if(NOT released_count EQUAL 2)
  message(FATAL_ERROR "the installed corpus release lacks spec.md or LICENSE: ${released}")
endif()
run_step("stguard conform --reader stguard-strict" "${stguard}" conform --reader stguard-strict
  -j 2 --quiet --out-dir "${cwd}/reports")
foreach(report summary.txt results.jsonl junit.xml matrix.html)
  if(NOT EXISTS "${cwd}/reports/${report}")
    message(FATAL_ERROR "conform wrote no ${report}")
  endif()
endforeach()
# STGUARD_DATA_DIR wins over the installed data; a wrong one is an error.
run_step("STGUARD_DATA_DIR" ${CMAKE_COMMAND} -E env "STGUARD_DATA_DIR=${data}"
  "${stguard}" corpus list)
execute_process(COMMAND ${CMAKE_COMMAND} -E env "STGUARD_DATA_DIR=${cwd}" "${stguard}" corpus list
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "a STGUARD_DATA_DIR without data should be a usage error (2), got ${rc}: ${err}")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
