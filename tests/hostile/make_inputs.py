#!/usr/bin/env python3
"""Writes large hostile inputs, one or more of each class of issue #24, for the targets check:
    python3 tests/hostile/make_inputs.py [OUTDIR]      (default /tmp/hostile-inputs)
then tests/hostile/check_targets.sh OUTDIR BUILDDIR runs each through the CLI, the headless export and
the window under `ulimit -v 3000000` and prints the table (figures: bench/NOTES.md, "hostile inputs").
Nothing is written into the source tree: the files are large (about 1.3 GB in all); the small hand-made
ones are in tests/data/hostile, which the check runs too."""
import gzip
import json
import os
import sqlite3
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else "/tmp/hostile-inputs"
os.makedirs(OUT, exist_ok=True)


def path(name):
    return os.path.join(OUT, name)


def kineto_kernels(f, count, same_time=False, name="k"):
    """count tiny Kineto kernels on one stream, 1 us each (all at ts 1 when same_time)."""
    f.write(b'{"traceEvents":[\n')
    for i in range(count):
        ts = 1 if same_time else i * 2
        sep = b"," if i + 1 < count else b""
        f.write(b'{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%d,"dur":1,"args":{"stream":7}}%s\n'
                % (name.encode(), ts, sep))
    f.write(b"]}\n")


def write_if_missing(name, writer):
    p = path(name)
    if not os.path.exists(p):
        writer(p)
    print(f"{os.path.getsize(p):>12}  {p}")


# 1. Chrome/Kineto JSON: 3M tiny kernels (271 MiB; summary peaked 1.58 GB), a gzip of 249 MB of small
#    events (under 1 MB on disk), 500k kernels at one timestamp on one lane (class 7: painting).
write_if_missing("kineto-3M-kernels.json", lambda p: kineto_kernels(open(p, "wb"), 3_000_000))
write_if_missing("kineto-2.8M-same-time.json.gz",  # inflates to 249 MB, inside the 256 MiB gzip limit
                 lambda p: kineto_kernels(gzip.open(p, "wb", compresslevel=9), 2_800_000, same_time=True))
write_if_missing("kineto-500k-same-time.json", lambda p: kineto_kernels(open(p, "wb"), 500_000, same_time=True))


# 2.-3. Nsight SQLite: 12M kernel rows (over the 10M-op limit; must be refused before they are read).
def nsys_rows(p, rows):
    db = sqlite3.connect(p)
    db.executescript(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
        "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO StringIds VALUES (1, 'k');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
        " deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, shortName INTEGER NOT NULL);"
        f"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {rows})"
        " INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 2 * i, 2 * i + 1, 0, 7, 1 FROM n;")
    db.commit()
    db.close()


write_if_missing("nsys-12M-kernels.sqlite", lambda p: nsys_rows(p, 12_000_000))


