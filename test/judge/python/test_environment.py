"""The judge's Python environment (eddy_judge/environment.py): the packages its site folders hold,
read from their records' headers; the folders themselves; the library links the world binds; and
the world's command line with them."""

import os
import shutil
import sys
import tempfile
import unittest

from eddy_judge import environment, world


class Packages(unittest.TestCase):
    def setUp(self) -> None:
        self.dirs = [tempfile.mkdtemp(prefix="eddy-env-"), tempfile.mkdtemp(prefix="eddy-env-")]
        self.addCleanup(lambda: [shutil.rmtree(d, ignore_errors=True) for d in self.dirs])

    def record(self, folder: str, entry: str, text: str, name: str = "METADATA") -> None:
        path = os.path.join(folder, entry)
        if entry.endswith(".dist-info") or (entry.endswith(".egg-info") and name):
            os.makedirs(path, exist_ok=True)
            path = os.path.join(path, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def test_dist_info_and_egg_info_headers(self) -> None:
        a, b = self.dirs
        self.record(a, "numpy-1.24.2.dist-info", "Metadata-Version: 2.1\nName: numpy\nVersion: 1.24.2\n\nVersion: 9 (a description, not a header)\n")
        self.record(a, "PyYAML-6.0.egg-info", "Metadata-Version: 1.1\nName: PyYAML\nVersion: 6.0\n", name="PKG-INFO")
        self.record(a, "six-1.16.0.egg-info", "Name: six\nVersion: 1.16.0\n", name="")  # a file, not a folder
        self.record(a, "broken.dist-info", "Name: broken\n")  # no version: left out
        os.makedirs(os.path.join(a, "numpy"))  # the package itself is not a record
        self.assertEqual(environment.packages([a]), {"numpy": "1.24.2", "PyYAML": "6.0", "six": "1.16.0"})

    def test_first_in_path_order_wins_names_normalised(self) -> None:
        a, b = self.dirs
        self.record(a, "numpy-1.24.2.dist-info", "Name: numpy\nVersion: 1.24.2\n")
        self.record(b, "numpy-2.4.6.dist-info", "Name: NumPy\nVersion: 2.4.6\n")
        self.record(b, "zope_interface-6.0.dist-info", "Name: zope.interface\nVersion: 6.0\n")
        self.assertEqual(environment.packages([a, b]), {"numpy": "1.24.2", "zope.interface": "6.0"})
        self.assertEqual(environment.packages([b, a]), {"NumPy": "2.4.6", "zope.interface": "6.0"})
        self.assertEqual(environment.packages([os.path.join(a, "missing")]), {})

    def test_describe_is_this_interpreter(self) -> None:
        d = environment.describe()
        self.assertEqual(d["version"], "%d.%d.%d" % sys.version_info[:3])
        self.assertEqual(d["implementation"], sys.implementation.name)
        self.assertEqual(d["executable"], os.path.realpath(sys.executable))
        self.assertEqual(d["sitePackages"], environment.site_dirs())
        self.assertEqual(d["packages"], environment.packages(d["sitePackages"]))
        for p in d["sitePackages"]:
            self.assertTrue(os.path.isabs(p) and os.path.isdir(p), p)


class Alternatives(unittest.TestCase):
    def test_only_shared_libraries_whose_target_is_bound(self) -> None:
        root = tempfile.mkdtemp(prefix="eddy-alt-")
        self.addCleanup(shutil.rmtree, root, True)
        lib, other, alt = (os.path.join(root, n) for n in ("lib", "jvm", "alternatives"))
        for d in (lib, other, alt):
            os.makedirs(d)
        for f in (os.path.join(lib, "libblas.so.3"), os.path.join(other, "java")):
            open(f, "w").close()
        os.symlink(os.path.join(lib, "libblas.so.3"), os.path.join(alt, "libblas.so.3-x86_64-linux-gnu"))
        os.symlink(os.path.join(other, "java"), os.path.join(alt, "java"))
        os.symlink(os.path.join(other, "java"), os.path.join(alt, "libjava.so"))  # a library name, outside the bound folders
        os.symlink("relative.so", os.path.join(alt, "librel.so"))
        got = environment.library_alternatives([lib], alt)
        self.assertEqual(got, [(os.path.join(alt, "libblas.so.3-x86_64-linux-gnu"), os.path.join(lib, "libblas.so.3"))])
        self.assertEqual(environment.library_alternatives([lib], os.path.join(root, "none")), [])


class World(unittest.TestCase):
    def test_site_folders_are_bound_read_only_and_library_links_made(self) -> None:
        args = world.world_args("/usr/bin/bwrap", 3, False)
        pairs = list(zip(args, args[1:], args[2:]))
        binds = {(a, b) for flag, a, b in pairs if flag == "--ro-bind"}
        bound = {b for _, b in binds} | {"/"}
        for d in environment.site_dirs():
            # Bound itself, or inside a folder bound whole (Debian's /usr/lib holds its dist-packages).
            self.assertTrue(any(d == b or d.startswith(b.rstrip("/") + "/") for b in bound), d)
        links = [(a, b) for flag, a, b in pairs if flag == "--symlink" and b.startswith(environment.ALTERNATIVES + "/")]
        self.assertEqual(links, [(target, link) for link, target in environment.library_alternatives([b for _, b in binds if b != "/"])])
        self.assertNotIn("--bind", args)  # nothing of them writable


if __name__ == "__main__":
    unittest.main()
