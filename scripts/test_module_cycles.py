#!/usr/bin/env python3
"""Tests of scripts/module_cycles.py on small made-up crates written to a temporary folder:
each kind of problem is caught, with the file and line it names, and a clean crate passes.

    python3 scripts/test_module_cycles.py
"""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "module_cycles.py")

TABLE = """
[crates]
demo-core = []
demo-app = ["demo-core"]

[[rule]]
crate = "demo-app"
name = "store never names web"
from = ["store"]
never = ["web"]

[[rule]]
crate = "demo-app"
name = "base names no other module"
from = ["base"]
only = []

[[rule]]
crate = "demo-app"
name = "a rule over a module that is not there"
from = ["gone"]
never = ["web"]
"""

CLEAN = {
    "lib.rs": """
        pub mod base;
        pub mod store;
        pub mod web;
        pub use store::Store;
    """,
    "base.rs": "pub struct Id(pub u64);\n",
    "store.rs": """
        //! Rows of [`crate::base::Id`].
        use crate::base::Id;
        pub struct Store(pub Id);
    """,
    "web/mod.rs": """
        mod pages;
        pub use self::pages::page;
        use crate::Store;
        pub fn serve(_: &Store) {}
    """,
    "web/pages.rs": """
        use crate::store::Store;
        pub fn page(_: &Store) -> String { String::new() }
    """,
}


