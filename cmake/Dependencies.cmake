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
