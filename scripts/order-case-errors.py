#!/usr/bin/env python3
"""Reorders the expected errors of tests/cases/*.json into document order, by the rule the
validator uses (see `Errors` in crates/stillreel-core/src/reader.rs): each error's key is the
positions of its path's members and elements in the body, compared as a list; a path that
leaves the body ends with the length of the deepest container it reaches; ties keep the
listed order. Member order matters, so bodies are read as lists of pairs."""
import json
import re
import sys
from pathlib import Path


class Obj(list):
    """An object's members as (key, value) pairs, in document order."""


def segments(field):
    out = []
    for part in re.finditer(r"\[(\d+)\]|\.?([^.\[]+)", field):
        out.append(int(part.group(1)) if part.group(1) is not None else part.group(2))
    return out


def key(body, field):
    result, value = [], body
    for seg in segments(field):
        if isinstance(seg, str) and isinstance(value, Obj):
            found = [i for i, (k, _) in enumerate(value) if k == seg]
            if found:
                result.append(found[-1])
                value = value[found[-1]][1]
                continue
        elif isinstance(seg, int) and isinstance(value, list) and not isinstance(value, Obj):
            if seg < len(value):
                result.append(seg)
                value = value[seg]
                continue
        if isinstance(value, list):
            result.append(len(value))
        break
    return result


def main():
    for path in sys.argv[1:]:
        text = Path(path).read_text()
        cases = json.loads(text, object_pairs_hook=Obj)
        changed = False
        for case in cases:
            case_d = dict(case)
            errors = case_d.get("errors")
            body = case_d.get("body")
            if not errors or body is None:
                continue
            before = list(errors)
            errors.sort(key=lambda e: key(body, dict(e)["field"]))
            changed |= errors != before
        if not changed:
            # Some files keep long bodies on one line; leave them as they are.
            continue

        # Repeated members cannot go through a dict; write pairs back by hand.
        def dump(v, indent):
            pad = " " * (indent + 1)
            if isinstance(v, Obj):
                if not v:
                    return "{}"
                inner = ",\n".join(
                    f"{pad}{json.dumps(k, ensure_ascii=False)}: {dump(x, indent + 1)}" for k, x in v
                )
                return "{\n" + inner + "\n" + " " * indent + "}"
            if isinstance(v, list):
                if not v:
                    return "[]"
                inner = ",\n".join(f"{pad}{dump(x, indent + 1)}" for x in v)
                return "[\n" + inner + "\n" + " " * indent + "]"
            return json.dumps(v, ensure_ascii=False)

        out = dump(cases, 0) + ("\n" if text.endswith("\n") else "")
        Path(path).write_text(out)


main()
