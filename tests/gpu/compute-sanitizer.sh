#!/usr/bin/env bash
# compute-sanitizer over `streamscope-cli run` of every lesson preset in resources/workloads: memcheck
# (with the device-memory leak check), racecheck and synccheck, one measured repetition and no warm-up
# each, timed by events (CUPTI and the sanitizer both hook the driver; one extra memcheck run keeps
# CUPTI's path covered on the overlap lesson). Runs on the GPU host (compute-sanitizer comes with the CUDA
# toolkit).
#
#   tests/gpu/compute-sanitizer.sh CLI [TOOL...]      (TOOLs: memcheck racecheck synccheck; default all)
#   DEADLINE=EPOCH_SECONDS: runs that would start after it are skipped and counted (a lease's time budget).
#
# Exit status: 0 when every run that ran ended with exit 0 and a clean sanitizer summary; 1 when one did
# not (an error the sanitizer reports, a run that failed, a missing summary); 2 without compute-sanitizer;
# 3 when nothing was checked (every run skipped for time: not judged, as bench_p2p's "skipped").
set -uo pipefail
cli=$(realpath "${1:?usage: $0 path/to/streamscope-cli [memcheck|racecheck|synccheck ...]}"); shift
tools=${*:-memcheck racecheck synccheck}
root=$(cd "$(dirname "$0")/../.." && pwd)
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$san" ] || { echo "compute-sanitizer not found (PATH, /usr/local/cuda/bin)"; exit 2; }
"$san" --version | tail -1

failures=0 runs=0 skipped=0
check() { # tool name timing workload
  local tool=$1 name=$2 timing=$3 workload=$4 log rc start summary extra=()
  if [ -n "${DEADLINE:-}" ] && [ "$(date +%s)" -ge "$DEADLINE" ]; then
    skipped=$((skipped + 1)); echo "skip  $tool $name ($timing): the time budget is spent"; return
  fi
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  log=$(mktemp); start=$SECONDS
  "$san" --tool "$tool" "${extra[@]}" --error-exitcode 86 --print-limit 20 \
    "$cli" run "$workload" --repeat 1 --warmup 0 --ops 0 --timing "$timing" >"$log" 2>&1
  rc=$?
  runs=$((runs + 1))
  summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$log" | tr -s ' =' ' ' | paste -sd';' -)
  if [ $rc -ne 0 ] || [ -z "$summary" ] || grep -qE "ERROR SUMMARY: [1-9]|RACECHECK SUMMARY: [1-9]" "$log"; then
    failures=$((failures + 1))
    echo "FAIL  $tool $name ($timing): exit $rc;$summary"
    grep -vE "^(  |running|\s*$)" "$log" | tail -40
  else
    echo "ok    $tool $name ($timing, $((SECONDS - start)) s):$summary"
  fi
  rm -f "$log"
}

for tool in $tools; do
  for w in "$root"/resources/workloads/*.json; do
    check "$tool" "$(basename "$w" .json)" events "$w"
  done
  [ "$tool" = memcheck ] && check memcheck overlap cupti "$root/resources/workloads/overlap.json"
done
echo "compute-sanitizer: $runs runs, $failures failed, $skipped skipped for time"
[ $failures -eq 0 ] || exit 1
[ $runs -gt 0 ] || { echo "SKIPPED: no run was checked"; exit 3; }
exit 0
