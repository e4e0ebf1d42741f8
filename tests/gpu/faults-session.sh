#!/usr/bin/env bash
# GPU faults (issue #13, item 7) on the GPU host, in one call of a few minutes: the fault tests, the
# compute-sanitizer over every preset, and many runs from one app session without growth.
#
#   tests/gpu/faults-session.sh BUILD_DIR OUT_DIR [steps...]
#     steps: tests memcheck runs racecheck (default: all four, in that order); regression (not by default):
#            tst_runner_gpu, the runner's own GPU tests, after the runner's waits became polls
#     BUILD_DIR: a build, or what tests/gpu/pack-faults.sh made (app/streamscope-cli, tests/tst_*,
#                qt-runtime.tgz, which is unpacked and used when present)
#   Environment: SESSION_BUDGET_S (default 540): the whole session's seconds; the many-runs check and the
#     racecheck/synccheck pass stop where the budget ends and say how far they got. RUNS (default 1000):
#     the many-runs check's target count.
#
# Prints one line per test function that did not pass, per sanitizer run, and the figures; ends with a
# summary. Everything is also in OUT_DIR/faults-session.log.
set -uo pipefail
build=$(realpath "${1:?usage: $0 BUILD_DIR OUT_DIR [steps]}"); out=$(realpath -m "${2:?}"); shift 2
steps=${*:-tests memcheck runs racecheck}
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

echo "== $(date -u +%FT%TZ) on $(hostname), budget ${budget}s, steps: $steps"
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv,noheader 2>&1 || true
"$STREAMSCOPE_CLI" devices || echo "(no usable GPU: the GPU tests will skip)"

if has tests; then
  echo "== fault tests"
  for t in tst_run_watchdog tst_host_memory tst_runner_faults tst_cli_faults tst_run_faults; do
    [ -x "$build/tests/$t" ] || { echo "-- $t: missing"; summary+=("$t missing"); continue; }
    start=$SECONDS
    # tst_run_faults' many-runs check runs in the runs step, with its target count.
    args=(); [ $t = tst_run_faults ] && args=(childKilledMidRun childCrashes timeLimitHasItsTitle illegalAddressShown \
      hangStoppedByTimeLimit realCliKilledOverAHang)
    "$build/tests/$t" "${args[@]}" -o "$out/$t.txt,txt" -o -,txt 2>&1 | grep -E '^(FAIL|SKIP|QINFO|XPASS|Totals|   Loc)|Received signal'
    rc=${PIPESTATUS[0]}
    echo "-- $t: exit $rc in $((SECONDS - start)) s"
    summary+=("$t: $(grep -E '^Totals' "$out/$t.txt" | sed 's/, 0 blacklisted.*//') (exit $rc)")
  done
  # No kernel of the runs above may be left on the GPU.
  nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader 2>&1 | sed 's/^/compute apps left: /'
fi

if has memcheck; then
  echo "== compute-sanitizer memcheck (leak check) over every preset"
  start=$SECONDS
  DEADLINE=$(( $(date +%s) + $(left) - 150 )) tests/gpu/compute-sanitizer.sh "$STREAMSCOPE_CLI" memcheck | tee "$out/memcheck.txt"
  summary+=("memcheck: $(tail -1 "$out/memcheck.txt") in $((SECONDS - start)) s")
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
  summary+=("runs: $(grep -E 'runs after' "$out/runs.txt" | sed 's/.*manyRunsWithoutGrowth() //') $(grep -E '^Totals' "$out/runs.txt" | sed 's/, 0 blacklisted.*//')")
fi

if has regression; then
  echo "== the runner's GPU tests"
  "$build/tests/tst_runner_gpu" -o "$out/tst_runner_gpu.txt,txt" -o -,txt 2>&1 | grep -E '^(FAIL|SKIP|Totals|   Loc)'
  summary+=("tst_runner_gpu: $(grep -E '^Totals' "$out/tst_runner_gpu.txt" | sed 's/, 0 blacklisted.*//')")
fi

if has racecheck; then
  echo "== compute-sanitizer racecheck and synccheck over every preset (as far as the budget goes)"
  DEADLINE=$(( $(date +%s) + $(left) - 10 )) tests/gpu/compute-sanitizer.sh "$STREAMSCOPE_CLI" racecheck synccheck |
    tee "$out/racecheck.txt"
  summary+=("racecheck+synccheck: $(tail -1 "$out/racecheck.txt")")
fi

echo "== summary ($SECONDS s)"
printf '%s\n' "${summary[@]}"
