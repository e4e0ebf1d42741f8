#!/usr/bin/env python3
"""The size rule of the code (ctest's "code-sizes" test; docs/architecture.md, "Sizes"):

  no function longer than --max-function lines (150), and no class larger than --max-class lines (800),
  where a class's size is its declaration plus every member function defined outside it (in any file).

It reads the C++ sources under engine/, ui/, app/ and kernels/ (tests, benchmarks and fuzzers are exempt:
a test's length is its table of cases). The sources are clang-formatted (.clang-format: a function's opening
brace on its own line), which lets a small brace-matching reader find functions and classes without a
compiler: comments, string and character literals (raw strings too) are blanked first, then each `{` is
classified by the text before it since the previous `;`, `{` or `}`: namespace, class/struct/union (enum
bodies are data), function (a signature ending in `)` plus qualifiers), or anything else (lambdas, initialiser
lists, control blocks), which stays part of the function around it.

  tests/code_sizes.py ROOT [--max-function N] [--max-class N] [--top K] [--known NAME=LINES ...]

Exit status 0 when every function and class is within its limit, 1 otherwise (each one named with file and
line), 2 on bad use. --top K also lists the K longest functions and largest classes. --known NAME=LINES is
known debt (listed in tests/CMakeLists.txt with the issue that removes it): NAME may be over its limit but
not over LINES, and the option fails once NAME is within the limit, so the list only shrinks.
"""
import argparse
import os
import re
import sys

DIRS = ("engine", "ui", "app", "kernels")
EXTS = (".cpp", ".h", ".cu", ".cuh")
SKIP_KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof",
                 "static_assert", "requires", "noexcept", "operator"}


