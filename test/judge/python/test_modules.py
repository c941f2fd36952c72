"""The judge's two packages, split by trust, and the zygote's module graph.

eddy_judge is the trusted side: the worker, which loads oracles, keeps the expected outputs and the
per-job keys, and decides verdicts. eddy_sandbox is what runs inside the sandbox: the zygote, its
keepers, the candidates' harness, the relay of another language's runtime. The zygote is sent
exactly eddy_sandbox's sources over its socket and loads them as that package.

Which side may import which: the sandbox package must never import the trusted one. Whatever it
imported would be loaded into the zygote, and so into every candidate's process, which the answer
shares and can read and change: the trusted side's code and whatever it holds at import would sit
beside hostile code, and the world would need eddy's folder bound to load it. The trusted side does
import the sandbox package (the shapes of the jobs and frames it exchanges with a sandbox, the
seccomp programs it hands bubblewrap): that is eddy's own code run in eddy's own process, and the
sandbox package holds nothing an answer wrote (its sources come from eddy's folder, which no
candidate can reach). So the arrow goes one way: trusted → sandbox.
"""

import ast
import os
import sys
import unittest

import eddy_judge
import eddy_sandbox
from eddy_sandbox.zygote import MODULES

TRUSTED = "eddy_judge"
SANDBOX = "eddy_sandbox"
SANDBOX_DIR = os.path.dirname(os.path.abspath(eddy_sandbox.__file__))
TRUSTED_DIR = os.path.dirname(os.path.abspath(eddy_judge.__file__))


def modules(folder: str) -> list[str]:
    return sorted(f[:-3] for f in os.listdir(folder) if f.endswith(".py") and f != "__init__.py")


def parse(folder: str, name: str) -> ast.AST:
    with open(os.path.join(folder, name + ".py"), encoding="utf-8") as f:
        return ast.parse(f.read())


def package_imports(name: str) -> list[str]:
    """The sandbox package's modules that module `name` of it imports (`from . import x`, `from .x import y`)."""
    out: list[str] = []
    for node in ast.walk(parse(SANDBOX_DIR, name)):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out.extend([node.module] if node.module else [a.name for a in node.names])
    return out


def reaches_outside(tree: ast.AST) -> list[str]:
    """What in `tree` reaches beyond its own package and the standard library: an import of any
    other top-level name (the trusted package's, a third party's), a relative import that climbs
    out of the package, or a string that names the trusted package or one of its modules (the
    argument of importlib.import_module, __import__, a sys.modules lookup). Everything counts,
    a function's body and an `if TYPE_CHECKING:` block included."""
    found: list[str] = []
    stdlib = sys.stdlib_module_names

    def named(module: str) -> None:
        top = module.split(".")[0]
        if top != SANDBOX and top not in stdlib:
            found.append(module)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                named(a.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level > 1:
                found.append("." * node.level + (node.module or ""))
            elif node.level == 0:
                named(node.module or "")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value == TRUSTED or node.value.startswith(TRUSTED + "."):
                found.append(repr(node.value))
    return found


class TrustSplitTest(unittest.TestCase):
    def test_the_sandbox_package_reaches_nothing_outside_itself_and_the_standard_library(self) -> None:
        offenders = {name: reaches_outside(parse(SANDBOX_DIR, name)) for name in modules(SANDBOX_DIR) + ["__init__"]}
        self.assertEqual({k: v for k, v in offenders.items() if v}, {})

    def test_the_scan_catches_each_way_in(self) -> None:
        caught = [
            "from eddy_judge import oracle",
            "from eddy_judge.verdicts import judge",
            "import eddy_judge.worker",
            "import eddy_judge",
            "from .. import eddy_judge",
            "from ..eddy_judge.prepare import prepare",
            "def f():\n    from eddy_judge.protocol import read_plain",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from eddy_judge.categories import Category",
            "import importlib\nm = importlib.import_module('eddy_judge.references')",
            "m = __import__('eddy_judge')",
            "import sys\nw = sys.modules['eddy_judge.worker']",
            "import numpy",
        ]
        self.assertEqual([src for src in caught if not reaches_outside(ast.parse(src))], [])
        # Its own modules, the standard library and prose that mentions the trusted side are not a way in.
        fine = [
            "from . import isolation as iso",
            "from .relay import Foreign",
            "import marshal, _thread, os.path",
            "from collections import Counter",
            "'''The trusted side (eddy_judge/verdicts.py) reads it.'''",
            "x = {'__name__': 'eddy_sandbox.digest_walk'}",
        ]
        self.assertEqual([src for src in fine if reaches_outside(ast.parse(src))], [])

    def test_the_trusted_package_holds_none_of_the_sandbox_modules(self) -> None:
        # A module of the same name on both sides would be run by one and read as the other.
        self.assertEqual(sorted(set(modules(TRUSTED_DIR)) & set(modules(SANDBOX_DIR))), [])


class ZygoteModulesTest(unittest.TestCase):
    def test_the_zygote_is_sent_exactly_the_sandbox_package(self) -> None:
        self.assertEqual(sorted(MODULES), modules(SANDBOX_DIR))
        self.assertEqual(len(set(MODULES)), len(MODULES))

    def test_every_module_the_zygote_imports_is_sent_before_it(self) -> None:
        for k, name in enumerate(MODULES):
            for dep in package_imports(name):
                self.assertIn(dep, MODULES[:k], "%s imports %s, which the zygote is not sent before it" % (name, dep))


if __name__ == "__main__":
    unittest.main()
