#!/usr/bin/env python3
"""Tests of scripts/doc_claims.py on a small made-up repository written to a temporary folder:
a false module path, a stale crate-edge block and a missing test named as holding a rule are
each caught, with the doc and line they are on, and a true doc passes.

    python3 scripts/test_doc_claims.py
"""
import importlib.util
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "doc_claims.py")

TABLE = """
[crates]
demo-core = []
demo-app = ["demo-core"]
"""

SOURCES = {
    "crates/demo-core/Cargo.toml": '[package]\nname = "demo-core"\nversion = "0.1.0"\n',
    "crates/demo-core/src/lib.rs": "pub mod rules;\npub use rules::check;\n",
    "crates/demo-core/src/rules.rs": """
        pub fn check() {}
        pub struct Rule { pub name: String }
        #[cfg(test)]
        mod tests {
            #[test]
            fn a_rule_is_checked() {}
        }
    """,
    "crates/demo-app/Cargo.toml": '[package]\nname = "demo-app"\nversion = "0.1.0"\n',
    "crates/demo-app/src/lib.rs": "pub mod web;\n",
    "crates/demo-app/src/web/mod.rs": "pub mod pages;\npub const HOME: &str = \"/\";\n",
    "crates/demo-app/src/web/pages.rs": "pub fn page() {}\n",
    "crates/demo-app/tests/pages.rs": "#[test]\nfn a_page_is_served() {}\n",
    "tests/cases/rules.json": '[{"name": "a blank name is empty"}]\n',
}

ARCHITECTURE = """
# Architecture

<!-- crate edges: written by `python3 scripts/doc_claims.py --write` from scripts/layers.toml -->
{edges}
<!-- end of crate edges -->

`web::pages` serves `web::pages::page` and `web::HOME`; `demo_core::rules::check`, `rules::Rule`
and `crate::web::{pages, HOME}` are the core's and the app's. `std::fs::read` is not ours.
The tests: `rules::tests::a_rule_is_checked`, `pages::a_page_is_served`.
"""

API = """
# API

- A blank name is refused (held by `tests/cases/rules.json` `a blank name is empty`;
  `crates/demo-app/tests/pages.rs` `a_page_is_served`).
"""


def edges():
    """The block's text as the script writes it for TABLE."""
    spec = importlib.util.spec_from_file_location("doc_claims", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import tomllib

    return module.crate_edges(tomllib.loads(TABLE))


class DocClaims(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        files = dict(SOURCES)
        files["scripts/layers.toml"] = TABLE
        files["docs/ARCHITECTURE.md"] = ARCHITECTURE.replace("{edges}", edges())
        files["docs/API-DESIGN.md"] = API
        for rel, text in files.items():
            self.write(rel, text)
        subprocess.run(["git", "init", "-q", self.root], check=True)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(textwrap.dedent(text).lstrip())

    def edit(self, rel, old, new):
        path = os.path.join(self.root, rel)
        with open(path) as f:
            text = f.read()
        self.assertIn(old, text)
        with open(path, "w") as f:
            f.write(text.replace(old, new, 1))

    def run_check(self, *args):
        subprocess.run(["git", "add", "."], cwd=self.root, check=True)
        result = subprocess.run(
            [sys.executable, SCRIPT, "--root", self.root, *args], capture_output=True, text=True
        )
        return result.returncode, result.stdout + result.stderr

    def test_a_true_doc_passes(self):
        code, out = self.run_check()
        self.assertEqual(code, 0, out)
        self.assertIn("doc claims: 0 problem(s)", out)

    def test_the_block_lists_every_edge(self):
        self.assertIn("core → nothing; app → core. No crate depends on app.", edges())

    def test_a_false_module_path_is_caught(self):
        self.edit("docs/ARCHITECTURE.md", "`web::pages` serves", "`web::views` serves")
        code, out = self.run_check()
        self.assertEqual(code, 1, out)
        self.assertIn("docs/ARCHITECTURE.md:8: `web::views` is no module or item of the workspace", out)

    def test_a_missing_item_after_a_module_is_caught(self):
        self.edit("docs/ARCHITECTURE.md", "`web::pages::page`", "`web::pages::render`")
        self.edit("docs/ARCHITECTURE.md", "`rules::tests::a_rule_is_checked`", "`rules::tests::gone`")
        code, out = self.run_check()
        self.assertEqual(code, 1, out)
        self.assertIn("`web::pages::render` is no module or item", out)
        self.assertIn("`rules::tests::gone` is no module or item", out)

    def test_a_wrong_crate_edge_is_caught_and_written(self):
        self.edit("docs/ARCHITECTURE.md", "app → core", "app → core, other")
        code, out = self.run_check()
        self.assertEqual(code, 1, out)
        self.assertIn("docs/ARCHITECTURE.md:3: the crate-edge block differs from scripts/layers.toml", out)
        code, out = self.run_check("--write")
        self.assertEqual(code, 0, out)
        code, out = self.run_check()
        self.assertEqual(code, 0, out)

    def test_a_new_edge_in_the_table_makes_the_block_stale(self):
        self.edit("scripts/layers.toml", 'demo-core = []', 'demo-core = []\ndemo-cli = ["demo-app"]')
        code, out = self.run_check()
        self.assertEqual(code, 1, out)
        self.assertIn("the crate-edge block differs", out)

    def test_a_missing_block_is_caught(self):
        self.edit("docs/ARCHITECTURE.md", "<!-- end of crate edges -->", "")
        code, out = self.run_check()
        self.assertEqual(code, 1, out)
        self.assertIn("docs/ARCHITECTURE.md: no crate-edge block", out)

    def test_a_missing_holding_test_is_caught(self):
        self.edit("docs/API-DESIGN.md", "`a_page_is_served`", "`a_page_is_cached`")
        self.edit("docs/API-DESIGN.md", "`a blank name is empty`", "`a blank name is refused`")
        code, out = self.run_check()
        self.assertEqual(code, 1, out)
        self.assertIn(
            "docs/API-DESIGN.md:3: held by `crates/demo-app/tests/pages.rs` `a_page_is_cached`: no such test",
            out,
        )
        self.assertIn("held by `tests/cases/rules.json` `a blank name is refused`: no such test", out)

    def test_a_holding_file_that_is_not_there_is_caught(self):
        self.edit("docs/API-DESIGN.md", "tests/pages.rs", "tests/views.rs")
        code, out = self.run_check()
        self.assertEqual(code, 1, out)
        self.assertIn("held by `crates/demo-app/tests/views.rs`: no such file", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
