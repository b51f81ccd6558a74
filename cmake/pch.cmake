# Precompiled headers: the third-party and standard headers that most translation units include
# (nlohmann/json in over half of them, fmt, <filesystem>; doctest in every test, CLI11 in every
# CLI file) are compiled once per group of targets instead of once per file.
#
# A precompiled header is only usable by a compile with the same code-generation settings as the
# one that made it: clang refuses one made with or without -fPIC, -fvisibility or a different
# -fsanitize, gcc ignores it. So every target of the tree is put in a group by those settings, and
# each group compiles its header once, in a small object library of its own (ds_pch_*), which the
# group's targets reuse (REUSE_FROM). The groups are found from the targets themselves when the
# configure ends, so a new source file, area or test binary gets the headers with no CMake edit.
#
# The headers only go into what includes them anyway, with one difference: a file that forgets an
# include of these headers still compiles. -DDRIVESCOPE_PCH=OFF builds without them (the way to
# check includes). DISABLE_PRECOMPILE_HEADERS on a target opts it out (tests/main.cpp's doctest
# main must include doctest itself after DOCTEST_CONFIG_IMPLEMENT).
# Measured (docs/performance.md, "Build and CI time"): clang (the sanitizer tree) spends a fifth
# less CPU per file with them, since -fpch-instantiate-templates does json's and fmt's template
# work once; gcc gains nothing (its header, 126 MB with -g, costs in loading what it saves in
# parsing), so it is on by default for clang only.
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  set(ds_pch_default ON)
else()
  set(ds_pch_default OFF)
endif()
option(DRIVESCOPE_PCH "Precompile the common third-party and standard headers" ${ds_pch_default})

set(DS_PCH_HEADERS
  <algorithm> <array> <chrono> <cmath> <cstdint> <cstdio> <filesystem> <fstream> <functional>
  <map> <memory> <optional> <span> <sstream> <string> <string_view> <vector>
  <fmt/format.h> <nlohmann/json.hpp>)
# And for the targets that link doctest (the test binaries) or CLI11 (the CLI, where CLI11 makes
# every file the heaviest of the build): their headers too. "LINKED-TARGET HEADER" pairs.
set(DS_PCH_LINKED_HEADERS "doctest::doctest <doctest/doctest.h>" "CLI11::CLI11 <CLI/CLI.hpp>")

# ccache caches compiles that use a precompiled header only with these sloppiness settings (the
# header is rewritten just before its users compile, and its macros are not all in the hash). For
# the local build with -DCMAKE_CXX_COMPILER_LAUNCHER=ccache; CI builds without ccache.
if(DRIVESCOPE_PCH AND CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache" AND NOT CMAKE_CXX_COMPILER_LAUNCHER MATCHES "SLOPPINESS")
  set(CMAKE_CXX_COMPILER_LAUNCHER
      ${CMAKE_COMMAND} -E env CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
      ${CMAKE_CXX_COMPILER_LAUNCHER})
endif()
if(DRIVESCOPE_PCH AND CMAKE_CXX_COMPILER_ID MATCHES "Clang" AND CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache")
  # Without a timestamp in the .pch, a header restored from ccache stays valid.
  add_compile_options("SHELL:-Xclang -fno-pch-timestamp")
endif()

# Every C++ target defined in the given directories, with the group's header set reused.
function(ds_precompile_headers)
  if(NOT DRIVESCOPE_PCH)
    return()
  endif()
  set(targets "")
  foreach(dir ${ARGN})
    get_property(t DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    list(APPEND targets ${t})
  endforeach()
  set(groups "")
  foreach(t ${targets})
    get_target_property(type ${t} TYPE)
    if(NOT type MATCHES "^(STATIC_LIBRARY|OBJECT_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|EXECUTABLE)$")
      continue()
    endif()
    get_target_property(off ${t} DISABLE_PRECOMPILE_HEADERS)
    get_target_property(vis ${t} CXX_VISIBILITY_PRESET)
    if(off OR vis)
      continue()  # opted out; or hidden visibility (one plugin file: no group of its own)
    endif()
    get_target_property(pic ${t} POSITION_INDEPENDENT_CODE)
    if(NOT type STREQUAL "STATIC_LIBRARY" AND NOT type STREQUAL "OBJECT_LIBRARY" AND NOT type STREQUAL "EXECUTABLE")
      set(pic ON)
    endif()
    if(NOT pic)
      set(pic OFF)
    endif()
    get_target_property(opts ${t} COMPILE_OPTIONS)
    if(NOT opts)
      set(opts "")
    endif()
    get_target_property(links ${t} LINK_LIBRARIES)
    set(extra "")
    set(extra_links "")
    foreach(pair ${DS_PCH_LINKED_HEADERS})
      separate_arguments(pair)
      list(GET pair 0 lib)
      list(GET pair 1 header)
      if(lib IN_LIST links)
        list(APPEND extra ${header})
        list(APPEND extra_links ${lib})
      endif()
    endforeach()
    # The group's name: its settings, hashed (the options may hold any characters).
    string(MD5 key "${pic}|${extra}|${opts}")
    string(SUBSTRING ${key} 0 8 key)
    set(holder ds_pch_${key})
    if(NOT TARGET ${holder})
      add_library(${holder} OBJECT ${CMAKE_SOURCE_DIR}/cmake/pch_anchor.cpp)
      set_target_properties(${holder} PROPERTIES POSITION_INDEPENDENT_CODE ${pic})
      if(opts)
        target_compile_options(${holder} PRIVATE ${opts})
      endif()
      target_link_libraries(${holder} PRIVATE nlohmann_json::nlohmann_json fmt::fmt ${extra_links})
      target_precompile_headers(${holder} PRIVATE ${DS_PCH_HEADERS} ${extra})
      list(APPEND groups ${holder})
    endif()
    target_precompile_headers(${t} REUSE_FROM ${holder})
    # The header is made with fmt's definitions (FMT_SHARED), which a compile that uses it must
    # share: the few targets that do not link fmt already (json-only ones) link it too.
    target_link_libraries(${t} PRIVATE fmt::fmt)
  endforeach()
  list(LENGTH groups n)
  message(STATUS "Precompiled headers: ${n} groups")
endfunction()