def blank(text):
    """Comments and literals replaced by spaces (newlines kept, so line numbers stay)."""
    # preprocessor lines (with their continuations) first
    text = re.sub(r"(?m)^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            k = text.find("(", i + 2)
            delim = text[i + 2:k]
            end = text.find(")" + delim + '"', k)
            j = n if end < 0 else end + len(delim) + 2
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(c)  # digit separator: 1'000'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def classify(head):
    """What the `{` after `head` (the text since the previous ; { or }) opens: (kind, name)."""
    h = " ".join(head.split())
    h = re.sub(r"^(public|private|protected|signals|Q_SIGNALS|public slots|private slots|protected slots)\s*:\s*",
               "", h)
    h = re.sub(r"^template\s*<.*?>\s*(?=(class|struct|union|[A-Za-z_]))", "", h)
    if re.match(r"^(inline\s+)?namespace\b", h) or h.startswith('extern ""') or h.startswith('extern "C"'):
        return "namespace", ""
    if re.match(r"^(enum)\b", h) or re.search(r"\benum\s+(class|struct)\b", h):
        return "other", ""
    m = re.match(r"^(?:typedef\s+)?(class|struct|union)\s+(?:\[\[[^\]]*\]\]\s*)?(?:[A-Z_]+_EXPORT\s+)?"
                 r"([A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)(?:\s+final)?\s*(?::(?!:)[^{]*)?$", h)
    if m:
        return "class", m.group(2).split("::")[-1]
    # A function: a signature "... name(args) [const] [noexcept] [override] [-> T] [: inits]"
    sig = re.sub(r"\)\s*(noexcept\s*)?:(?!:).*$", ")", h)  # a constructor's initialiser list
    m = re.search(r"([A-Za-z_~][\w:~<>,]*|operator\s*\S+?)\s*\((.*)\)\s*((const|noexcept|override|final|mutable|"
                  r"volatile|&|&&|->\s*[\w:<>,*& ]+|\s)*)$", sig)
    if m and "=" not in sig.split("(")[0]:
        name = m.group(1)
        base = name.split("::")[-1]
        if base in SKIP_KEYWORDS or name in SKIP_KEYWORDS:
            return "other", ""
        return "function", name
    return "other", ""


def scan(path, rel):
    text = blank(open(path, encoding="utf-8", errors="replace").read())
    functions, classes = [], []
    stack = []  # (kind, name, start line)
    head_start = 0
    line = 1
    line_at = []  # line number of each offset is computed incrementally
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c in ";":
            head_start = i + 1
        elif c == "{":
            head = text[head_start:i]
            inside = [k for k, _, _ in stack]
            if "function" in inside or "other" in inside:
                kind, name = "other", ""
            else:
                kind, name = classify(head)
            first = line - head.strip("\n").count("\n") if head.strip() else line
            # the signature's first line: the head's first non-blank line
            stripped = head.lstrip()
            first = line - head[len(head) - len(stripped):].count("\n")
            if kind == "function" and stack and stack[-1][0] == "class" and "::" not in name:
                name = stack[-1][1] + "::" + name
            stack.append((kind, name, first))
            head_start = i + 1
        elif c == "}":
            if stack:
                kind, name, first = stack.pop()
                length = line - first + 1
                if kind == "function":
                    functions.append((length, name, rel, first))
                elif kind == "class":
                    classes.append((length, name, rel, first))
            head_start = i + 1
    return functions, classes


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("root")
    p.add_argument("--max-function", type=int, default=150)
    p.add_argument("--max-class", type=int, default=800)
    p.add_argument("--top", type=int, default=0)
    p.add_argument("--known", action="append", default=[])
    a = p.parse_args()
    known = {}
    for k in a.known:
        name, _, lines = k.partition("=")
        if not lines.isdigit():
            p.error(f"--known {k}: expected NAME=LINES")
        known[name] = int(lines)
    seen_known = set()
    functions, declarations = [], []
    for d in DIRS:
        for dirpath, _, files in os.walk(os.path.join(a.root, d)):
            for f in sorted(files):
                if f.endswith(EXTS):
                    path = os.path.join(dirpath, f)
                    fn, cl = scan(path, os.path.relpath(path, a.root))
                    functions += fn
                    declarations += cl
    # A class's size: its declaration(s) plus its members defined outside them.
    size, where = {}, {}
    for length, name, rel, line in declarations:
        size[name] = size.get(name, 0) + length
        where.setdefault(name, f"{rel}:{line}")
    for length, name, rel, line in functions:
        if "::" in name:
            owner = name.split("::")[-2]
            declared_inside = any(d[1] == owner and d[2] == rel and d[3] <= line < d[3] + d[0] for d in declarations)
            if owner in size and not declared_inside:
                size[owner] += length
    bad = 0
    for length, name, rel, line in sorted(functions, reverse=True):
        if length > a.max_function:
            if name in known and length <= known[name]:
                seen_known.add(name)
                print(f"{rel}:{line}: known: function {name} is {length} lines (at most {known[name]} for now)")
                continue
            print(f"{rel}:{line}: function {name} is {length} lines (at most {a.max_function})")
            bad += 1
    for name, length in sorted(size.items(), key=lambda kv: -kv[1]):
        if length > a.max_class:
            if name in known and length <= known[name]:
                seen_known.add(name)
                print(f"{where[name]}: known: class {name} is {length} lines (at most {known[name]} for now)")
                continue
            print(f"{where[name]}: class {name} is {length} lines with its out-of-line members "
                  f"(at most {a.max_class})")
            bad += 1
    for name in sorted(set(known) - seen_known):
        print(f"{name} is within the limits now (or gone): take it off the --known list (tests/CMakeLists.txt)")
        bad += 1
    if a.top:
        print(f"longest functions:")
        for length, name, rel, line in sorted(functions, reverse=True)[:a.top]:
            print(f"  {length:5}  {name}  ({rel}:{line})")
        print(f"largest classes:")
        for name, length in sorted(size.items(), key=lambda kv: -kv[1])[:a.top]:
            print(f"  {length:5}  {name}  ({where[name]})")
    print(f"code-sizes: {len(functions)} functions, {len(size)} classes; {bad} over the limits")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
