"""The package's module graph: what the zygote receives over its socket is complete, and the
worker's modules never reach the candidate side."""

import ast
import os
import unittest

import eddy_judge
from eddy_judge.zygote import MODULES

PKG = os.path.dirname(os.path.abspath(eddy_judge.__file__))


def package_imports(name: str) -> list[str]:
    """The package modules `name` imports (`from . import x`, `from .x import y`)."""
    with open(os.path.join(PKG, name + ".py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    out: list[str] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            return  # types only: never run
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out.extend([node.module] if node.module else [a.name for a in node.names])
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


class ZygoteModulesTest(unittest.TestCase):
    def test_every_module_the_zygote_imports_is_sent_before_it(self) -> None:
        for k, name in enumerate(MODULES):
            for dep in package_imports(name):
                self.assertIn(dep, MODULES[:k], "%s imports %s, which the zygote is not sent before it" % (name, dep))

    def test_the_worker_side_modules_are_not_sent(self) -> None:
        for name in ("worker", "prepare", "candidate", "verdicts", "foreign", "references", "oracle", "world", "budget", "compare", "wire"):
            self.assertNotIn(name, MODULES)


if __name__ == "__main__":
    unittest.main()
