#!/usr/bin/env python3
"""No include cycle between components (ctest's "include-cycles" test; docs/architecture.md, "Layers").

A component is a header and its source (engine/model/limits.h and limits.cpp are one component,
"engine/model/limits"). Component A depends on B when A's header or source includes B's header. The
layering rule (tests/layering.cmake) already keeps folders acyclic; this keeps the components inside a
folder acyclic too, so that each can be understood, tested and built before the ones that use it (John
Lakos's levelisation, as Qt Creator's and hotspot's libraries keep it).

  tests/include_cycles.py ROOT [--known COMPONENT ...]

Exit status 0 without cycles, 1 with (each cycle named, with the include that closes it), 2 on bad use.
--known names a component whose cycle is known debt (listed in tests/CMakeLists.txt with the issue that
removes it): a cycle through it is reported but passes, and the option fails once the cycle is gone, so the
list only shrinks.
"""
import os
import re
import sys

DIRS = ("engine", "ui", "app", "kernels")
EXTS = (".cpp", ".h", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def component(rel):
    base = os.path.splitext(rel)[0]
    return base[:-2] if base.endswith("_p") else base  # a private header (Qt's x_p.h) belongs to x


def main():
    args = sys.argv[1:]
    known = set()
    while "--known" in args:
        i = args.index("--known")
        if i + 1 >= len(args):
            print(__doc__)
            return 2
        known.add(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__)
        return 2
    root = args[0]
    edges = {}  # component -> {component: "file includes header"}
    for d in DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for f in files:
                if not f.endswith(EXTS):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                src = component(rel)
                edges.setdefault(src, {})
                for inc in INCLUDE.findall(open(path, encoding="utf-8", errors="replace").read()):
                    dst = component(inc)
                    if dst != src and os.path.exists(os.path.join(root, inc)):
                        edges[src].setdefault(dst, f"{rel} includes {inc}")
    # Tarjan's strongly connected components, iteratively.
    index, low, on, stack, sccs, counter = {}, {}, set(), [], [], [0]
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, {}))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, {})))))
                    advanced = True
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                scc = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    scc.append(w)
                    if w == node:
                        break
                if len(scc) > 1:
                    sccs.append(sorted(scc))
    failing = 0
    for scc in sccs:
        members = set(scc)
        tolerated = members & known
        failing += 0 if tolerated else 1
        print(("known " if tolerated else "") + "include cycle between " + ", ".join(scc) + ":")
        for a in scc:
            for b, why in sorted(edges.get(a, {}).items()):
                if b in members:
                    print(f"  {why}")
    in_cycles = set().union(*sccs) if sccs else set()
    for k in sorted(known - in_cycles):
        print(f"{k} is in no cycle any more: take it off the --known list (tests/CMakeLists.txt)")
        failing += 1
    print(f"include-cycles: {len(edges)} components, {len(sccs)} cycles ({len(sccs) - failing if failing <= len(sccs) else 0} known)")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
