#!/usr/bin/env python3
"""Prints which top-level modules of a crate each module names (`crate::x`, in code and in doc
links) and exits 1 if they form a cycle, or if a file has over 400 lines of non-test code
without saying why in its module doc (a `//!` sentence with "on purpose" in it).

    python3 scripts/module_cycles.py crates/stillreel-render/src
    python3 scripts/module_cycles.py crates/*/src        # every crate; CI runs this
"""
import os
import re
import sys

LIMIT = 400


def strongly_connected(edges):
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            found.append(sorted(part))

    for v in list(edges):
        if v not in index:
            visit(v)
    return [p for p in found if len(p) > 1]


def check(src):
    """Prints the graph of one crate's `src`; returns the problems found."""
    edges, sizes, excused = {}, {}, set()
    for root, _, files in os.walk(src):
        for name in files:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(root, name)
            parts = os.path.relpath(path, src)[:-3].split(os.sep)
            text = open(path, encoding="utf-8").read()
            code = text.split("#[cfg(test)]")[0]
            sizes[os.path.relpath(path, src)] = code.count("\n")
            doc = " ".join(l for l in text.splitlines() if l.startswith("//!"))
            if "on purpose" in doc:
                excused.add(os.path.relpath(path, src))
            if parts[0] in ("lib", "main"):
                continue
            targets = set(re.findall(r"\bcrate::([a-z_][a-z0-9_]*)", text))
            edges.setdefault(parts[0], set()).update(t for t in targets if t != parts[0])
    print(f"== {src}")
    for module in sorted(edges):
        print(f"{module:12} -> {', '.join(sorted(edges[module])) or '-'}")
    problems = []
    for path, lines in sorted(sizes.items()):
        if lines > LIMIT:
            why = "says why" if path in excused else "NO REASON GIVEN"
            print(f"over {LIMIT} lines of non-test code: {path} ({lines}), {why}")
            if path not in excused:
                problems.append(f"{src}/{path}: {lines} lines without a reason")
    cycles = strongly_connected(edges)
    if cycles:
        print("import cycles:", cycles)
        problems.append(f"{src}: import cycles {cycles}")
    else:
        print("no import cycle")
    return problems


def main():
    problems = []
    for src in sys.argv[1:] or ["crates/stillreel-render/src"]:
        problems += check(src)
    if problems:
        print("\n".join(["", "module structure:"] + problems))
        sys.exit(1)


main()
