#!/usr/bin/env bash
# GPU faults (issue #13, item 7) on the GPU host, in one call of a few minutes: the fault tests, the
# compute-sanitizer over every preset, and many runs from one app session without growth.
#
#   tests/gpu/faults-session.sh BUILD_DIR OUT_DIR [steps...]
#     steps: tests memcheck runs large racecheck (default: all five, in that order); regression (not by
#            default): tst_runner_gpu, the runner's own GPU tests, after the runner's waits became polls
#            large: the tests that need more memory than the build machine has (STREAMSCOPE_LARGE_TESTS=1:
#            tst_gzip memberOverOneGiB, about 2.3 GB and a few seconds)
#     BUILD_DIR: a build, or what tests/gpu/pack-faults.sh made (app/streamscope-cli, tests/tst_*,
#                qt-runtime.tgz, which is unpacked and used when present)
#   Environment: SESSION_BUDGET_S (default 540): the whole session's seconds; the many-runs check and the
#     racecheck/synccheck pass stop where the budget ends and say how far they got. RUNS (default 1000):
#     the many-runs check's target count.
#
# Prints one line per test function that did not pass, per sanitizer run, and the figures; ends with a
# summary. Everything is also in OUT_DIR/faults-session.log.
#
# Exit status: 1 when anything failed (a test program, a sanitizer run, a missing program); else 3 when
# nothing on the GPU was judged (no usable GPU, or every step skipped: every test function skipped, every
# sanitizer run skipped for time); else 0.
set -uo pipefail
build=$(realpath "${1:?usage: $0 BUILD_DIR OUT_DIR [steps]}"); out=$(realpath -m "${2:?}"); shift 2
steps=${*:-tests memcheck runs large racecheck}
budget=${SESSION_BUDGET_S:-540}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
exec > >(tee -a "$out/faults-session.log") 2>&1
cd "$root"
export STREAMSCOPE_CLI="$build/app/streamscope-cli" STREAMSCOPE_SOURCE_DIR="$root" QT_QPA_PLATFORM=offscreen
if [ -f "$build/qt-runtime.tgz" ]; then
  mkdir -p /tmp/qt && tar xzf "$build/qt-runtime.tgz" -C /tmp/qt && source /tmp/qt/env.sh
fi
has() { [[ " $steps " == *" $1 "* ]]; }
left() { echo $((budget - SECONDS)); }
declare -a summary
failures=0 judged=0
fail() { echo "FAILED: $*"; summary+=("FAILED: $*"); failures=$((failures + 1)); }
# A QtTest program's verdict from its txt log ($1) and exit status ($2): failed, or judged when at least
# one test function other than initTestCase/cleanupTestCase passed, else all skipped.
verdict() {
  local passed
  passed=$(grep -E '^PASS +: ' "$1" 2>/dev/null | grep -cvE '::(initTestCase|cleanupTestCase)\(\)')
  if [ "$2" -ne 0 ]; then echo failed; elif [ "$passed" -gt 0 ]; then echo judged; else echo skipped; fi
}
# Records a test program's verdict: name, txt log, exit status.
record() {
  case $(verdict "$2" "$3") in
    failed) fail "$1 (exit $3)" ;;
    judged) judged=$((judged + 1)) ;;
    skipped) echo "-- $1: every test function skipped (not judged)"; summary+=("$1: not judged, every function skipped") ;;
  esac
}

echo "== $(date -u +%FT%TZ) on $(hostname), budget ${budget}s, steps: $steps"
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv,noheader 2>&1 || true
gpu=1
"$STREAMSCOPE_CLI" devices || { gpu=0; echo "(no usable GPU: the GPU tests will skip, and the session judges nothing)"; }

if has tests; then
  echo "== fault tests"
  for t in tst_run_watchdog tst_host_memory tst_runner_faults tst_cli_faults tst_run_faults; do
    [ -x "$build/tests/$t" ] || { fail "$t missing"; continue; }
    start=$SECONDS
    # tst_run_faults' many-runs check runs in the runs step, with its target count.
    args=(); [ $t = tst_run_faults ] && args=(childKilledMidRun childCrashes timeLimitHasItsTitle illegalAddressShown \
      hangStoppedByTimeLimit realCliKilledOverAHang)
    "$build/tests/$t" "${args[@]}" -o "$out/$t.txt,txt" -o -,txt 2>&1 | grep -E '^(FAIL|SKIP|QINFO|XPASS|Totals|   Loc)|Received signal'
    rc=${PIPESTATUS[0]}
    echo "-- $t: exit $rc in $((SECONDS - start)) s"
    summary+=("$t: $(grep -E '^Totals' "$out/$t.txt" | sed 's/, 0 blacklisted.*//') (exit $rc)")
    record "$t" "$out/$t.txt" "$rc"
  done
  # No kernel of the runs above may be left on the GPU.
  nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader 2>&1 | sed 's/^/compute apps left: /'
fi

