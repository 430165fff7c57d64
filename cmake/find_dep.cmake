# cmake/find_dep.cmake - how every optional library is looked for, and the one
# configure summary that says what was found and what becomes a skip row.
#
#   bench_find_dep(<KEY> NAMES <lib>... HEADER <file> [HEADER_SUFFIXES <dir>...]
#                  [VERSION_HEADER <file>] [VERSION_MACROS <macro>...]
#                  [WHEEL <nvidia/subdir>] [TOOLKIT])
#
# Looks for the library (each of NAMES as a link name or a whole file name,
# so a versioned `libcudnn.so.9` without its development link is found) and
# the header, and sets in the caller:
#   BENCH_<KEY>_LIBRARY, BENCH_<KEY>_INCLUDE_DIR  (cache entries)
#   BENCH_HAVE_<KEY>  ON or OFF
#   BENCH_<KEY>_VERSION  "9.19.0" from VERSION_MACROS in VERSION_HEADER
#                        (numbers joined by dots; a quoted string: the first
#                        dotted number in it), "" when unknown
# Where, in order:
#   -DBENCH_<KEY>_ROOT=DIR given: DIR alone (its lib, lib64, include, and the
#     wheel layout below it); nothing found there is "not found", never a
#     silent fall-back to the system copy.
#   else <KEY>_ROOT (CMake's own convention), with TOOLKIT the CUDA toolkit's
#     directories, the Python wheel layout (site-packages/<WHEEL>/lib and
#     /include, for every site-packages folder the python3 on the PATH reports),
#     then CMake's usual prefixes (/usr, /usr/local, /opt/..., the
#     multiarch folders).
include_guard(GLOBAL)

# The site-packages folders of the python3 on the PATH (none without one).
function(_bench_site_packages out)
  if(NOT DEFINED BENCH_SITE_PACKAGES)
    set(dirs "")
    find_program(BENCH_PYTHON3 NAMES python3)
    mark_as_advanced(BENCH_PYTHON3)
    if(BENCH_PYTHON3)
      execute_process(COMMAND ${BENCH_PYTHON3} -c
        "import site, sys; print(';'.join(site.getsitepackages() + [site.getusersitepackages()]))"
        OUTPUT_VARIABLE dirs OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0)
        set(dirs "")
      endif()
    endif()
    set(BENCH_SITE_PACKAGES "${dirs}" CACHE INTERNAL "python3's site-packages folders")
  endif()
  set(${out} "${BENCH_SITE_PACKAGES}" PARENT_SCOPE)
endfunction()

function(bench_find_dep KEY)
  cmake_parse_arguments(PARSE_ARGV 1 A "TOOLKIT" "HEADER;VERSION_HEADER;WHEEL"
                        "NAMES;HEADER_SUFFIXES;VERSION_MACROS")
  set(lib_var BENCH_${KEY}_LIBRARY)
  set(inc_var BENCH_${KEY}_INCLUDE_DIR)
  set(roots "")
  set(only "")
  if(BENCH_${KEY}_ROOT)
    set(roots ${BENCH_${KEY}_ROOT})
    if(A_WHEEL)
      list(APPEND roots ${BENCH_${KEY}_ROOT}/${A_WHEEL})
    endif()
    set(only NO_DEFAULT_PATH)
    set(where "under BENCH_${KEY}_ROOT=${BENCH_${KEY}_ROOT}")
  else()
    if(${KEY}_ROOT)
      list(APPEND roots ${${KEY}_ROOT})
    endif()
    if(A_TOOLKIT)
      list(APPEND roots ${CUDAToolkit_LIBRARY_ROOT} ${CUDAToolkit_TARGET_DIR} /usr/local/cuda)
    endif()
    if(A_WHEEL)
      _bench_site_packages(sites)
      foreach(s IN LISTS sites)
        list(APPEND roots ${s}/${A_WHEEL})
      endforeach()
    endif()
    set(where "in the usual prefixes")
  endif()
  set(libdirs "")
  set(incdirs "")
  foreach(r IN LISTS roots)
    list(APPEND libdirs ${r}/lib ${r}/lib64 ${r}/targets/x86_64-linux/lib ${r})
    list(APPEND incdirs ${r}/include ${r}/targets/x86_64-linux/include)
  endforeach()
  if(A_TOOLKIT AND NOT only)
    list(PREPEND libdirs ${CUDAToolkit_LIBRARY_DIR})
    list(PREPEND incdirs ${CUDAToolkit_INCLUDE_DIRS})
  endif()
  find_library(${lib_var} NAMES ${A_NAMES} HINTS ${libdirs} ${only})
  find_path(${inc_var} ${A_HEADER} HINTS ${incdirs} PATH_SUFFIXES ${A_HEADER_SUFFIXES} ${only})
  mark_as_advanced(${lib_var} ${inc_var})
  set(version "")
  if(${lib_var} AND ${inc_var} AND A_VERSION_HEADER AND EXISTS ${${inc_var}}/${A_VERSION_HEADER})
    file(READ ${${inc_var}}/${A_VERSION_HEADER} text)
    foreach(m IN LISTS A_VERSION_MACROS)
      if(text MATCHES "#define[ \t]+${m}[ \t]+([0-9]+)")
        list(APPEND version ${CMAKE_MATCH_1})
      elseif(text MATCHES "#define[ \t]+${m}[ \t]+\"[^\"0-9]*([0-9]+(\\.[0-9]+)*)")
        list(APPEND version ${CMAKE_MATCH_1})
      endif()
    endforeach()
    list(JOIN version "." version)
  endif()
  if(${lib_var} AND ${inc_var})
    set(BENCH_HAVE_${KEY} ON PARENT_SCOPE)
  else()
    set(BENCH_HAVE_${KEY} OFF PARENT_SCOPE)
    set(BENCH_${KEY}_WHERE "${where}" PARENT_SCOPE)
  endif()
  set(BENCH_${KEY}_VERSION "${version}" PARENT_SCOPE)
endfunction()

# bench_summary(<what> <found-or-not sentence>): one line of the configure
# summary, printed once, at the end of the top CMakeLists.txt.
function(bench_summary what line)
  string(REPLACE ";" "," line "${line}")   # one list element a line
  string(LENGTH "${what}" n)
  set(pad "")
  if(n LESS 10)
    math(EXPR k "10 - ${n}")
    string(REPEAT " " ${k} pad)
  endif()
  set_property(GLOBAL APPEND PROPERTY BENCH_SUMMARY_LINES "  ${what}${pad} ${line}")
endfunction()

# bench_summary_dep(<KEY> <what> <what becomes of it when missing>): the line
# for a library bench_find_dep looked for.
function(bench_summary_dep KEY what missing)
  if(BENCH_HAVE_${KEY})
    set(v "")
    if(BENCH_${KEY}_VERSION)
      set(v " ${BENCH_${KEY}_VERSION}")
    endif()
    bench_summary("${what}" "found${v}: ${BENCH_${KEY}_LIBRARY}")
  else()
    bench_summary("${what}" "NOT FOUND ${BENCH_${KEY}_WHERE}: ${missing}")
  endif()
endfunction()

function(bench_summary_print)
  get_property(lines GLOBAL PROPERTY BENCH_SUMMARY_LINES)
  set(text "bench configure summary (what was found; what is missing becomes skip rows naming it):")
  foreach(l IN LISTS lines)
    string(APPEND text "\n${l}")
  endforeach()
  message(STATUS "${text}")
endfunction()
