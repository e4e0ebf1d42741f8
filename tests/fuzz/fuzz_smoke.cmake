# One fuzzer's smoke run (ctest's fuzz/<reader>, docs/fuzzing.md):
#   cmake -DFUZZER=<binary> -DREADER=<name> -DSOURCE=<tests/fuzz> -DWORK=<scratch dir> -DRUNS=N -DSECONDS=S
#         -P tests/fuzz/fuzz_smoke.cmake
# First every kept crash input in SOURCE/regressions/READER/ is replayed once (each must now be read
# cleanly), then the fuzzer runs over SOURCE/corpus/READER/ for RUNS executions or SECONDS, whichever comes
# first, from a fixed random seed (-DSEED=N, default 1): the same executions on every machine, so that a test
# run passes or fails by the code, never by luck (the long exploratory runs that look for new findings use
# other seeds: docs/fuzzing.md). Inputs it finds go to WORK (emptied first), a crash input to WORK/crash-*;
# the source tree is only read.
cmake_minimum_required(VERSION 3.25)
foreach(v FUZZER READER SOURCE WORK RUNS SECONDS)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "fuzz_smoke.cmake: pass -D${v}=...")
  endif()
endforeach()
if(NOT DEFINED SEED)
  set(SEED 1)
endif()
set(flags -rss_limit_mb=2048 -timeout=10 -max_len=65536 -print_final_stats=1)
file(GLOB regressions ${SOURCE}/regressions/${READER}/*)
list(LENGTH regressions kept)
if(kept GREATER 0)
  execute_process(COMMAND ${FUZZER} ${flags} ${regressions} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "fuzz/${READER}: a kept crash input (tests/fuzz/regressions/${READER}/) fails again:\n${out}")
  endif()
  message(STATUS "fuzz/${READER}: ${kept} kept crash input(s) read cleanly")
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus)
execute_process(COMMAND ${FUZZER} ${flags} -seed=${SEED} -runs=${RUNS} -max_total_time=${SECONDS} -artifact_prefix=${WORK}/
                        ${WORK}/corpus ${SOURCE}/corpus/${READER}
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(REGEX MATCH "stat::number_of_executed_units: *[0-9]+" execs "${out}")
string(REGEX MATCH "cov: [0-9]+ ft: [0-9]+" cov "${out}")
if(NOT result EQUAL 0)
  # The report, not the thousands of progress lines before it.
  set(report "${out}")
  foreach(marker "==streamscope-fuzz==" "ERROR: AddressSanitizer" "ERROR: LeakSanitizer" "runtime error:"
                 "ERROR: libFuzzer" "==ERROR")
    string(FIND "${out}" "${marker}" at)
    if(at GREATER -1)
      string(SUBSTRING "${out}" ${at} -1 report)
      break()
    endif()
  endforeach()
  file(GLOB artifacts ${WORK}/crash-* ${WORK}/timeout-* ${WORK}/oom-* ${WORK}/leak-*)
  message(FATAL_ERROR "fuzz/${READER}: the fuzzer found an input the reader does not survive (${artifacts}); "
                      "its report:\n${report}\nKeep the input as a regression: docs/fuzzing.md")
endif()
message(STATUS "fuzz/${READER}: clean, ${execs}, ${cov}")
