"""The judge reads its answer languages from eddy's language registry (src/languages), as the
TypeScript side does (test/languages/registry.test.ts): nothing in the judge's packages names a
language, and a new language is one folder and one line."""

import ast
import json
import os
import shutil
import tempfile
import unittest

import eddy_judge
import eddy_sandbox
from eddy_judge import languages

PACKAGES = [os.path.dirname(os.path.abspath(str(p.__file__))) for p in (eddy_judge, eddy_sandbox)]
with open(os.path.join(languages.REGISTRY, "languages.json"), encoding="utf-8") as _f:
    LISTED = json.load(_f)
NAMES = frozenset(LISTED["languages"])


def names_language(tree: ast.AST) -> list[str]:
    """Each string in `tree` that is a language's name (compared, defaulted, passed, listed, a
    subscript), except a dict display's key: the worker's hello names its interpreter's version
    `python`, which is no answer language."""
    keys = {id(k) for node in ast.walk(tree) if isinstance(node, ast.Dict) for k in node.keys if k is not None}
    return [repr(node.value) for node in ast.walk(tree) if isinstance(node, ast.Constant) and node.value in NAMES and id(node) not in keys]


def sources() -> dict[str, ast.AST]:
    out: dict[str, ast.AST] = {}
    for pkg in PACKAGES:
        for folder, _, files in os.walk(pkg):
            for f in files:
                if f.endswith(".py"):
                    with open(os.path.join(folder, f), encoding="utf-8") as fh:
                        out[os.path.relpath(os.path.join(folder, f), os.path.dirname(pkg))] = ast.parse(fh.read())
    return out


class RegistryTest(unittest.TestCase):
    def test_the_judge_reads_the_registry_s_list_and_default(self) -> None:
        self.assertEqual(list(languages.LANGUAGES), LISTED["languages"])
        self.assertEqual(languages.DEFAULT, LISTED["default"])
        self.assertEqual([n for n, lang in languages.LANGUAGES.items() if lang.runtime is None], [languages.NATIVE])

    def test_no_module_of_the_judge_names_a_language(self) -> None:
        found = {f: names_language(tree) for f, tree in sources().items()}
        self.assertGreater(len(found), 30)
        self.assertEqual({f: v for f, v in found.items() if v}, {})

    def test_the_scan_catches_each_form_for_every_language(self) -> None:
        for name in NAMES:
            caught = [
                "lang = req.get('language') or %r" % name,
                "if lang != %r:\n    pass" % name,
                "if lang in (%r, 'x'):\n    pass" % name,
                "ref = dict(req, language=%r)" % name,
                "rt = RUNTIMES[%r]" % name,
                "RUNTIMES = {'x': Runtime(%r, 'bin')}" % name,
                "def f(lang=%r):\n    pass" % name,
            ]
            self.assertEqual([src for src in caught if not names_language(ast.parse(src))], [], name)
        fine = ["reply = {%r: sys.version}" % sorted(NAMES)[0], "x = 'a language: %s'" % sorted(NAMES)[0], "# %s" % sorted(NAMES)[0]]
        self.assertEqual([src for src in fine if names_language(ast.parse(src))], [])


LUA = {
    "display": "Lua",
    "aliases": [],
    "fences": ["lua"],
    "parameter": "{name}",
    "declare": "function {function}({parameters})",
    "types": "",
    "excluded": {},
    "runtime": {"binary": "lua", "package": "lua5.4", "version": ["-v"], "ext": "lua", "flags": [], "vmMb": 64, "binds": [], "resourceWords": ["not enough memory"]},
    "reference": {"bindings": "json", "answer": "{solution}\n\nfunction {function}({parameters})\n  return solution({arguments})\nend\n"},
}


class NewLanguageTest(unittest.TestCase):
    def setUp(self) -> None:
        self.root = tempfile.mkdtemp(prefix="eddy-registry-")
        self.addCleanup(shutil.rmtree, self.root)
        shutil.copytree(languages.REGISTRY, os.path.join(self.root, "languages"), ignore=shutil.ignore_patterns("*.ts"))
        self.dir = os.path.join(self.root, "languages")

    def add(self, entry: dict, harness: bool = True, line: bool = True) -> None:
        os.mkdir(os.path.join(self.dir, "lua"))
        with open(os.path.join(self.dir, "lua", "language.json"), "w", encoding="utf-8") as f:
            json.dump(entry, f)
        if harness:
            with open(os.path.join(self.dir, "lua", "harness.lua"), "w", encoding="utf-8") as f:
                f.write("-- the harness\n")
        if line:
            listed = dict(LISTED, languages=LISTED["languages"] + ["lua"])
            with open(os.path.join(self.dir, "languages.json"), "w", encoding="utf-8") as f:
                json.dump(listed, f)

    def test_one_folder_and_one_line(self) -> None:
        self.add(LUA)
        default, found = languages.load(self.dir)
        self.assertEqual(default, LISTED["default"])
        lua = found["lua"]
        self.assertEqual(list(found)[-1], "lua")
        self.assertEqual((lua.runtime.binary, lua.runtime.vm_mb, lua.runtime.resource_words) if lua.runtime else None, ("lua", 64, ("not enough memory",)))
        self.assertEqual(languages.reference_answer(lua, "S", "f", 1, {"k": 1}), 'S\n\nfunction f(arg0)\n  return solution(arg0, {"k": 1})\nend\n')
        foreign = languages.foreign(lua, "/usr/bin/lua")
        self.assertEqual((foreign.name, foreign.binary, foreign.harness, foreign.ext), ("lua", "/usr/bin/lua", "-- the harness\n", "lua"))

    def test_a_folder_without_its_line_is_not_a_language(self) -> None:
        self.add(LUA, line=False)
        self.assertNotIn("lua", languages.load(self.dir)[1])

    def test_refused_without_its_harness_or_its_reference(self) -> None:
        self.add(LUA, harness=False)
        with self.assertRaisesRegex(languages.RegistryError, "has no harness.lua"):
            languages.load(self.dir)
        shutil.rmtree(os.path.join(self.dir, "lua"))
        self.add(dict(LUA, reference=None), line=False)
        with self.assertRaisesRegex(languages.RegistryError, "needs both a runtime and a reference"):
            languages.load(self.dir)


if __name__ == "__main__":
    unittest.main()
