#!/usr/bin/env python3
"""Checks the module structure of the workspace's crates and exits 1 on any problem:

- a workspace dependency in a crate's Cargo.toml that the crate table of
  `scripts/layers.toml` does not allow;
- an import a module rule of that table forbids (printed as file:line and the rule);
- an import cycle at any depth: among the top-level modules, and among the children of every
  module (`worker/{job,steps,settle}` naming each other is a cycle inside `worker`);
- a parent⇄child loop: a child names an item its parent defines in its own file while the
  parent's file names the child (`db.rs` ⇄ `db/batch.rs`), unless the table allows it
  with a reason;
- a file with over 400 lines of non-test code whose module doc does not say why (a `//!`
  sentence with "on purpose" in it).

Paths are read as `crate::a::b`, `super::b`, `self::b` and a child's bare name (`batch::Batch` in
`db.rs`); a name a module re-exports (`pub use renderer::Renderer` in lib.rs) counts as
the module it comes from, so `use crate::Renderer` is an import of `renderer`. Cycles also
count doc links; rules and loops read code only.

    python3 scripts/module_cycles.py crates/stillreel-render/src
    python3 scripts/module_cycles.py crates/*/src        # every crate; CI runs this
    python3 scripts/module_cycles.py --table other.toml crates/*/src
"""
import os
import re
import sys
import tomllib

LIMIT = 400
TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "layers.toml")
NAME = r"[A-Za-z_][A-Za-z0-9_]*"
# `crate::a::B`, `super::super::a`, `self::a`, and a brace group after any of them.
PATH = re.compile(r"(?<![\w:])(crate|super|self)((?:::(?:super|" + NAME + r"))*)(::\{)?")
PUB_USE = re.compile(r"\bpub(?:\s*\([^)]*\))?\s+use\s+([^;]+);")
DEFINES = r"\b(?:struct|enum|trait|fn|type|const|static|union|macro_rules!)\s+"


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

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return [p for p in found if len(p) > 1]


def module_of(rel):
    """`worker/job.rs` -> ("worker", "job"); `worker/mod.rs`, `worker.rs` -> ("worker",)."""
    parts = rel[:-3].split(os.sep)
    if parts[-1] == "mod":
        parts = parts[:-1]
    if parts in (["lib"], ["main"]):
        parts = []
    return tuple(parts)


def dotted(module):
    return "::".join(module) or "crate"


def code_only(text):
    """`text` with its comments blanked (strings and line breaks kept, so lines still count)."""
    pattern = re.compile(
        r'r(#*)"(?:.|\n)*?"\1|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])\'|//[^\n]*|/\*(?:.|\n)*?\*/'
    )

    def blank(m):
        s = m.group(0)
        if s.startswith("//") or s.startswith("/*"):
            return re.sub(r"[^\n]", " ", s)
        return s

    return pattern.sub(blank, text)


def group_items(text, start):
    """The items of the brace group opening at `start` (the `{`), as written."""
    depth, item, items = 0, "", []
    for i in range(start, len(text)):
        c = text[i]
        if c == "{":
            depth += 1
            if depth == 1:
                continue
        elif c == "}":
            depth -= 1
            if depth == 0:
                items.append(item)
                break
        if depth == 1 and c == ",":
            items.append(item)
            item = ""
        elif depth >= 1:
            item += c
    return [i.strip() for i in items if i.strip()]


def use_leaves(tree):
    """`a::{b, c::{D as E}, f::*}` -> [(["a","b"], "b"), (["a","c","D"], "E"), (["a","f","*"], "*")]."""
    tree = re.sub(r"\s+", " ", tree).strip()
    if tree.endswith("}") and "{" in tree:
        head = tree[: tree.index("{")].rstrip(": ")
        prefix = [p for p in head.split("::") if p]
        out = []
        for item in group_items(tree, tree.index("{")):
            for path, alias in use_leaves(item):
                if path == ["self"]:
                    out.append((prefix, prefix[-1] if prefix else "self"))
                else:
                    out.append((prefix + path, alias))
        return out
    alias = None
    m = re.match(r"(.*?)\s+as\s+(" + NAME + r")$", tree)
    if m:
        tree, alias = m.group(1), m.group(2)
    path = [p.strip() for p in tree.split("::") if p.strip()]
    return [(path, alias or (path[-1] if path else ""))]


