#!/usr/bin/env python3
"""Checks the claims about code that the docs make in code spans and a script can check:

- every file path in a code span (`src/db.rs`, `scripts/test.sh`, `worker/kinds/clip.rs`)
  names a file or folder of the repository (found from the top, from a crate, or from a
  crate's `src/`);
- every `Type::member` in a code span (`Db::invalidate_pages`, `JobKind::GENERATE`) names a
  member that the Rust sources define for some type of that name (`fn`, `const`, an enum
  variant, a field), so a renamed or removed function cannot stay in the docs;
- every module path in a code span (`repo::graph`, `queue::enqueue_in`, `kinds::PREPARE`,
  `stillreel_core::schema`) names modules of a workspace crate, read as `scripts/module_cycles.py`
  reads them, and the item after the last module is defined (or re-exported) there. A path
  may start at a crate's root or at any module (`kinds::` is `worker::kinds::`); a path whose
  first name is no module of ours (`std::fs`, `serde_json::Value`) is not ours to check;
- the crate-edge block of docs/ARCHITECTURE.md is what the crate table of
  `scripts/layers.toml` gives (`--write` rewrites it);
- every test a doc names as holding a rule, "(held by `crates/x/tests/y.rs` `name`)", exists: a
  `fn name` in that Rust file, or a row `"name"` in a `tests/cases/*.json` table. One "held by"
  may name several files, each followed by its tests.

    python3 scripts/doc_claims.py            # README.md, docs/*.md, web/README.md, tests/README.md; CI runs this
    python3 scripts/doc_claims.py --write    # rewrites the crate-edge block from scripts/layers.toml
    python3 scripts/doc_claims.py --root DIR # another checkout (the script's own tests use this)
"""
import contextlib
import glob
import io
import json
import os
import re
import subprocess
import sys
import textwrap
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import module_cycles  # noqa: E402  (the module tree is read as the module check reads it)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPAN = re.compile(r"`([^`\n]+)`")
PATH = re.compile(r"^[A-Za-z0-9_.\-/*{}<>]+\.(rs|sh|py|toml|sql|mjs|js|json|lua|md|d\.ts)$")
MEMBER = re.compile(r"\b([A-Z][A-Za-z0-9]*)::([A-Za-z_][A-Za-z0-9_]*)")
# `a::b::C`, `crate::a::b`, `a::{b, c}`: a path of at least two names that starts lower case.
MODULE_PATH = re.compile(r"(?<![\w:.])([a-z_][a-z0-9_]*(?:::(?:[A-Za-z_][A-Za-z0-9_]*|\*|\{[^}]*\}))+)")
EDGES_BEGIN = "<!-- crate edges: written by `python3 scripts/doc_claims.py --write` from scripts/layers.toml -->"
EDGES_END = "<!-- end of crate edges -->"
EDGES_DOC = os.path.join("docs", "ARCHITECTURE.md")
HELD_BY = re.compile(r"\(held by\s+([^()]*)\)")


def docs():
    files = [os.path.join(ROOT, p) for p in ("README.md", "web/README.md", "tests/README.md")]
    files += sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    return [f for f in files if os.path.exists(f)]


def rust_sources():
    found = []
    for base in ("crates", "fuzz"):
        for path in glob.glob(os.path.join(ROOT, base, "**", "*.rs"), recursive=True):
            if "/target/" not in path:
                found.append(path)
    return found


def defined_members(sources):
    """(type, member) for every member a Rust source defines inside `impl Type`/`impl Trait for
    Type` blocks (functions, constants), `enum Type` (variants) and `struct Type` (fields)."""
    members = set()
    opener = re.compile(
        r"^\s*(?:pub(?:\([a-z]+\))?\s+)?(?:(impl)\b(?:<[^{]*?>)?\s+(?:[A-Za-z0-9_:<>, ]+\s+for\s+)?"
        r"(?:[a-z_]+::)*([A-Z][A-Za-z0-9]*)|(enum|struct|trait)\s+([A-Z][A-Za-z0-9]*))[^;]*\{\s*$"
    )
    member = re.compile(
        r"^\s*(?:pub(?:\([a-z]+\))?\s+)?(?:(?:const|async|unsafe)\s+)*fn\s+([A-Za-z_][A-Za-z0-9_]*)"
        r"|^\s*(?:pub(?:\([a-z]+\))?\s+)?const\s+([A-Za-z_][A-Za-z0-9_]*)\s*:"
        r"|^\s*(?:pub(?:\([a-z]+\))?\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(?:[,({:=]|$)"
    )
    for path in sources:
        owner, depth, inner = None, 0, 0
        for line in open(path, encoding="utf-8"):
            code = line.split("//", 1)[0]
            if owner is None:
                m = opener.match(code)
                if m:
                    owner = m.group(2) or m.group(4)
                    inner = depth + 1
            elif depth == inner:
                m = member.match(code)
                if m:
                    members.add((owner, next(g for g in m.groups() if g)))
            depth += code.count("{") - code.count("}")
            if owner is not None and depth < inner:
                owner = None
    return members


