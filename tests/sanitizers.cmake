# The engine and the CLI under AddressSanitizer and UndefinedBehaviorSanitizer, and the fuzzers' smoke runs
# (docs/fuzzing.md): ctest's sanitize-build, sanitizers and fuzz-smoke tests run this script with STEP =
#   build  configure BUILD (clang, -DSTREAMSCOPE_SANITIZE=ON: engine, CLI, their tests and the fuzzers;
#          no GUI, no CUDA) and build it;
#   tests  run its engine and CLI tests (ctest -LE fuzz): any ASan, UBSan or LeakSanitizer report fails;
#   fuzz   run its fuzz/<reader> tests (ctest -L fuzz): kept crash inputs replayed, then a short fuzz each.
#   cmake -DROOT=<source> -DBUILD=<build>/sanitize -DCLANG=<clang> -DCLANGXX=<clang++> [-DLAUNCHER=ccache]
#         -DSTEP=build|tests|fuzz -P tests/sanitizers.cmake
cmake_minimum_required(VERSION 3.25)
foreach(v ROOT BUILD STEP)
  if(NOT ${v})
    message(FATAL_ERROR "sanitizers.cmake: pass -D${v}=...")
  endif()
endforeach()

# What a sanitizer said, one line each, so the end of a long log names it.
function(report_findings output)
  string(REGEX MATCHALL "[^\n]*(SUMMARY: [A-Za-z]+Sanitizer|runtime error:|==streamscope-fuzz== FINDING)[^\n]*"
         findings "${output}")
  list(REMOVE_DUPLICATES findings)
  set(failed "")
  string(FIND "${output}" "The following tests FAILED:" at)
  if(at GREATER -1)
    string(SUBSTRING "${output}" ${at} -1 failed)
    string(REGEX MATCHALL "[0-9]+ - [^\n]+" failed "${failed}")
  endif()
  list(JOIN findings "\n  " shown)
  list(JOIN failed "\n  " failedShown)
  set(FINDINGS "failed in ${BUILD}:\n  ${failedShown}\nsanitizer reports (each in full above):\n  ${shown}" PARENT_SCOPE)
endfunction()

if(STEP STREQUAL "build")
  if(NOT CLANG OR NOT CLANGXX)
    message(FATAL_ERROR "sanitize-build: clang was not found: install the Debian packages clang and "
                        "libclang-rt-14-dev (.ci/setup does), then configure again")
  endif()
  set(launcher)
  if(LAUNCHER)
    set(launcher -DCMAKE_C_COMPILER_LAUNCHER=${LAUNCHER} -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
  endif()
  # A BUILD configured otherwise (another compiler, or not as the sanitizer build) starts again from
  # nothing: changing the compiler of a configured build makes CMake drop every -D option on the way,
  # which would configure an ordinary build (GUI and all, with these very tests in it) in BUILD.
  if(EXISTS ${BUILD}/CMakeCache.txt)
    file(STRINGS ${BUILD}/CMakeCache.txt cached REGEX "^(CMAKE_CXX_COMPILER:[A-Z]+|STREAMSCOPE_SANITIZE:BOOL)=")
    if(NOT "CMAKE_CXX_COMPILER:FILEPATH=${CLANGXX}" IN_LIST cached AND NOT "CMAKE_CXX_COMPILER:STRING=${CLANGXX}" IN_LIST cached
       OR NOT "STREAMSCOPE_SANITIZE:BOOL=ON" IN_LIST cached)
      message(STATUS "sanitize-build: ${BUILD} was configured otherwise (${cached}): starting it again")
      file(REMOVE_RECURSE ${BUILD})
    endif()
  endif()
  # -O1 with line tables: the usual trade for sanitizers (fast enough, reports name file and line).
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${ROOT} -B ${BUILD} -G Ninja
                          -DCMAKE_C_COMPILER=${CLANG} -DCMAKE_CXX_COMPILER=${CLANGXX} ${launcher}
                          -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only"
                          "-DCMAKE_C_FLAGS_DEBUG=-O1 -gline-tables-only"
                          -DSTREAMSCOPE_SANITIZE=ON -DSTREAMSCOPE_WITH_GUI=OFF -DSTREAMSCOPE_WITH_CUDA=OFF
                          -DSTREAMSCOPE_WITH_BENCH=OFF -DSTREAMSCOPE_WITH_SANITIZERS=OFF
                  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "sanitize-build: configuring ${BUILD} failed:\n${out}")
  endif()
  file(STRINGS ${BUILD}/CMakeCache.txt cached REGEX "^STREAMSCOPE_SANITIZE:BOOL=ON$")
  if(NOT cached)
    message(FATAL_ERROR "sanitize-build: ${BUILD} is not configured as the sanitizer build:\n${out}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT result EQUAL 0)
    string(LENGTH "${out}" length)
    if(length GREATER 20000)
      math(EXPR from "${length} - 20000")
      string(SUBSTRING "${out}" ${from} -1 out)
    endif()
    message(FATAL_ERROR "sanitize-build: building ${BUILD} (clang, ASan+UBSan) failed:\n${out}")
  endif()
  message(STATUS "sanitize-build: ${BUILD} built with clang, ASan+UBSan")
  return()
endif()

if(STEP STREQUAL "tests")
  set(select -LE fuzz)
  set(what "the engine and CLI tests under ASan+UBSan")
elseif(STEP STREQUAL "fuzz")
  set(select -L fuzz)
  set(what "the fuzzers' smoke runs")
else()
  message(FATAL_ERROR "sanitizers.cmake: STEP is build, tests or fuzz, not '${STEP}'")
endif()
if(NOT EXISTS ${BUILD}/CTestTestfile.cmake)
  message(FATAL_ERROR "${STEP}: ${BUILD} is not built: the sanitize-build test builds it (ctest -R sanitize-build)")
endif()
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${BUILD} ${select} --output-on-failure --no-tests=error
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(NOT result EQUAL 0)
  report_findings("${out}")
  message(FATAL_ERROR "${STEP}: ${what} failed; ${FINDINGS}")
endif()
string(REGEX MATCH "[0-9]+% tests passed[^\n]*" passed "${out}")
message(STATUS "${STEP}: ${what}: ${passed}")