class Crate:
    """One crate's modules, what each file defines and re-exports, and every path it names."""

    def __init__(self, src):
        self.src = src
        self.files, self.code, self.rel, self.sizes, self.excused = {}, {}, {}, {}, set()
        for root, _, names in os.walk(src):
            for name in sorted(names):
                if not name.endswith(".rs"):
                    continue
                path = os.path.join(root, name)
                rel = os.path.relpath(path, src)
                text = open(path, encoding="utf-8").read()
                # `super::` inside an inline test module means something else: code only.
                head = text.split("#[cfg(test)]")[0]
                self.sizes[rel] = head.count("\n")
                doc = " ".join(l for l in text.splitlines() if l.startswith("//!"))
                if "on purpose" in doc:
                    self.excused.add(rel)
                module = module_of(rel)
                self.files[module] = head
                self.code[module] = code_only(head)
                self.rel[module] = rel
        self.modules = set(self.files)
        self.defines = {m: set(re.findall(DEFINES + "(" + NAME + ")", c)) for m, c in self.code.items()}
        self.reexports, self.globs = {}, {}
        for module, code in self.code.items():
            names, globs = {}, []
            for m in PUB_USE.finditer(code):
                for path, alias in use_leaves(m.group(1)):
                    absolute = self.absolute(module, path)
                    if absolute is None:
                        continue
                    if absolute and absolute[-1] == "*":
                        globs.append(absolute[:-1])
                    else:
                        names[alias] = absolute
            self.reexports[module], self.globs[module] = names, globs

    def children(self, module):
        return {m[-1] for m in self.modules if len(m) == len(module) + 1 and m[:-1] == module}

    def absolute(self, module, path):
        """A use path written in `module` as a path from the crate root; None when external."""
        if not path:
            return None
        head, rest = path[0], path[1:]
        if head == "crate":
            base = []
        elif head == "self":
            base = list(module)
        elif head == "super":
            base = list(module[:-1])
        elif head in self.children(module):
            base, rest = list(module), path
        else:
            return None
        while rest and rest[0] == "super":
            base, rest = base[:-1], rest[1:]
        if "super" in rest:
            return None
        return tuple(base + list(rest))

    def resolve(self, path):
        """(module, item) a crate path names: the longest module it starts with, followed
        through re-exports to the module the item is defined in."""
        for _ in range(8):
            target = path
            while target and target not in self.modules:
                target = target[:-1]
            if len(path) == len(target):
                return target, None
            item = path[len(target)]
            if item in self.reexports.get(target, {}):
                path = self.reexports[target][item] + path[len(target) + 1 :]
                continue
            if item not in self.defines.get(target, set()):
                for glob in self.globs.get(target, []):
                    if glob in self.modules and item in self.defines.get(glob, set()):
                        return glob, item
            return target, item
        return target, item

    def references(self, module, text):
        """(module, item, line) for every crate path `text`, the file of `module`, names."""
        found = []

        def add(path, offset):
            target, item = self.resolve(tuple(path))
            found.append((target, item, text.count("\n", 0, offset) + 1))

        for m in PATH.finditer(text):
            head, rest, brace = m.group(1), m.group(2), m.group(3)
            names = [n for n in rest.split("::") if n]
            path = self.absolute(module, [head] + names)
            if path is None:
                continue
            if brace:
                for item in group_items(text, m.end() - 1):
                    for leaf, _ in use_leaves(item):
                        if leaf and leaf[0] != "self" and leaf[-1] != "*":
                            add(list(path) + leaf, m.start())
                        elif leaf and leaf[-1] == "*":
                            add(list(path) + leaf[:-1], m.start())
            else:
                add(path, m.start())
        kids = self.children(module)
        if kids:
            bare = re.compile(
                r"(?<![\w:])(" + "|".join(sorted(kids)) + r")((?:::" + NAME + r")*)::"
            )
            for m in bare.finditer(text):
                names = [m.group(1)] + [n for n in m.group(2).split("::") if n]
                add(list(module) + names, m.start())
        return found