def repo_files():
    """Every tracked file and folder, as paths from the top."""
    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    found = set(listed)
    for path in listed:
        parts = path.split("/")
        for i in range(1, len(parts)):
            found.add("/".join(parts[:i]))
    return found


def path_exists(span, files):
    """A path is found when some tracked file or folder ends with it (`videos/write.rs` is
    `crates/stillreel-server/src/repo/videos/write.rs`)."""
    span = span.strip("/")
    if any(c in span for c in "*{}<>") or span.startswith("."):
        return True  # a pattern, or a file a tool writes
    return span in files or any(f.endswith("/" + span) for f in files)


def crate_edges(table):
    """The crate-edge sentences the crate table of layers.toml gives, in its order, with the
    crates' common prefix (`stillreel-`) left out."""
    crates = table.get("crates", {})
    heads = {name.split("-", 1)[0] for name in crates}
    cut = len(heads.pop()) + 1 if len(heads) == 1 and all("-" in n for n in crates) else 0
    short = {name: name[cut:] for name in crates}
    edges = "; ".join(
        f"{short[name]} → {', '.join(short[d] for d in deps) or 'nothing'}" for name, deps in crates.items()
    )
    depended = {d for deps in crates.values() for d in deps}
    tops = [short[n] for n in crates if n not in depended]
    text = (
        "Dependencies point inward. The crate table of `scripts/layers.toml` allows exactly these "
        f"edges, and the module check fails on any other: {edges}. "
    )
    if tops:
        listed = tops[0] if len(tops) == 1 else ", ".join(tops[:-1]) + " or " + tops[-1]
        text += f"No crate depends on {listed}."
    return textwrap.fill(text.strip(), width=96, break_on_hyphens=False)


def edges_block(table):
    return f"{EDGES_BEGIN}\n{crate_edges(table)}\n{EDGES_END}"


def check_edges(text, table):
    """Problems with the crate-edge block of `text` (missing, or not what the table gives)."""
    start, end = text.find(EDGES_BEGIN), text.find(EDGES_END)
    if start < 0 or end < start:
        return [f"{EDGES_DOC}: no crate-edge block ({EDGES_BEGIN!r} ... {EDGES_END!r})"]
    if text[start : end + len(EDGES_END)] != edges_block(table):
        line = text.count("\n", 0, start) + 1
        return [
            f"{EDGES_DOC}:{line}: the crate-edge block differs from scripts/layers.toml; "
            "run python3 scripts/doc_claims.py --write"
        ]
    return []


def write_edges(text, table):
    start, end = text.find(EDGES_BEGIN), text.find(EDGES_END)
    if start < 0 or end < start:
        raise SystemExit(f"{EDGES_DOC} has no crate-edge block to rewrite")
    return text[:start] + edges_block(table) + text[end + len(EDGES_END) :]


def module_trees():
    """{crate name with `_`: module_cycles.Crate} for every crate under crates/."""
    trees = {}
    for src in sorted(glob.glob(os.path.join(ROOT, "crates", "*", "src"))):
        name = module_cycles.crate_name(src)
        if name:
            trees[name.replace("-", "_")] = module_cycles.Crate(src)
    return trees


def module_paths(span):
    """The module paths a code span writes, brace groups spread (`a::{b, c::D}` gives
    `a::b` and `a::c::D`), each a list of names, `crate::` dropped."""
    found = []
    for m in MODULE_PATH.finditer(span):
        for path, _ in module_cycles.use_leaves(m.group(1)):
            path = [p for p in path if p not in ("crate", "self", "*")]
            if len(path) >= 2 and all(re.fullmatch(module_cycles.NAME, p) for p in path):
                found.append(path)
    return found


def test_targets():
    """{name: [files]} of the crates' integration tests (`tests/settings.rs`, `tests/api/main.rs`)."""
    found = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "crates", "*", "tests", "*.rs"))):
        found.setdefault(os.path.basename(path)[:-3], []).append(path)
    for path in sorted(glob.glob(os.path.join(ROOT, "crates", "*", "tests", "*", "main.rs"))):
        found.setdefault(os.path.basename(os.path.dirname(path)), []).append(path)
    return found