if has memcheck; then
  echo "== compute-sanitizer memcheck (leak check) over every preset"
  start=$SECONDS
  DEADLINE=$(( $(date +%s) + $(left) - 150 )) tests/gpu/compute-sanitizer.sh "$STREAMSCOPE_CLI" memcheck | tee "$out/memcheck.txt"
  rc=${PIPESTATUS[0]}
  summary+=("memcheck: $(grep -E '^compute-sanitizer:' "$out/memcheck.txt") in $((SECONDS - start)) s (exit $rc)")
  case $rc in 0) judged=$((judged + 1)) ;; 3) echo "-- memcheck: every run skipped for time (not judged)" ;; *) fail "memcheck (exit $rc)" ;; esac
fi

if has runs; then
  echo "== many runs from one app session (RunSession, the real CLI)"
  reserve=20; has racecheck && reserve=60 # seconds kept for what follows
  runs_budget=$(( $(left) - reserve ))
  [ $runs_budget -lt 30 ] && runs_budget=30
  # QtTest ends a test function after 300 s by default: give it the budget and a minute.
  QTEST_FUNCTION_TIMEOUT=$(( (runs_budget + 60) * 1000 )) \
  STREAMSCOPE_RUNS=${RUNS:-1000} STREAMSCOPE_RUNS_BUDGET_S=$runs_budget STREAMSCOPE_RUNS_TIMING=events \
    "$build/tests/tst_run_faults" manyRunsWithoutGrowth -o "$out/runs.txt,txt" -o -,txt 2>&1 |
    grep -E '^(FAIL|QINFO|QWARN|Totals|   Loc)'
  rc=${PIPESTATUS[0]}
  summary+=("runs: $(grep -E 'runs after' "$out/runs.txt" | sed 's/.*manyRunsWithoutGrowth() //') $(grep -E '^Totals' "$out/runs.txt" | sed 's/, 0 blacklisted.*//')")
  if [ -x "$build/tests/tst_run_faults" ]; then record "tst_run_faults manyRunsWithoutGrowth" "$out/runs.txt" "$rc"; else fail "tst_run_faults missing"; fi
fi

if has large; then
  echo "== large tests (STREAMSCOPE_LARGE_TESTS=1)"
  if [ -x "$build/tests/tst_gzip" ]; then
    STREAMSCOPE_LARGE_TESTS=1 "$build/tests/tst_gzip" memberOverOneGiB -o "$out/tst_gzip-large.txt,txt" -o -,txt 2>&1 |
      grep -E '^(FAIL|SKIP|PASS|Totals|   Loc)'
    rc=${PIPESTATUS[0]}
    summary+=("tst_gzip memberOverOneGiB: $(grep -E '^Totals' "$out/tst_gzip-large.txt" | sed 's/, 0 blacklisted.*//') (exit $rc)")
    record "tst_gzip memberOverOneGiB" "$out/tst_gzip-large.txt" "$rc"
  else
    fail "tst_gzip missing"
  fi
fi

if has regression; then
  echo "== the runner's GPU tests"
  "$build/tests/tst_runner_gpu" -o "$out/tst_runner_gpu.txt,txt" -o -,txt 2>&1 | grep -E '^(FAIL|SKIP|Totals|   Loc)'
  rc=${PIPESTATUS[0]}
  summary+=("tst_runner_gpu: $(grep -E '^Totals' "$out/tst_runner_gpu.txt" | sed 's/, 0 blacklisted.*//') (exit $rc)")
  if [ -x "$build/tests/tst_runner_gpu" ]; then record tst_runner_gpu "$out/tst_runner_gpu.txt" "$rc"; else fail "tst_runner_gpu missing"; fi
fi

if has racecheck; then
  echo "== compute-sanitizer racecheck and synccheck over every preset (as far as the budget goes)"
  DEADLINE=$(( $(date +%s) + $(left) - 10 )) tests/gpu/compute-sanitizer.sh "$STREAMSCOPE_CLI" racecheck synccheck |
    tee "$out/racecheck.txt"
  rc=${PIPESTATUS[0]}
  summary+=("racecheck+synccheck: $(grep -E '^compute-sanitizer:' "$out/racecheck.txt") (exit $rc)")
  case $rc in 0) judged=$((judged + 1)) ;; 3) echo "-- racecheck: every run skipped for time (not judged)" ;; *) fail "racecheck+synccheck (exit $rc)" ;; esac
fi

echo "== summary ($SECONDS s)"
printf '%s\n' "${summary[@]}"
if [ $failures -gt 0 ]; then
  echo "FAILED: $failures (exit 1)"; exit 1
fi
if [ $gpu -eq 0 ] || [ $judged -eq 0 ]; then
  echo "NOT JUDGED: $([ $gpu -eq 0 ] && echo 'no usable GPU' || echo 'every step skipped') (exit 3)"; exit 3
fi
echo "PASSED: $judged judged, nothing failed (exit 0)"
exit 0
