# clang-tidy on the engine, checked on every test run (ctest's "tidy" test), with the check set and its
# reasons in .clang-tidy; any finding fails the test and is printed with its file and line:
#   cmake -DROOT=<source dir> -DBUILD=<build dir> -DRUN_CLANG_TIDY=<run-clang-tidy> -P tests/tidy.cmake
# The build's compile_commands.json says how each file is compiled, and which files there are: the runner's
# CUDA side (engine/run/runner_*.cpp, plain C++ against the CUDA headers) is checked in a build with CUDA,
# its CPU-only stages in every build. Device code (kernels/*.cu) is not engine code and is not checked.
cmake_minimum_required(VERSION 3.25)
if(NOT ROOT OR NOT BUILD)
  message(FATAL_ERROR "tidy.cmake: pass -DROOT=<source dir> -DBUILD=<build dir>")
endif()
if(NOT RUN_CLANG_TIDY)
  message(FATAL_ERROR "tidy: run-clang-tidy was not found: install the Debian package clang-tidy (.ci/setup does), then configure again")
endif()
if(NOT EXISTS ${BUILD}/compile_commands.json)
  message(FATAL_ERROR "tidy: ${BUILD}/compile_commands.json is missing (configure with CMAKE_EXPORT_COMPILE_COMMANDS=ON)")
endif()
cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
execute_process(COMMAND ${RUN_CLANG_TIDY} -p ${BUILD} -j ${cores} -quiet "${ROOT}/engine/.*\\.cpp$"
                WORKING_DIRECTORY ${ROOT} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
string(ASCII 27 esc)
string(REGEX REPLACE "${esc}\\[[0-9;]*m" "" output "${output}") # run-clang-tidy colours its output
string(REGEX MATCHALL "[^\n]*: (warning|error): [^\n]*" findings "${output}")
list(LENGTH findings count)
if(NOT result EQUAL 0 OR count GREATER 0)
  list(JOIN findings "\n  " shown)
  message(FATAL_ERROR "tidy: ${count} finding(s) in engine/ (checks and reasons in .clang-tidy):\n  ${shown}\n${errors}")
endif()
message(STATUS "tidy: engine/ clean under .clang-tidy")
