#!/usr/bin/env python3
"""Checks the claims about code that the docs make in code spans and a script can check:

- every file path in a code span (`src/db.rs`, `scripts/test.sh`, `worker/kinds/clip.rs`)
  names a file or folder of the repository (found from the top, from a crate, or from a
  crate's `src/`);
- every `Type::member` in a code span (`Db::invalidate_pages`, `JobKind::GENERATE`) names a
  member that the Rust sources define for some type of that name (`fn`, `const`, an enum
  variant, a field), so a renamed or removed function cannot stay in the docs.

    python3 scripts/doc_claims.py            # README.md, docs/*.md, web/README.md; CI runs this
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPAN = re.compile(r"`([^`\n]+)`")
PATH = re.compile(r"^[A-Za-z0-9_.\-/*{}<>]+\.(rs|sh|py|toml|sql|mjs|js|json|lua|md|d\.ts)$")
MEMBER = re.compile(r"\b([A-Z][A-Za-z0-9]*)::([A-Za-z_][A-Za-z0-9_]*)")


def docs():
    files = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "web", "README.md")]
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


def main():
    members = defined_members(rust_sources())
    files = repo_files()
    owners = {owner for owner, _ in members}
    problems = []
    for doc in docs():
        rel = os.path.relpath(doc, ROOT)
        in_fence = False
        for number, line in enumerate(open(doc, encoding="utf-8"), 1):
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
    for p in problems:
        print(p)
    print(f"doc claims: {len(problems)} problem(s) in {len(docs())} documents")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
