# Finds every dependency, failing with the Debian package that provides it.
# ci/setup.sh installs all of them.

macro(statecheck_require_package pkg debian)
  find_package(${pkg} CONFIG QUIET ${ARGN})
  if(NOT ${pkg}_FOUND)
    message(FATAL_ERROR "statecheck needs ${pkg}: install the Debian package '${debian}' "
                        "(apt-get install ${debian}), or run ci/setup.sh which installs all.")
  endif()
endmacro()

statecheck_require_package(RocksDB librocksdb-dev)
statecheck_require_package(absl libabsl-dev)
# The product build needs RocksDB and Abseil alone.
if(STATECHECK_PRODUCT)
  return()
endif()
statecheck_require_package(rapidcheck librapidcheck-dev)
statecheck_require_package(GTest libgtest-dev)
statecheck_require_package(benchmark libbenchmark-dev)
statecheck_require_package(nlohmann_json nlohmann-json3-dev)
statecheck_require_package(CLI11 libcli11-dev)
statecheck_require_package(fmt libfmt-dev)

find_package(PkgConfig QUIET)
if(NOT PKG_CONFIG_FOUND)
  message(FATAL_ERROR "statecheck needs pkg-config: install the Debian package 'pkg-config'.")
endif()
pkg_check_modules(LIBFIU QUIET IMPORTED_TARGET libfiu)
if(NOT LIBFIU_FOUND)
  message(FATAL_ERROR "statecheck needs libfiu: install the Debian packages 'libfiu-dev' and "
                      "'fiu-utils'.")
endif()

# gperftools' tcmalloc (the minimal one: no heap profiler) for the harness's executables in the
# builds without sanitizers (statecheck_fast_malloc). A campaign case allocates and frees in every
# RocksDB open it makes (options serialized and parsed back, tables and caches opened); glibc's
# malloc was a fifth of the task family's samples. Only the harness links it: the engine library
# and the product build use whatever allocator the user's program has.
option(STATECHECK_TCMALLOC "Link the harness's executables with tcmalloc_minimal" ON)
if(STATECHECK_TCMALLOC AND NOT STATECHECK_SANITIZE AND NOT STATECHECK_TSAN AND NOT STATECHECK_FUZZ)
  find_library(STATECHECK_TCMALLOC_LIBRARY NAMES tcmalloc_minimal libtcmalloc_minimal.so.4)
  if(NOT STATECHECK_TCMALLOC_LIBRARY)
    message(FATAL_ERROR "statecheck links its harness with tcmalloc: install the Debian package "
                        "'libtcmalloc-minimal4' (or run ci/setup.sh), or configure with "
                        "-DSTATECHECK_TCMALLOC=OFF to keep glibc's malloc.")
  endif()
endif()
