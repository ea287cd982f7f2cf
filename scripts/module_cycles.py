#!/usr/bin/env python3
"""Prints which modules of a crate each module names (`crate::x::y`, `super::y`, `self::y`, in
code and in doc links) and exits 1 if they form a cycle at any depth: among the top-level
modules, and among the children of every module (`worker/{job,steps,settle}` naming each other
is a cycle inside `worker`), or if a file has over 400 lines of non-test code without saying
why in its module doc (a `//!` sentence with "on purpose" in it).

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


IDENT = r"[a-z_][a-z0-9_]*"
# `crate::a::b`, `super::super::a`, `self::a`, and a brace group after any of them.
PATH = re.compile(r"\b(crate|super|self)((?:::(?:super|" + IDENT + r"))*)(::\{)?")


def module_of(rel):
    """`worker/job.rs` -> ("worker", "job"); `worker/mod.rs`, `worker.rs` -> ("worker",)."""
    parts = rel[:-3].split(os.sep)
    if parts[-1] == "mod":
        parts = parts[:-1]
    if parts in (["lib"], ["main"]):
        parts = []
    return tuple(parts)


def group_heads(text, start):
    """The first identifier of each item of the brace group opening at `start` (the `{`)."""
    depth, item, heads = 0, "", []
    for i in range(start, len(text)):
        c = text[i]
        if c == "{":
            depth += 1
            if depth == 1:
                continue
        elif c == "}":
            depth -= 1
            if depth == 0:
                heads.append(item)
                break
        if depth == 1 and c == ",":
            heads.append(item)
            item = ""
        elif depth >= 1:
            item += c
    out = []
    for h in heads:
        m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)", h)
        if m and m.group(1) != "self":
            out.append(m.group(1))
    return out


def references(module, text):
    """The module paths (tuples, possibly too long: items follow) that `text`, the file of
    `module`, names."""
    found = []
    for m in PATH.finditer(text):
        head, rest, brace = m.group(1), m.group(2), m.group(3)
        names = [n for n in rest.split("::") if n]
        if head == "crate":
            base = []
        else:
            # The file's own module (`self`), or its parent (`super`).
            base = list(module) if head == "self" else list(module[:-1])
        while names and names[0] == "super":
            base = base[:-1]
            names = names[1:]
        if "super" in names:
            continue
        path = base + names
        if brace:
            for h in group_heads(text, m.end() - 1):
                found.append(tuple(path + [h]))
        else:
            found.append(tuple(path))
    return found


def check(src):
    """Prints the graph of one crate's `src`; returns the problems found."""
    sizes, excused, files = {}, set(), {}
    for root, _, names in os.walk(src):
        for name in names:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            text = open(path, encoding="utf-8").read()
            code = text.split("#[cfg(test)]")[0]
            sizes[rel] = code.count("\n")
            doc = " ".join(l for l in text.splitlines() if l.startswith("//!"))
            if "on purpose" in doc:
                excused.add(rel)
            # `super::` inside an inline test module means something else: code only.
            files[module_of(rel)] = code
    modules = set(files)
    # At every depth: parent -> {child -> children it names}.
    levels = {}
    for module, text in files.items():
        for target in references(module, text):
            # The longest known module the path starts with.
            while target and target not in modules:
                target = target[:-1]
            # The deepest common parent; an edge between its two children.
            n = 0
            while n < min(len(module), len(target)) and module[n] == target[n]:
                n += 1
            if n == len(module) or n == len(target):
                continue  # a module and its own ancestor or descendant
            parent = module[:n]
            levels.setdefault(parent, {}).setdefault(module[n], set()).add(target[n])
    print(f"== {src}")
    top = levels.get((), {})
    for module in sorted(m[0] for m in modules if len(m) == 1):
        print(f"{module:12} -> {', '.join(sorted(top.get(module, ()))) or '-'}")
    problems = []
    for path, lines in sorted(sizes.items()):
        if lines > LIMIT:
            why = "says why" if path in excused else "NO REASON GIVEN"
            print(f"over {LIMIT} lines of non-test code: {path} ({lines}), {why}")
            if path not in excused:
                problems.append(f"{src}/{path}: {lines} lines without a reason")
    found = False
    for parent in sorted(levels):
        cycles = strongly_connected(levels[parent])
        if cycles:
            found = True
            where = "::".join(parent) or "crate"
            print(f"import cycles in {where}:", cycles)
            problems.append(f"{src}: import cycles in {where}: {cycles}")
    if not found:
        print("no import cycle at any depth")
    return problems


def main():
    problems = []
    for src in sys.argv[1:] or ["crates/stillreel-render/src"]:
        problems += check(src)
    if problems:
        print("\n".join(["", "module structure:"] + problems))
        sys.exit(1)


main()
