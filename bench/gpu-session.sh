#!/usr/bin/env bash
# Everything StreamScope checks on a real GPU, in one go (the GPU host is lent by the minute):
# the GPU tests, every preset run and recorded as an example trace, the benchmarks, and an Nsight
# Systems profile + SQLite export of presets for the Nsight comparison.
#
#   bench/gpu-session.sh BUILD_DIR OUT_DIR [steps...]
#     steps: tests cupti presets bench nsys compare twogpu gui guicompare quietbench
#            (default: tests presets bench nsys)
#     cupti: overlap, hyperq and concurrent-kernels timed by events too, for what events get wrong
#     compare: the three lesson comparisons; gui: a real run from the desktop app, screenshot;
#     guicompare: the three lesson comparisons started from the desktop app (--compare), screenshots;
#     quietbench: the CPU-only benchmarks (timeline scale, formats) on this quieter machine
#     twogpu: the two-GPU lessons recorded with their comparisons, bench_p2p, and Nsight captures of
#             both lessons compared op by op (needs two GPUs)
#
# Exit status: 0 when every step ran and passed, 1 when anything failed (a test program, a run, a
# benchmark that missed its target or was skipped where it should have run, an Nsight comparison).
# BUILD_DIR is a build made with the CUDA toolkit (tests, app, bench). Results land in OUT_DIR:
# gpu-session.log, examples/*.sstrace, bench/*.json and nsys/*.sqlite, packed into one archive too.
set -uo pipefail
build=$(realpath "${1:?usage: $0 BUILD_DIR OUT_DIR [steps]}"); out=$(realpath -m "${2:?}"); shift 2
steps=${*:-tests presets bench nsys}
mkdir -p "$out"/examples "$out"/bench "$out"/nsys
log="$out/gpu-session.log"
exec > >(tee -a "$log") 2>&1
cli="$build/app/streamscope-cli"
echo "== $(date -u +%FT%TZ) on $(hostname)"
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used,clocks.sm,pcie.link.gen.current,pcie.link.width.current --format=csv 2>&1 || true
"$cli" devices

has() { [[ " $steps " == *" $1 "* ]]; }
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

if has cupti; then
  # The same preset timed both ways, one after the other, for what events get wrong; and under nsys, where
  # CUPTI is taken and the run must fall back to events and say so.
  echo "== CUPTI vs events"
  for name in overlap hyperq concurrent-kernels; do
    "$cli" run "resources/workloads/$name.json" --timing events -o "$out/examples/$name-events.sstrace" --ops 0 | grep -E "makespan|timing|H2D band|D2H band" || fail "events $name"
  done
fi

if has tests; then
  echo "== GPU tests"
  for t in "$build"/tests/tst_runner_gpu "$build"/tests/tst_cli "$build"/tests/tst_cli_compare \
           "$build"/tests/tst_run_controller "$build"/tests/tst_main_window "$build"/tests/tst_experiment_dialog \
           "$build"/tests/tst_comparison_views; do
    [ -x "$t" ] || { fail "no test program $t"; continue; }
    echo "-- $(basename "$t")"
    "$t" -o "$out/$(basename "$t").txt,txt" -o -,txt 2>&1 | grep -vE '^(PASS|QDEBUG|QINFO .*initTestCase)'
    rc=${PIPESTATUS[0]}; echo "rc=$rc"; [ "$rc" -eq 0 ] || fail "$(basename "$t") rc=$rc"
  done
fi

