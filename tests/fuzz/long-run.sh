#!/usr/bin/env bash
# The fuzzers' long run (docs/fuzzing.md): for each reader, WORKERS processes of its fuzzer, each from its
# own random seed over the reader's seed corpus, together EXECS executions (1M by default) or SECONDS of
# wall time, whichever comes first. Every worker's new inputs go to one corpus folder per reader in WORK
# (never into the source tree), a crash input to WORK/<reader>/crash-* (replay it: `fuzz_<reader> FILE`).
#
#   tests/fuzz/long-run.sh FUZZERS_DIR WORK [READERS...]
#   env: WORKERS (default: the CPU count), EXECS (1000000), SECONDS_PER_READER (3600), SOURCE (tests/fuzz)
#
# FUZZERS_DIR holds the built fuzz_<reader> binaries (build/sanitize/tests/fuzz after `ctest -R
# sanitize-build`). Prints one line per reader (executions, workers, wall seconds, executions per second,
# coverage, findings) and writes the same table to WORK/long-run.tsv. Exit status 1 when any reader had a
# finding.
set -u
fuzzers=$1
work=$2
shift 2
readers=("$@")
[ ${#readers[@]} -eq 0 ] && readers=(workload native chrome gzip comparison nsys)
workers=${WORKERS:-$(nproc)}
execs=${EXECS:-1000000}
limit=${SECONDS_PER_READER:-3600}
source=${SOURCE:-$(cd "$(dirname "$0")" && pwd)}
per_worker=$(((execs + workers - 1) / workers))
mkdir -p "$work"
table=$work/long-run.tsv
printf 'reader\texecutions\tworkers\twall_s\texec_per_s\tcoverage\tfindings\n' >"$table"
failed=0
for reader in "${readers[@]}"; do
    bin=$fuzzers/fuzz_$reader
    if [ ! -x "$bin" ]; then
        echo "long-run: no fuzzer $bin" >&2
        exit 2
    fi
    dir=$work/$reader
    rm -rf "$dir"
    mkdir -p "$dir/corpus" "$dir/logs"
    start=$(date +%s.%N)
    for ((w = 0; w < workers; w++)); do
        # A seed per worker and per run: a long run looks for what the fixed-seed CI smoke run cannot.
        "$bin" -rss_limit_mb=2048 -timeout=10 -max_len=65536 -print_final_stats=1 \
            -seed=$((RANDOM * 32768 + RANDOM + w)) -runs=$per_worker -max_total_time=$limit \
            -artifact_prefix="$dir/" "$dir/corpus" "$source/corpus/$reader" >"$dir/logs/worker-$w.log" 2>&1 &
    done
    wait
    end=$(date +%s.%N)
    total=0
    for log in "$dir"/logs/worker-*.log; do
        n=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
        total=$((total + ${n:-0}))
    done
    cov=$(grep -ho 'cov: [0-9]* ft: [0-9]*' "$dir"/logs/worker-*.log | sort -t' ' -k2 -n | tail -1)
    findings=$(find "$dir" -maxdepth 1 \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
    rate=$(awk -v n="$total" -v w="$wall" 'BEGIN { printf "%.0f", (w > 0) ? (n / w) : 0 }')
    printf '%s\t%s\t%s\t%.0f\t%s\t%s\t%s\n' "$reader" "$total" "$workers" "$wall" "$rate" "${cov:-?}" "$findings" | tee -a "$table"
    if [ "$findings" -gt 0 ]; then
        failed=1
        for f in "$dir"/crash-* "$dir"/timeout-* "$dir"/oom-* "$dir"/leak-*; do
            [ -e "$f" ] || continue
            echo "== $reader finding: $f (base64: $(base64 -w0 "$f" | head -c 2000))"
        done
        grep -h -A12 -E 'ERROR: |runtime error:|==streamscope-fuzz==' "$dir"/logs/worker-*.log | head -60
    fi
done
exit $failed
