#!/usr/bin/env python3
"""Makes the fuzzers' seeds (tests/fuzz/corpus/<reader>/ and tests/fuzz/nsys/*.sql) from the project's own
files, trimmed to a few KB each so that the fuzzers run fast. Run from the source root, with a built
streamscope-cli for the Chrome exports:

    tests/fuzz/make_seeds.py build/app/streamscope-cli

The output is committed; running it again gives the same files. Hand-made edge cases are written here too.
"""
import gzip
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FUZZ = os.path.join(ROOT, "tests", "fuzz")
EXAMPLES = os.path.join(ROOT, "resources", "examples")
NSYS_FIXTURES = os.path.join(ROOT, "tests", "engine", "fixtures", "nsys-streamscope")


def out(reader, name, data):
    d = os.path.join(FUZZ, "corpus", reader)
    os.makedirs(d, exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(d, name), mode) as f:
        f.write(data)


def compact(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def trim_native(trace, reps=1, ops=24):
    """One or two repetitions of at most `ops` ops each, and the strings they still use."""
    trace = dict(trace)
    kept = []
    for r in trace.get("repetitions", [])[:reps]:
        r = dict(r)
        if "ops" in r:
            r["ops"] = r["ops"][:ops]
        for k in list(r):
            if isinstance(r[k], list) and k != "ops":
                r[k] = r[k][:8]
        kept.append(r)
    trace["repetitions"] = kept
    return trace


def workload_seeds():
    for name in sorted(os.listdir(os.path.join(ROOT, "resources", "workloads"))):
        if name.endswith(".json"):
            with open(os.path.join(ROOT, "resources", "workloads", name)) as f:
                out("workload", name, f.read())
    # Hand-made: comments, repeat, groups, a pipeline, sizes and durations with units, a syntax error.
    out("workload", "edge-comments-repeat.json", """// line comment
{
  /* block comment */
  "name": "edge", "version": 1,
  "buffers": [{"name": "a", "bytes": "1 KiB", "memory": "pinned"}, {"name": "d", "bytes": 1024, "memory": "device"}],
  "streams": [{"name": "s", "priority": -1, "ops": [
    {"repeat": 3, "ops": [{"op": "memcpy", "src": "a", "dst": "d", "async": true},
                          {"op": "kernel", "duration": "10 us"}]},
    {"op": "memset", "buffer": "d", "value": 0},
    {"op": "record", "event": "e"}]},
    {"name": "t", "ops": [{"op": "wait", "event": "e"}, {"op": "kernel", "duration": "1.5 ms"}]}],
  "warmup": 1, "repetitions": 2
}
""")
    out("workload", "edge-pipeline.json", compact({
        "name": "pipe", "version": 1,
        "pipeline": {"bytes": "4 MiB", "chunks": 4, "streams": 2, "kernel": "20 us", "order": "breadth-first"},
    }))
    out("workload", "edge-broken.json", '{"name": "x", "streams": [{"ops": [{"op": "kernel", "duration": }]}]')
    # Version 2: two GPUs, two host threads, a peer copy and an event recorded on one GPU, waited on the other.
    out("workload", "v2-two-gpus.json", """{
  "version": 2, "name": "two GPUs", "peerAccess": "off",
  "buffers": [{"name": "h", "kind": "pinned", "bytes": "4 MiB"},
              {"name": "d0", "kind": "device", "bytes": "4 MiB", "device": 0},
              {"name": "d1", "kind": "device", "bytes": "4 MiB", "device": 1}],
  "streams": [
    {"name": "up", "device": 0, "ops": [{"op": "copy", "src": "h", "dst": "d0"},
                                         {"op": "copy", "src": "d0", "dst": "d1", "peer": true},
                                         {"op": "record", "event": "sent"}]},
    {"name": "work", "device": 1, "ops": [{"op": "wait", "event": "sent"}, {"op": "kernel", "duration": "20 us"},
                                           {"op": "copy", "src": "d1", "dst": "h"}]}],
  "threads": [{"name": "host0", "device": 0, "streams": ["up"]},
              {"name": "host1", "device": 1, "streams": ["work"]}]
}
""")
    # Version 2 on one GPU: two host threads with their own orders (one a schedule), per-thread default streams.
    out("workload", "v2-threads-one-gpu.json", compact({
        "version": 2, "name": "threads", "defaultStream": "per-thread",
        "streams": [
            {"name": "a", "ops": [{"op": "kernel", "duration": "10 us", "repeat": 2}, {"op": "record", "event": "e"}]},
            {"name": "b", "useDefaultStream": True, "ops": [{"op": "wait", "event": "e"}, {"op": "kernel", "duration": "5 us"}]},
            {"name": "c", "ops": [{"op": "sync", "event": "e"}]}],
        "threads": [{"name": "t0", "streams": ["a"]},
                    {"name": "t1", "streams": ["b", "c"], "schedule": [["c", 0], ["b", 0], ["b", 1]]}],
    }))


def native_seeds():
    for name in sorted(os.listdir(EXAMPLES)):
        if name.endswith(".sstrace"):
            with open(os.path.join(EXAMPLES, name)) as f:
                trace = json.load(f)
            out("native", name, compact(trim_native(trace)))


def chrome_seeds(cli):
    with tempfile.TemporaryDirectory() as tmp:
        for name in ["overlap", "managed", "sync-vs-async"]:
            with open(os.path.join(EXAMPLES, name + ".sstrace")) as f:
                trace = trim_native(json.load(f), reps=2, ops=12)
            src = os.path.join(tmp, name + ".sstrace")
            with open(src, "w") as f:
                f.write(compact(trace))
            dst = os.path.join(tmp, name + ".json")
            subprocess.run([cli, "export", src, "--format", "chrome", "-o", dst], check=True,
                           stdout=subprocess.DEVNULL)
            with open(dst) as f:
                out("chrome", "export-" + name + ".json", compact(json.load(f)))
    with open(os.path.join(ROOT, "tests", "engine", "fixtures", "kineto_minimal.json")) as f:
        out("chrome", "kineto-minimal.json", compact(json.load(f)))
    out("chrome", "edge-array-form.json", compact([
        {"ph": "X", "name": "k", "pid": 0, "tid": 7, "ts": 1.5, "dur": 2,
         "cat": "kernel", "args": {"stream": 7, "device": 0, "correlation": 1}},
        {"ph": "B", "name": "b", "pid": 1, "tid": 1, "ts": 0}, {"ph": "E", "pid": 1, "tid": 1, "ts": 3},
        {"ph": "s", "id": 1, "pid": 1, "tid": 1, "ts": 0, "cat": "ac2g", "name": "ac2g"},
        {"ph": "f", "id": 1, "pid": 0, "tid": 7, "ts": 1.5, "cat": "ac2g", "name": "ac2g", "bp": "e"}]))


def gzip_seeds():
    def gz(data):
        return gzip.compress(data, compresslevel=9, mtime=0)
    with open(os.path.join(FUZZ, "corpus", "chrome", "kineto-minimal.json"), "rb") as f:
        kineto = f.read()
    out("gzip", "kineto-minimal.json.gz", gz(kineto))
    out("gzip", "two-members.json.gz", gz(b'{"traceEvents": [') + gz(b"]}"))
    out("gzip", "trailing-zeros.json.gz", gz(b"{}") + b"\0\0\0\0")
    out("gzip", "empty.gz", gz(b""))
    out("gzip", "stored.gz", gzip.compress(b"x" * 300, compresslevel=0, mtime=0))


def comparison_seeds():
    for name in ["sync-vs-async", "bandwidth"]:
        with open(os.path.join(EXAMPLES, "comparisons", name + ".sscompare")) as f:
            c = json.load(f)
        c["variants"] = c["variants"][:2]
        for v in c["variants"]:
            if "trace" in v:
                v["trace"] = trim_native(v["trace"], reps=1, ops=6)
        c["base_workload"] = c.get("base_workload", "")[:200]
        out("comparison", name + ".sscompare", compact(c))
        # The same comparison with its variants by reference (the harness's folder holds variant.sstrace).
        for v in c["variants"]:
            v.pop("trace", None)
            v["trace_file"] = "variant.sstrace"
        out("comparison", name + "-by-reference.sscompare", compact(c))


# ---- nsys: seed databases as SQL, trimmed to two repetitions of StreamScope's own captures -------------

NSYS_TABLES = [
    "StringIds", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS", "ThreadNames",
    "TARGET_INFO_GPU", "TARGET_INFO_CUDA_DEVICE", "TARGET_INFO_CUDA_STREAM", "TARGET_INFO_CUDA_NULL_STREAM",
    "TARGET_INFO_CUDA_CONTEXT_INFO", "TARGET_INFO_NVTX_CUDA_STREAM", "META_DATA_EXPORT", "EXPORT_META_DATA",
    "ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND", "ENUM_NSYS_EVENT_TYPE",
]
STRING_COLUMNS = {"demangledName", "shortName", "mangledName", "nameId", "textId"}
# Keep only the metadata rows the importer reads (the capture's host and paths are nobody's business).
MAX_ROWS = 40  # per table: the managed capture migrates thousands of pages in one repetition
METADATA_NAMES = {"EXPORT_PRODUCT_VERSION", "EXPORT_SCHEMA_VERSION", "EXPORT_TIME_UTC"}


def literal(v):
    if v is None:
        return "NULL"
    if isinstance(v, bytes):
        return "X'" + v.hex() + "'"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    return repr(v)


def nsys_seed(fixture, reps):
    db = sqlite3.connect(os.path.join(NSYS_FIXTURES, fixture))
    db.text_factory = bytes
    tables = {r[0].decode() for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    ranges = {}
    for start, end, text in db.execute("SELECT start, end, text FROM NVTX_EVENTS WHERE text LIKE 'rep %'"):
        ranges[text.decode()] = (start, end)
    window = (ranges["rep 0"][0], ranges["rep %d" % (reps - 1)][1])
    sql = ["-- Made by tests/fuzz/make_seeds.py from tests/engine/fixtures/nsys-streamscope/%s:" % fixture,
           "-- the tables the importer reads, rows of repetitions 0..%d (NVTX 'rep N' ranges)." % (reps - 1)]
    rows_of = {}
    strings, tids = set(), set()
    for t in NSYS_TABLES:
        if t not in tables or t == "StringIds":
            continue
        cols = [r[1].decode() for r in db.execute('PRAGMA table_info("%s")' % t)]
        rows = db.execute('SELECT * FROM "%s" ORDER BY rowid' % t).fetchall()
        if "start" in cols and t != "ThreadNames":
            i = cols.index("start")
            rows = [r for r in rows if window[0] <= r[i] <= window[1]][:MAX_ROWS]
        if t == "ENUM_NSYS_EVENT_TYPE":
            rows = [r for r in rows if r[0] in (59, 60)]
        if t in ("META_DATA_EXPORT", "EXPORT_META_DATA"):
            rows = [r for r in rows if r[cols.index("name")].decode() in METADATA_NAMES]
        if t != "ThreadNames":
            for r in rows:
                for c, v in zip(cols, r):
                    if c in STRING_COLUMNS and isinstance(v, int):
                        strings.add(v)
                    if c == "globalTid" and isinstance(v, int):
                        tids.add(v)
        rows_of[t] = (cols, rows)
    if "ThreadNames" in rows_of:
        cols, rows = rows_of["ThreadNames"]
        rows = [r for r in rows if r[cols.index("globalTid")] in tids]
        rows_of["ThreadNames"] = (cols, rows)
        strings.update(r[cols.index("nameId")] for r in rows)
    cols = [r[1].decode() for r in db.execute('PRAGMA table_info("StringIds")')]
    rows_of["StringIds"] = (cols, [r for r in db.execute("SELECT * FROM StringIds ORDER BY id") if r[0] in strings])
    for t in NSYS_TABLES:
        if t not in rows_of:
            continue
        create = db.execute("SELECT sql FROM sqlite_master WHERE name = ?", (t,)).fetchone()[0].decode()
        create = re.sub(r"--[^\n]*", "", create)
        create = re.sub(r"\s+", " ", create).replace("( ", "(").replace(" )", ")").replace(" ,", ",")
        sql.append(create + ";")
        cols, rows = rows_of[t]
        for r in rows:
            vals = [literal(v.decode() if isinstance(v, bytes) and c != "binaryData" else v) for c, v in zip(cols, r)]
            sql.append('INSERT INTO "%s" VALUES (%s);' % (t, ", ".join(vals)))
    os.makedirs(os.path.join(FUZZ, "nsys"), exist_ok=True)
    name = os.path.splitext(fixture)[0]
    with open(os.path.join(FUZZ, "nsys", name + ".sql"), "w") as f:
        f.write("\n".join(sql) + "\n")
    return name


def nsys_corpus(seed_count):
    """Edit lists in the harness's encoding: byte 0 picks the seed, then 16-byte records
    (op, table, row, column, kind, extra, 2 spare, int64 value little-endian)."""
    def rec(op, table=0, row=0, column=0, kind=0, extra=0, value=0):
        return bytes([op, table, row, column, kind, extra, 0, 0]) + (value & (2**64 - 1)).to_bytes(8, "little")
    for s in range(seed_count):
        out("nsys", "seed-%d" % s, bytes([s]))
    out("nsys", "null-values", bytes([0]) + rec(0, 1, 0, 0, 0) + rec(0, 2, 1, 1, 0) + rec(1, 3, 0, 5, 0))
    out("nsys", "huge-rowid", bytes([0]) + rec(4, 1, 0, 0, 1, 0, 6))
    out("nsys", "edge-times", bytes([0]) + rec(0, 2, 0, 0, 1, 0, 7) + rec(0, 2, 0, 1, 1, 0, 6))
    out("nsys", "drop-and-rename", bytes([1]) + rec(6, 3) + rec(10, 2, 0, 1, 0, 3) + rec(7, 4, 0, 0, 0, 15))
    out("nsys", "text-and-blob", bytes([2]) + rec(0, 5, 2, 3, 5, 20) + rec(0, 6, 0, 2, 6, 0, 0x4142434445464748))
    out("nsys", "create-memset", bytes([0]) + rec(8, 3, 0, 2, 1, 1, 0x203f) + rec(5, 3, 0, 0, 1, 0, 8))
    out("nsys", "damaged-byte", bytes([0]) + rec(12, 0, 0, 0, 0, 0xff, 100) + rec(12, 0, 0, 0, 0, 0x00, 4096 + 8))
    # Tables in name order: 0 = CUPTI_ACTIVITY_KIND_KERNEL, 9 = StringIds (column 1: value). Expression 2
    # prints 100 million characters each time it is read (#24).
    out("nsys", "generated-name", bytes([0]) + rec(13, 9, 0, 1, 0, 2))
    out("nsys", "view-in-place", bytes([0]) + rec(14, 0, 0, 2, 0, 1))


def main():
    cli = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "app", "streamscope-cli")
    workload_seeds()
    native_seeds()
    chrome_seeds(cli)
    gzip_seeds()
    comparison_seeds()
    seeds = [nsys_seed("overlap.sqlite", 2), nsys_seed("managed.sqlite", 1), nsys_seed("sync-vs-async.sqlite", 1)]
    nsys_corpus(len(seeds))


if __name__ == "__main__":
    main()
