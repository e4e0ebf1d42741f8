#!/bin/bash
# The targets of issue #24 on hostile inputs: each file through the CLI (summary, or validate for a
# workload; export to Chrome JSON), the headless export (--export-image) and the window (offscreen,
# --screenshot), each under `ulimit -v 3000000` (a 3 GB address-space cap), timed by /usr/bin/time -v.
#   tests/hostile/check_targets.sh INPUTS BUILD [FILES...]
# INPUTS: the folder tests/hostile/make_inputs.py wrote; every file there and in tests/data/hostile is
# run unless FILES are named. Prints one tab-separated row per run: input, size, mode, peak RSS (MB),
# wall and CPU time (s), exit code, the budget's verdict, the first line of standard error.
# The budget: max(3x the decompressed input, 200 MB) + the trace's kept size (the kept size is not known
# here: the verdict says "over" when the peak exceeds the first part, to be read against it), 10 s per
# 100 MB (at least 10 s), no signal, no exit 1.
set -u
INPUTS=${1:?INPUTS folder}
BUILD=${2:?BUILD folder}
shift 2
SRC=$(cd "$(dirname "$0")/../.." && pwd)
CLI=$BUILD/app/streamscope-cli
APP=$BUILD/app/streamscope
OUT=$(mktemp -d /tmp/hostile-out.XXXXXX)
MODES=${MODES:-"cli-summary cli-export headless window"}
if [ $# -gt 0 ]; then
    files=("$@")
else
    files=("$INPUTS"/* "$SRC"/tests/data/hostile/*.{json,sstrace,sscompare,sqlite})
fi

decompressed() {
    case "$1" in
    *.gz) gzip -dc "$1" | wc -c ;;
    *) stat -c %s "$1" ;;
    esac
}

printf 'input\tsize\tmode\tpeak MB\twall s\tCPU s\texit\tverdict\tmessage\n'
for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    name=$(basename "$f")
    size=$(decompressed "$f")
    budget_mb=$(( size * 3 / 1000000 ))
    [ $budget_mb -lt 200 ] && budget_mb=200
    limit_s=$(( size / 10000000 ))
    [ $limit_s -lt 10 ] && limit_s=10
    for mode in $MODES; do
        case "$mode:$name" in
        cli-summary:workload-*) cmd=("$CLI" validate "$f") ;;
        cli-summary:comparison-*) cmd=("$CLI" compare "$f") ;;
        cli-summary:*) cmd=("$CLI" summary "$f" --ops 5) ;;
        cli-export:workload-* | cli-export:comparison-*) continue ;;
        cli-export:*) cmd=("$CLI" export "$f" -o "$OUT/$name.out.json") ;;
        headless:*) cmd=("$APP" "$f" --export-image "$OUT/$name.png" --size 1280x720) ;;
        window:*) cmd=("$APP" "$f" --screenshot "$OUT/$name.window.png" --size 1280x720) ;;
        esac
        rm -f "$OUT/$name".*
        ( ulimit -v 3000000; QT_QPA_PLATFORM=offscreen timeout -s KILL $(( limit_s * 20 )) \
            /usr/bin/time -v -o "$OUT/time" "${cmd[@]}" > "$OUT/stdout" 2> "$OUT/stderr" )
        rc=$(sed -n 's/.*Exit status: //p' "$OUT/time")
        sig=$(sed -n 's/.*Command terminated by signal //p' "$OUT/time")
        [ -n "$sig" ] && rc="signal $sig"
        [ -z "$rc" ] && rc="killed (timeout)"
        kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$OUT/time")
        peak=$(( ${kb:-0} / 1000 ))
        cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$OUT/time")
        wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$OUT/time" |
            awk -F: '{ s = 0; for (i = 1; i <= NF; ++i) s = s * 60 + $i; printf "%.2f", s }')
        verdict=ok
        [ $peak -gt $budget_mb ] && verdict="over ${budget_mb} MB + kept?"
        # Time is judged in CPU seconds: on a shared machine the wall clock counts other processes' turns.
        awk -v w="$cpu" -v l="$limit_s" 'BEGIN { exit !(w > l) }' && verdict="$verdict; slow (> ${limit_s} s)"
        case "$rc" in 0 | 2 | 3 | 4 | 7) ;; *) verdict="FAIL ($rc)" ;; esac
        msg=$(grep -v '^\s*$' "$OUT/stderr" | grep -v 'QStandardPaths\|propagateSizeHints' | head -1 | cut -c1-160)
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$size" "$mode" "$peak" "${wall:-?}" "$cpu" "$rc" "$verdict" "$msg"
    done
done
rm -rf "$OUT"