def path_problem(path, trees, test_files):
    """None when `path` is fine or not ours to check; else why it names nothing."""
    names = {m[-1] for crate in trees.values() for m in crate.modules if m}
    starts = []
    if path[0] in trees:
        starts = [(trees[path[0]], path[1:])]
    elif path[0] in names:
        for crate in trees.values():
            for module in crate.modules:
                if module and module[-1] == path[0]:
                    starts.append((crate, list(module[:-1]) + path))
    elif path[0] not in test_files:
        return None  # `std::fs`, `serde_json::Value`: another crate's
    if path[0] in test_files:
        # An integration test: `settings::name` is `fn name` in a crate's `tests/settings.rs`,
        # `api::hangups::name` one in `tests/api/hangups.rs`; a module may be a macro's
        # (`mod short, configured by ...`), so a name is found as `fn` or `mod` in any file
        # of that test, or as one of its files.
        whole = ""
        for test in test_files[path[0]]:
            folder = os.path.dirname(test)
            if os.path.basename(test) != "main.rs":
                folder = os.path.join(folder, path[0])
            parts = [test] + sorted(glob.glob(os.path.join(folder, "**", "*.rs"), recursive=True))
            whole += "".join(open(p, encoding="utf-8").read() for p in parts)
            whole += "".join(f"\nmod {os.path.basename(p)[:-3]};" for p in parts)
        if all(re.search(r"\b(?:fn|mod)\s+" + re.escape(n) + r"\b", whole) for n in path[1:] if n != "tests"):
            return None
    for crate, full in starts:
        modules = []
        for name in full:
            if tuple(modules + [name]) not in crate.modules:
                break
            modules.append(name)
        rest = full[len(modules) :]
        if not rest:
            return None
        item = rest[0]
        module = tuple(modules)
        if item == "tests" and module in crate.modules:
            # An inline test module (`draw::zoom::tests::name`): the file's own tests.
            whole = open(os.path.join(crate.src, crate.rel[module]), encoding="utf-8").read()
            if re.search(r"\bmod\s+tests\b", whole) and all(
                re.search(r"\bfn\s+" + re.escape(n) + r"\b", whole) for n in rest[1:]
            ):
                return None
            continue
        target, found = crate.resolve(module + (item,))
        if found is None or found in crate.defines.get(target, set()):
            return None
        if item in crate.reexports.get(module, {}) or re.search(
            r"\b(?:mod|macro_rules!)\s+" + re.escape(item) + r"\b|\b" + re.escape(item) + r"!\s*\{",
            crate.code.get(module, ""),
        ):
            return None
    return "names no module" if not starts else "is no module or item of the workspace"


def held_by(text, rel):
    """Problems with the tests a doc names as holding its rules."""
    problems = []
    for m in HELD_BY.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        current = None
        spans = SPAN.findall(m.group(1).replace("\n", " "))
        if not any(not re.fullmatch(r"[\w./-]+\.(?:rs|json)", span) for span in spans):
            problems.append(f"{rel}:{line}: held by names no test")
        for span in spans:
            if re.fullmatch(r"[\w./-]+\.(?:rs|json)", span):
                current = span
                if not os.path.isfile(os.path.join(ROOT, span)):
                    problems.append(f"{rel}:{line}: held by `{span}`: no such file")
                    current = None
                continue
            if current is None:
                problems.append(f"{rel}:{line}: held by `{span}`: no file named before it")
                continue
            body = open(os.path.join(ROOT, current), encoding="utf-8").read()
            if current.endswith(".json"):
                found = span in {row.get("name") for row in json.loads(body) if isinstance(row, dict)}
            else:
                found = re.search(r"\bfn\s+" + re.escape(span) + r"\b", body) is not None
            if not found:
                problems.append(f"{rel}:{line}: held by `{current}` `{span}`: no such test")
    return problems


def layers_table():
    with open(os.path.join(ROOT, "scripts", "layers.toml"), "rb") as f:
        return tomllib.load(f)


def main(argv):
    global ROOT
    if argv[:1] == ["--root"]:
        ROOT, argv = os.path.abspath(argv[1]), argv[2:]
    table = layers_table()
    edges_doc = os.path.join(ROOT, EDGES_DOC)
    if argv == ["--write"]:
        text = open(edges_doc, encoding="utf-8").read()
        with open(edges_doc, "w", encoding="utf-8") as f:
            f.write(write_edges(text, table))
        print(f"{EDGES_DOC}: crate-edge block written from scripts/layers.toml")
        return 0
    members = defined_members(rust_sources())
    files = repo_files()
    with contextlib.redirect_stdout(io.StringIO()):
        trees = module_trees()
    tests = test_targets()
    owners = {owner for owner, _ in members}
    problems = []
    if os.path.exists(edges_doc):
        problems += check_edges(open(edges_doc, encoding="utf-8").read(), table)
    for doc in docs():
        rel = os.path.relpath(doc, ROOT)
        text = open(doc, encoding="utf-8").read()
        problems += held_by(text, rel)
        in_fence = False
        for number, line in enumerate(text.splitlines(), 1):
            if line.lstrip().startswith("```"):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            for span in SPAN.findall(line):
                span = span.strip()
                if PATH.match(span) and "/" in span and not span.startswith(("http", "/api", "/files")):
                    if not path_exists(span, files):
                        problems.append(f"{rel}:{number}: `{span}` names no file of the repository")
                for owner, member in MEMBER.findall(span):
                    if owner in owners and (owner, member) not in members:
                        problems.append(f"{rel}:{number}: `{owner}::{member}`: nothing defines `{member}`")
                for path in module_paths(span):
                    why = path_problem(path, trees, tests)
                    if why:
                        problems.append(f"{rel}:{number}: `{'::'.join(path)}` {why}")
    for p in problems:
        print(p)
    print(f"doc claims: {len(problems)} problem(s) in {len(docs())} documents")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