# 4. Workloads: a 1M-entry schedule (27 MB; 1.55 GB before), repeats of long names.
def workload_schedule(p, entries):
    """Two streams of entries / 2 repeated memsets, and an explicit schedule interleaving them: the schedule
    is most of the file (27 MB)."""
    stream = '{"name":"%s","ops":[{"repeat":%d,"ops":[{"op":"memset","buffer":"d","bytes":"4 KiB"}]}]}'
    with open(p, "w") as f:
        f.write('{"version": 1, "name": "schedule",\n "buffers": [{"name": "d", "kind": "device", "bytes": "1 MiB"}],\n'
                ' "streams": [%s, %s],\n "schedule": [\n' % (stream % ("a", entries // 2), stream % ("b", entries // 2)))
        f.write(",\n".join('      [ "%s", %10d ]' % (s, i) for i in range(entries // 2) for s in ("a", "b")))
        f.write("\n ]\n}\n")


write_if_missing("workload-1M-schedule.json", lambda p: workload_schedule(p, 1_000_000))
def workload_literal(p, ops):
    """One stream of `ops` memsets written out one by one (no repeat): the ops are most of the file."""
    with open(p, "w") as f:
        f.write('{"version": 1, "name": "literal",\n "buffers": [{"name": "d", "kind": "device", "bytes": "1 MiB"}],\n'
                ' "streams": [{"name": "a", "ops": [\n')
        f.write(",\n".join('    {"op": "memset", "buffer": "d", "bytes": "4 KiB"}' for _ in range(ops)))
        f.write("\n ]}]\n}\n")


write_if_missing("workload-1M-literal.json", lambda p: workload_literal(p, 1_000_000))
write_if_missing("workload-repeat-nested.json", lambda p: open(p, "w").write(json.dumps({
    "version": 2, "name": "nested", "buffers": [{"name": "d", "kind": "device", "bytes": "1 MiB"}],
    "streams": [{"name": "s", "ops": [{"repeat": 1000, "ops": [{"repeat": 1000, "ops": [
        {"op": "kernel", "name": "k" * 4000, "duration": "1 us"}]}]}]}]})))


# 6. Sizes from the file: a 1 MB title (the window widened to millions of pixels), and a comparison header
#    listing 400k axis values.
def native_trace(p, ops, title="t", same_time=False):
    """StreamScope's native format, version 3 (every op column, as tests/data/hostile/native-*.sstrace)."""
    head = {"format": "streamscope-trace", "version": 3, "timing": "cupti", "source": "streamscope",
            "title": title, "strings": ["k"], "streams": [{"name": "s0", "device": 0, "native_id": 0}],
            "host_threads": [], "devices": [],
            "op_columns": ["name", "kind", "stream", "host_thread", "op_index", "gpu_start_ns", "gpu_end_ns",
                           "host_start_ns", "host_end_ns", "bytes", "src_mem", "dst_mem", "api", "flags",
                           "correlation", "ready_ns", "event_end_ns", "queued_ns", "submitted_ns", "channel",
                           "channel_type", "driver_src_mem", "driver_dst_mem"]}
    text = json.dumps(head)[:-1]
    with open(p, "w") as f:
        f.write(text + ', "repetitions": [{"index":0,"ops":[')
        for i in range(ops):
            start = 1000 if same_time else 1000 + 2000 * i
            f.write('%s[0,"kernel",0,-1,%d,%d,%d,-1,-1,0,"none","none","none",0,0,-1,-1,-1,-1,-1,"unknown","none",'
                    '"none"]' % ("," if i else "", i, start, start + 1000))
        f.write("]}]}\n")


write_if_missing("native-1MB-title.sstrace", lambda p: native_trace(p, 10, title="W" * 1_000_000))
write_if_missing("native-500k-same-time.sstrace", lambda p: native_trace(p, 500_000, same_time=True))


def comparison_axis(p, values):
    with open(p, "w") as f:
        json.dump({"format": "streamscope-comparison", "version": 1, "title": "400k values",
                   "workload_file": "w.json", "tool_version": "0.1.0", "created_utc": "2026-11-26T20:00:00Z",
                   "warmup": None, "repetitions": None, "base_workload": "{}",
                   "axes": [{"axis": "chunks", "values": [str(i + 1) for i in range(values)]}],
                   "variants": []}, f)


write_if_missing("comparison-400k-axis-values.sscompare", lambda p: comparison_axis(p, 400_000))


# 8.-11. Names with terminal escapes, an op at -1 ns and device ids over 2^31 (Chrome).
def small_chrome(p, events):
    with open(p, "w") as f:
        json.dump({"traceEvents": events}, f)


def kernel(ts, dur=1, name="k", stream=7, device=None, pid=0):
    args = {"stream": stream}
    if device is not None:
        args["device"] = device
    return {"ph": "X", "cat": "kernel", "name": name, "pid": pid, "tid": 7, "ts": ts, "dur": dur, "args": args}


write_if_missing("chrome-escape-names.json", lambda p: small_chrome(
    p, [kernel(1, name="\x1b]0;owned\x07\x1b[2J\x1b[31mred"), kernel(5, name="\u202eevil\r")]))
write_if_missing("chrome-minus-1ns.json", lambda p: small_chrome(p, [kernel(-0.001, dur=1000), kernel(2000)]))
write_if_missing("chrome-device-2p32.json", lambda p: small_chrome(p, [kernel(1, device=0),
                                                                        kernel(5, device=2 ** 32)]))
