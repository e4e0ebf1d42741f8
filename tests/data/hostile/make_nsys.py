#!/usr/bin/env python3
"""Writes the hand-made Nsight Systems exports of tests/data/hostile (issue #24): tiny SQLite files that
each make the importer refuse them one way. Run from the source root: python3 tests/data/hostile/make_nsys.py
(the output is committed; README.md says what each is)."""
import os
import sqlite3
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

STRINGS = "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
KERNEL = ("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, "
          "deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, shortName INTEGER NOT NULL);")
MEMCPY = ("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, "
          "deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL);")
NVTX = ("CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, "
        "text TEXT, globalTid INTEGER);")


def make(name, sql, page_size=512):
    path = os.path.join(HERE, name)
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA page_size = {page_size}")
    db.executescript(sql)
    db.commit()
    db.execute("VACUUM")
    db.close()
    return path


# StringIds.value computed by the file: a 500-million-character name for each of four kernels (4.6 GB, #24).
make("nsys-generated-column.sqlite",
     "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, seed TEXT,"
     " value TEXT GENERATED ALWAYS AS (printf('%.*c', 500000000, seed)) VIRTUAL);"
     "INSERT INTO StringIds (id, seed) VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd');" + KERNEL +
     "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 2000, 0, 7, 1), (3000, 4000, 0, 7, 2),"
     " (5000, 6000, 0, 7, 3), (7000, 8000, 0, 7, 4);")

# StringIds as a view that counts to 10^12 for every name looked up.
make("nsys-view.sqlite",
     "CREATE VIEW StringIds (id, value) AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
     " WHERE i < 1000000000000) SELECT 1, 'k' || max(i) FROM n;" + KERNEL +
     "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 2000, 0, 7, 1);")

# A copy of 1 GiB that starts at -1 ns, StreamScope's "no time": it lost its GPU interval (#24).
make("nsys-copy-at-minus-1.sqlite",
     STRINGS + "INSERT INTO StringIds VALUES (1, 'k');" + MEMCPY +
     "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (-1, 1000000, 0, 7, 1073741824, 1);")

# An NVTX range 2^55 ns (a year) before the kernel: imported, exported, and the export refused (#24).
make("nsys-nvtx-beyond-span.sqlite",
     STRINGS + "INSERT INTO StringIds VALUES (1, 'k');" + KERNEL +
     "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 2000, 0, 7, 1);" + NVTX +
     "INSERT INTO NVTX_EVENTS VALUES (-36028797018963968, -36028797018962968, 59, 'far', 1);")

# 120 kernels, then one child pointer of the table's interior page pointed at the leaf beside it: SQLite
# reads that leaf twice and another never, without an error (142 ops of 120 in #24's file).
path = make("nsys-damaged-btree.sqlite",
            STRINGS + "INSERT INTO StringIds VALUES (1, 'kernel_with_a_name_long_enough_to_fill_pages');" + KERNEL +
            "".join(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ({1000 * i}, {1000 * i + 500}, 0, 7, 1);"
                    for i in range(1, 121)))
db = sqlite3.connect(path)
root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_KERNEL'").fetchone()[0]
db.close()
with open(path, "r+b") as f:
    data = bytearray(f.read())
    page = (root - 1) * 512
    assert data[page] == 0x05, "the kernel table's root is not an interior page"
    cells = struct.unpack(">H", data[page + 3:page + 5])[0]
    assert cells >= 2
    offsets = [struct.unpack(">H", data[page + 12 + 2 * i:page + 14 + 2 * i])[0] for i in range(cells)]
    smaller = data[page + offsets[0]:page + offsets[0] + 4]
    data[page + offsets[1]:page + offsets[1] + 4] = smaller  # the second child is the first one again
    f.seek(0)
    f.write(data)