def within(module, prefixes):
    return any(module[: len(p)] == p for p in prefixes)


def check_dependencies(srcs, table):
    """Problems in the workspace dependencies of the crates whose `src` folders are given."""
    allowed = table.get("crates", {})
    manifests = {}
    for src in srcs:
        path = os.path.join(os.path.dirname(os.path.normpath(src)), "Cargo.toml")
        if os.path.exists(path):
            with open(path, "rb") as f:
                manifests[path] = tomllib.load(f)
    ours = set(allowed) | {m.get("package", {}).get("name") for m in manifests.values()}
    problems = []
    for path, manifest in sorted(manifests.items()):
        name = manifest.get("package", {}).get("name")
        tables = [(k, manifest.get(k, {})) for k in ("dependencies", "dev-dependencies", "build-dependencies")]
        for target, spec in manifest.get("target", {}).items():
            for k in ("dependencies", "dev-dependencies", "build-dependencies"):
                tables.append((f"target.{target}.{k}", spec.get(k, {})))
        if name not in allowed:
            problems.append(f"{path}: crate {name} is not in the crate table of {TABLE_NAME}")
            continue
        for kind, deps in tables:
            for dep in sorted(deps):
                if dep in ours and dep != name and dep not in allowed[name]:
                    problems.append(
                        f"{path}: [{kind}] {dep}: {name} may depend only on "
                        f"{', '.join(allowed[name]) or 'no workspace crate'}"
                    )
    return problems


def crate_name(src):
    path = os.path.join(os.path.dirname(os.path.normpath(src)), "Cargo.toml")
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return tomllib.load(f).get("package", {}).get("name")