def write_crate(root, name, files, deps=()):
    """A crate folder `root/name` with a Cargo.toml naming `deps` and the given source files;
    returns its `src` path."""
    folder = os.path.join(root, name)
    os.makedirs(os.path.join(folder, "src"))
    lines = [f'[package]\nname = "{name}"\nversion = "0.1.0"\n\n[dependencies]']
    lines += [f'{d} = {{ path = "../{d}" }}' for d in deps]
    with open(os.path.join(folder, "Cargo.toml"), "w") as f:
        f.write("\n".join(lines) + "\n")
    for rel, text in files.items():
        path = os.path.join(folder, "src", rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(textwrap.dedent(text).lstrip())
    return os.path.join(folder, "src")


class ModuleCheck(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.table = os.path.join(self.root, "layers.toml")
        with open(self.table, "w") as f:
            f.write(TABLE)
        self.core = write_crate(self.root, "demo-core", {"lib.rs": "pub struct Core;\n"})

    def tearDown(self):
        self.tmp.cleanup()

    def run_check(self, files, deps=("demo-core",), name="demo-app", table=None):
        app = write_crate(self.root, name, files, deps)
        result = subprocess.run(
            [sys.executable, SCRIPT, "--table", table or self.table, self.core, app],
            capture_output=True,
            text=True,
        )
        return result.returncode, result.stdout + result.stderr

    def test_a_clean_crate_passes(self):
        code, out = self.run_check(CLEAN)
        self.assertEqual(code, 0, out)
        self.assertIn("module structure: no problem", out)
        # The rule over a missing module is skipped, not an error.
        self.assertIn('no module gone here (skipped)', out)
        # `use crate::Store` (a re-export) is an edge to store.
        self.assertRegex(out, r"web +-> store")

    def test_a_sibling_cycle_is_caught(self):
        files = dict(CLEAN)
        files["web/mod.rs"] = "mod extra;\nmod pages;\npub use self::pages::page;\n"
        files["web/pages.rs"] = "use super::extra::X;\npub fn page() {}\n"
        files["web/extra.rs"] = "use super::pages::page;\npub struct X;\n"
        code, out = self.run_check(files)
        self.assertEqual(code, 1, out)
        self.assertIn("import cycle among the children of web: extra ⇄ pages", out)
        self.assertIn("pages → extra (web/pages.rs:1)", out)

    def test_a_parent_child_loop_is_caught(self):
        files = dict(CLEAN)
        files["web/mod.rs"] = """
            mod pages;
            use self::pages::page;
            pub struct Ctx;
            pub fn serve() -> String { page(&Ctx) }
        """
        files["web/pages.rs"] = """
            use super::Ctx;
            pub fn page(_: &Ctx) -> String { String::new() }
        """
        code, out = self.run_check(files)
        self.assertEqual(code, 1, out)
        self.assertIn(
            "web/pages.rs:1: parent⇄child loop web ⇄ web::pages: names web::Ctx, defined in "
            "web/mod.rs, while web/mod.rs:2 names web::pages",
            out,
        )

    def test_an_allowed_loop_passes_and_a_stale_entry_is_noted(self):
        files = dict(CLEAN)
        files["web/mod.rs"] = "mod pages;\npub use pages::page;\npub struct Ctx;\n"
        files["web/pages.rs"] = "pub fn page(_: &super::Ctx) {}\n"
        table = os.path.join(self.root, "allow.toml")
        with open(table, "w") as f:
            f.write(TABLE + textwrap.dedent("""
                [[allow_loop]]
                crate = "demo-app"
                parent = "web"
                children = ["web::pages", "web::old"]
                reason = "made up for the test"
            """))
        code, out = self.run_check(files, table=table)
        self.assertEqual(code, 0, out)
        self.assertIn("allowed loop web ⇄ web::old is gone", out)

    def test_an_edge_through_a_reexport_is_caught(self):
        # store names web only as `crate::serve`, which lib.rs re-exports from web.
        files = dict(CLEAN)
        files["lib.rs"] = CLEAN["lib.rs"] + "pub use web::serve;\n"
        files["store.rs"] = """
            use crate::base::Id;
            pub struct Store(pub Id);
            pub fn show(s: &Store) { crate::serve(s) }
        """
        code, out = self.run_check(files)
        self.assertEqual(code, 1, out)
        self.assertIn('store.rs:3: names web; rule "store never names web"', out)
        # The re-export also closes a cycle store ⇄ web.
        self.assertIn("import cycle among the children of crate: store ⇄ web", out)

    def test_a_forbidden_layer_edge_is_caught(self):
        files = dict(CLEAN)
        files["base.rs"] = "//! Ids.\n\nuse crate::store::Store;\npub struct Id(pub u64);\n"
        files["store.rs"] = "pub struct Store(pub u64);\n"
        code, out = self.run_check(files)
        self.assertEqual(code, 1, out)
        self.assertIn('base.rs:3: names store; rule "base names no other module"', out)

    def test_a_doc_link_breaks_no_rule(self):
        files = dict(CLEAN)
        files["lib.rs"] = CLEAN["lib.rs"] + "pub mod extra;\n"
        files["extra.rs"] = "pub fn note() {}\n"
        files["base.rs"] = "/// Read by [`crate::extra::note`].\npub struct Id(pub u64);\n"
        code, out = self.run_check(files)
        self.assertEqual(code, 0, out)
        # Cycles do count doc links: `base -> extra` is in the graph.
        self.assertRegex(out, r"base +-> extra")

    def test_a_forbidden_crate_dependency_is_caught(self):
        # demo-core may depend on no workspace crate.
        app = write_crate(self.root, "demo-app", CLEAN, ("demo-core",))
        os.remove(os.path.join(self.root, "demo-core", "Cargo.toml"))
        with open(os.path.join(self.root, "demo-core", "Cargo.toml"), "w") as f:
            f.write('[package]\nname = "demo-core"\n\n[dev-dependencies]\ndemo-app = { path = "../demo-app" }\n')
        result = subprocess.run(
            [sys.executable, SCRIPT, "--table", self.table, self.core, app],
            capture_output=True,
            text=True,
        )
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn(
            "demo-core/Cargo.toml: [dev-dependencies] demo-app: demo-core may depend only on no workspace crate",
            result.stdout,
        )

    def test_a_crate_missing_from_the_table_is_caught(self):
        code, out = self.run_check(CLEAN, name="demo-extra")
        self.assertEqual(code, 1, out)
        self.assertIn("crate demo-extra is not in the crate table", out)

    def test_a_long_file_needs_a_reason(self):
        files = dict(CLEAN)
        files["base.rs"] = "pub struct Id(pub u64);\n" + "// filler\n" * 401
        code, out = self.run_check(files)
        self.assertEqual(code, 1, out)
        self.assertIn("base.rs: 402 lines of non-test code without a reason", out)
        files["base.rs"] = "//! Long on purpose: one table.\n" + files["base.rs"]
        code, out = self.run_check_again(files)
        self.assertEqual(code, 0, out)

    def run_check_again(self, files):
        shutil.rmtree(os.path.join(self.root, "demo-app"))
        return self.run_check(files)


class UseTrees(unittest.TestCase):
    def test_use_leaves(self):
        spec = importlib.util.spec_from_file_location("module_cycles", SCRIPT)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        leaves = module.use_leaves("a::{b, c::{D as E}, f::*, self}")
        self.assertEqual(
            leaves,
            [(["a", "b"], "b"), (["a", "c", "D"], "E"), (["a", "f", "*"], "*"), (["a"], "a")],
        )


if __name__ == "__main__":
    unittest.main(verbosity=2)