if has presets; then
  echo "== presets (recorded as examples)"
  for w in resources/workloads/*.json; do
    name=$(basename "$w" .json)
    echo "-- $name"
    case "$name" in peer-copies|thread-per-gpu) [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -ge 2 ] || { echo "(needs two GPUs)"; continue; } ;; esac
    /usr/bin/time -f "wall %es" "$cli" run "$w" -o "$out/examples/$name.sstrace" --ops 40 || fail "$name rc=$?"
  done
fi

if has bench; then
  echo "== benchmarks"
  for b in bench_engine_bandwidth bench_overhead bench_harris bench_cupti_cost; do
    [ -x "$build/bench/$b" ] || { fail "no benchmark $b"; continue; }
    echo "-- $b"; "$build/bench/$b" --out "$out/bench/$b.json" || fail "$b rc=$?"
  done
fi

if has nsys && [ -x .gpu/nsys-profile.sh ]; then
  echo "== Nsight Systems"
  for name in ${NSYS_PRESETS:-overlap overlap-breadth-first sync-vs-async concurrent-kernels}; do
    .gpu/nsys-profile.sh .gpu/nsyslibs "$out/nsys/$name" "$cli" run "resources/workloads/$name.json" \
      -o "$out/nsys/$name.sstrace" --ops 0 > "$out/nsys/$name.log" 2>&1 && echo "ok $name" || { fail "nsys $name"; tail -5 "$out/nsys/$name.log"; }
    rm -f "$out/nsys/$name.nsys-rep"
    # Under nsys, CUPTI is taken: the run must say it fell back to events.
    grep -A1 "  timing:" "$out/nsys/$name.log" | head -2
    # Against the separate CUPTI-timed run of the presets step: per-op medians of two runs.
    if [ -f "$out/examples/$name.sstrace" ] && [ -f "$out/nsys/$name.sqlite" ]; then
      "$cli" nsight-compare "$out/examples/$name.sstrace" "$out/nsys/$name.sqlite" --separate-runs --ops 0 \
        > "$out/nsys/$name.compare.txt" 2>&1 || fail "nsight-compare $name"
      grep -E "Agreement|outside|^  (all|h2d|d2h|p2p|kernel|memset) " "$out/nsys/$name.compare.txt"
    fi
  done
fi

if has compare; then
  echo "== lesson comparisons"
  "$cli" compare resources/workloads/bandwidth.json --vary memory=pageable,pinned -o "$out/bench/bandwidth.sscompare" || fail "compare bandwidth"
  "$cli" compare resources/workloads/sync-vs-async.json --vary api=sync,async -o "$out/bench/sync-vs-async.sscompare" || fail "compare sync-vs-async"
  "$cli" compare resources/workloads/overlap.json --vary chunks=8 --vary streams=1,2,4,8 --vary order=depth-first,breadth-first \
    -o "$out/bench/overlap.sscompare" || fail "compare overlap"
  "$cli" compare resources/workloads/hyperq.json -o "$out/bench/hyperq.sscompare" || fail "compare hyperq"
fi

if has twogpu; then
  echo "== two GPUs: the lessons, their comparisons, bench_p2p, Nsight"
  for name in peer-copies thread-per-gpu; do
    "$cli" run "resources/workloads/$name.json" -o "$out/examples/$name.sstrace" --ops 0 || fail "run $name"
    "$cli" compare "resources/workloads/$name.json" -o "$out/bench/$name.sscompare" || fail "compare $name"
  done
  if [ -x "$build/bench/bench_p2p" ]; then
    "$build/bench/bench_p2p" --out "$out/bench/bench_p2p.json"; rc=$?
    [ "$rc" -eq 0 ] || fail "bench_p2p rc=$rc"
  else
    fail "no benchmark bench_p2p"
  fi
  if [ -x .gpu/nsys-profile.sh ]; then
    for name in peer-copies thread-per-gpu; do
      .gpu/nsys-profile.sh .gpu/nsyslibs "$out/nsys/$name" "$cli" run "resources/workloads/$name.json" \
        -o "$out/nsys/$name.sstrace" --ops 0 > "$out/nsys/$name.log" 2>&1 || { fail "nsys $name"; tail -5 "$out/nsys/$name.log"; continue; }
      rm -f "$out/nsys/$name.nsys-rep"
      "$cli" nsight-compare "$out/examples/$name.sstrace" "$out/nsys/$name.sqlite" --separate-runs --ops 0 \
        > "$out/nsys/$name.compare.txt" 2>&1 || fail "nsight-compare $name"
      cat "$out/nsys/$name.compare.txt"
    done
  else
    fail "no .gpu/nsys-profile.sh for the Nsight captures"
  fi
fi

if has gui; then
  echo "== a real run from the desktop app"
  STREAMSCOPE_CLI="$cli" timeout 120 "$build/app/streamscope" resources/workloads/overlap.json --run \
    --screenshot "$out/gui-run-overlap.png" --size 1920x1080 || fail "gui run"
  STREAMSCOPE_CLI="$cli" timeout 120 "$build/app/streamscope" resources/workloads/sync-vs-async.json --run --presentation \
    --screenshot "$out/gui-run-sync-vs-async-presentation.png" --size 1280x720 || fail "gui run (presentation)"
fi

if has guicompare; then
  echo "== the lesson comparisons from the desktop app"
  for name in ${GUI_COMPARE:-bandwidth sync-vs-async overlap}; do
    STREAMSCOPE_CLI="$cli" /usr/bin/time -f "wall %es" timeout 300 "$build/app/streamscope" "resources/workloads/$name.json" \
      --compare --screenshot "$out/gui-compare-$name.png" --size 1920x1080 || fail "gui compare $name"
  done
fi

if has quietbench; then
  echo "== CPU-only benchmarks"
  for b in bench_ui_timeline bench_formats; do
    [ -x "$build/bench/$b" ] || { fail "no benchmark $b"; continue; }
    echo "-- $b"; "$build/bench/$b" --out "$out/bench/$b.json" || fail "$b rc=$?"
  done
fi

( cd "$out" && tar czf results.tgz examples bench nsys gpu-session.log $(ls *.txt *.png *.sscompare 2>/dev/null) 2>/dev/null )
ls -la "$out" "$out"/*/ | head -60
echo "== $failures failure(s)"
[ "$failures" -eq 0 ]