def check(src, table):
    """Prints the graph of one crate's `src`; returns the problems found."""
    crate = Crate(src)
    name = crate_name(src)
    code_refs = {m: crate.references(m, crate.code[m]) for m in crate.modules}
    problems = []

    # Cycles among the children of each module (doc links count).
    levels, where = {}, {}
    for module in sorted(crate.modules):
        for target, _, line in crate.references(module, crate.files[module]):
            n = 0
            while n < min(len(module), len(target)) and module[n] == target[n]:
                n += 1
            if n == len(module) or n == len(target):
                continue  # a module and its own ancestor or descendant
            levels.setdefault(module[:n], {}).setdefault(module[n], set()).add(target[n])
            # One place that names each edge, for the report (code before doc links).
            key = (module[: n + 1], target[: n + 1])
            doc = crate.files[module].splitlines()[line - 1].lstrip().startswith("//")
            if key not in where or (where[key][2] and not doc):
                where[key] = (crate.rel[module], line, doc)
    print(f"== {src}")
    top = levels.get((), {})
    for module in sorted(m[0] for m in crate.modules if len(m) == 1):
        print(f"{module:12} -> {', '.join(sorted(top.get(module, ()))) or '-'}")
    for path, lines in sorted(crate.sizes.items()):
        if lines > LIMIT:
            why = "says why" if path in crate.excused else "NO REASON GIVEN"
            print(f"over {LIMIT} lines of non-test code: {path} ({lines}), {why}")
            if path not in crate.excused:
                problems.append(f"{src}/{path}: {lines} lines of non-test code without a reason")
    for parent in sorted(levels):
        for cycle in strongly_connected(levels[parent]):
            edges = []
            for a in cycle:
                for b in sorted(levels[parent][a] & set(cycle)):
                    rel, line, doc = where[(parent + (a,), parent + (b,))]
                    edges.append(f"{a} → {b} ({rel}:{line}{', a doc link' if doc else ''})")
            problems.append(
                f"{src}: import cycle among the children of {dotted(parent)}: "
                f"{' ⇄ '.join(cycle)}; edges: {'; '.join(edges)}"
            )

    # Parent⇄child loops: a descendant names an item its ancestor's own file defines, and
    # that ancestor's file names the descendant's branch.
    allowed = {
        (a["parent"], child)
        for a in table.get("allow_loop", [])
        if a.get("crate") == name and a.get("reason")
        for child in a.get("children", [])
    }
    down = {}
    for module, refs in code_refs.items():
        for target, _, line in refs:
            if len(target) > len(module) and target[: len(module)] == module:
                down.setdefault((module, target[: len(module) + 1]), line)
    loops, all_loops = {}, {}
    for module, refs in sorted(code_refs.items()):
        for target, item, line in refs:
            if len(target) >= len(module) or module[: len(target)] != target:
                continue
            branch = module[: len(target) + 1]
            if item is None or item not in crate.defines.get(target, set()):
                continue
            if (target, branch) in down:
                all_loops.setdefault((target, branch), []).append((module, item, line))
                if (dotted(target), dotted(branch)) not in allowed:
                    loops.setdefault((target, branch), []).append((module, item, line))
    for parent, child in sorted(allowed):
        key = (tuple(parent.split("::")), tuple(child.split("::")))
        if key[0] in crate.modules and not all_loops.get(key):
            print(f"allowed loop {parent} ⇄ {child} is gone: its entry in {TABLE_NAME} can go")
    for (parent, branch), uses in sorted(loops.items()):
        module, item, line = uses[0]
        more = f" (and {len(uses) - 1} more)" if len(uses) > 1 else ""
        problems.append(
            f"{src}/{crate.rel[module]}:{line}: parent⇄child loop {dotted(parent)} ⇄ {dotted(branch)}: "
            f"names {dotted(parent)}::{item}, defined in {crate.rel[parent]}{more}, while "
            f"{crate.rel[parent]}:{down[(parent, branch)]} names {dotted(branch)}"
        )

    # The module rules of the table.
    for rule in table.get("rule", []):
        if rule.get("crate") != name:
            continue
        sources = [tuple(p.split("::")) for p in rule.get("from", [])]
        present = [s for s in sources if s in crate.modules]
        missing = [dotted(s) for s in sources if s not in crate.modules]
        if missing:
            print(f"rule \"{rule['name']}\": no module {', '.join(missing)} here (skipped)")
        never = [tuple(p.split("::")) for p in rule.get("never", [])]
        only = [tuple(p.split("::")) for p in rule.get("only", [])] if "only" in rule else None
        for module, refs in sorted(code_refs.items()):
            own = [s for s in present if module[: len(s)] == s]
            if not own:
                continue
            for target, _, line in refs:
                if target == () or within(target, own):
                    continue
                broken = within(target, never) or (only is not None and not within(target, only))
                if broken:
                    problems.append(
                        f"{src}/{crate.rel[module]}:{line}: names {dotted(target)}; "
                        f"rule \"{rule['name']}\" ({TABLE_NAME})"
                    )
    if not problems:
        print("no cycle, loop or rule broken")
    return problems


TABLE_NAME = "scripts/layers.toml"


def main(argv):
    global TABLE_NAME
    table_path = TABLE
    if argv[:1] == ["--table"]:
        table_path, argv = argv[1], argv[2:]
        TABLE_NAME = table_path
    with open(table_path, "rb") as f:
        table = tomllib.load(f)
    srcs = argv or ["crates/stillreel-render/src"]
    problems = check_dependencies(srcs, table)
    for src in srcs:
        problems += check(src, table)
    if problems:
        print("\n".join(["", f"module structure: {len(problems)} problem(s)"] + problems))
        return 1
    print("\nmodule structure: no problem")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
