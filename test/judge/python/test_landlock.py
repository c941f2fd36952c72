"""The no-sandbox mode's files (issue #43): Landlock's rules, each tried in a throw-away child,
and the clean-up of what a run leaves (a folder whose modes the candidate changed; what a uid of
its own left in shared scratch folders)."""

import errno
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
from typing import Callable

from eddy_sandbox import isolation as iso
from eddy_sandbox import landlock

NOBODY = 65534


def _read_all(r: int) -> bytes:
    data = b""
    while chunk := os.read(r, 4096):
        data += chunk
    return data


def restricted(folder: str, probes: dict[str, Callable[[], object]], uid: int | None = None) -> dict[str, int]:
    """errno (0 = allowed) of each probe, run in a forked child restricted to `folder`."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        out: dict[str, int] = {}
        try:
            if uid is not None:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
            iso.prctl(iso.PR_SET_NO_NEW_PRIVS, 1)
            landlock.restrict(folder)
            for name, fn in probes.items():
                try:
                    fn()
                    out[name] = 0
                except OSError as e:
                    out[name] = e.errno or -1
        except BaseException as e:  # noqa: BLE001 - reported to the parent
            out["setup:" + repr(e)] = -1
        os.write(w, repr(out).encode())
        os._exit(0)
    os.close(w)
    data = _read_all(r)
    os.waitpid(pid, 0)
    return eval(data.decode())  # our own repr of a dict of ints


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def _write(path: str, data: str = "x", mode: str = "w") -> None:
    with open(path, mode) as f:
        f.write(data)


class Rights(unittest.TestCase):
    def test_each_abi_handles_the_write_rights_it_knows(self) -> None:
        self.assertEqual(landlock.handled(0), 0)
        one = landlock.handled(1)
        self.assertEqual(one, landlock.WRITES_ABI1)
        for right in (landlock.EXECUTE, landlock.READ_FILE, landlock.READ_DIR, landlock.IOCTL_DEV):
            for abi in range(1, 8):
                self.assertFalse(landlock.handled(abi) & right, "reading stays as it was (ABI %d)" % abi)
        self.assertEqual(landlock.handled(2), one | landlock.REFER)
        self.assertEqual(landlock.handled(3), one | landlock.REFER | landlock.TRUNCATE)
        for abi in range(4, 8):
            self.assertEqual(landlock.handled(abi), landlock.handled(3))


@unittest.skipUnless(landlock.abi_version() > 0, "this kernel has no Landlock")
class Restrict(unittest.TestCase):
    def setUp(self) -> None:
        self.base = tempfile.mkdtemp(prefix="eddy-landlock-test-")
        os.chmod(self.base, 0o755)
        self.inside = os.path.join(self.base, "inside")
        self.outside = os.path.join(self.base, "outside")
        for d in (self.inside, self.outside):
            os.mkdir(d)
        self.victim = os.path.join(self.outside, "host-factor.json")
        _write(self.victim, '{"factor": 1.0}')
        _write(os.path.join(self.inside, "mine"), "mine")

    def tearDown(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)

    def test_writes_only_in_its_folder_and_reads_as_before(self) -> None:
        i, o, v = self.inside, self.outside, self.victim
        got = restricted(
            i,
            {
                "create inside": lambda: _write(os.path.join(i, "a")),
                "mkdir inside": lambda: os.mkdir(os.path.join(i, "d")),
                "rename inside": lambda: os.rename(os.path.join(i, "a"), os.path.join(i, "d", "b")),
                "symlink inside": lambda: os.symlink(v, os.path.join(i, "link")),
                "fifo inside": lambda: os.mkfifo(os.path.join(i, "fifo")),
                "truncate inside": lambda: os.truncate(os.path.join(i, "mine"), 0),
                "unlink inside": lambda: os.unlink(os.path.join(i, "d", "b")),
                "rmdir inside": lambda: os.rmdir(os.path.join(i, "d")),
                "tempfile in it": lambda: tempfile.mkstemp(dir=i),
                "/dev/null": lambda: _write(os.devnull),
                "read outside": lambda: _read(v),
                "list outside": lambda: os.listdir(o),
                "write outside": lambda: _write(v, '{"factor": 8.0}'),
                "append outside": lambda: _write(v, "!", "a"),
                "create outside": lambda: _write(os.path.join(o, "new")),
                "replace outside": lambda: os.replace(os.path.join(i, "mine"), v),
                "unlink outside": lambda: os.unlink(v),
                "mkdir outside": lambda: os.mkdir(os.path.join(o, "d")),
                "write through a link": lambda: _write(os.path.join(i, "link")),
                "hard link in": lambda: os.link(v, os.path.join(i, "hard")),
                "fifo outside": lambda: os.mkfifo(os.path.join(o, "fifo")),
                "/tmp": lambda: tempfile.mkstemp(dir="/tmp"),
                "/dev/shm": lambda: _write("/dev/shm/eddy-landlock-test-%d" % os.getpid()),
            },
        )
        allowed = {k for k, e in got.items() if e == 0}
        self.assertEqual(
            allowed,
            {
                "create inside", "mkdir inside", "rename inside", "symlink inside", "fifo inside", "truncate inside",
                "unlink inside", "rmdir inside", "tempfile in it", "/dev/null", "read outside", "list outside",
            },
            got,
        )
        for name, e in got.items():
            if name not in allowed:
                self.assertIn(e, (errno.EACCES, errno.EXDEV, errno.EPERM), name)
        with open(v) as f:
            self.assertEqual(f.read(), '{"factor": 1.0}')
        self.assertEqual(sorted(os.listdir(o)), ["host-factor.json"])

    @unittest.skipUnless(landlock.abi_version() >= 3, "truncate(2) is restricted from ABI 3")
    def test_truncate_outside_is_refused(self) -> None:
        got = restricted(self.inside, {"truncate": lambda: os.truncate(self.victim, 0)})
        self.assertEqual(got, {"truncate": errno.EACCES})
        self.assertGreater(os.path.getsize(self.victim), 0)

    def test_what_it_starts_is_held_too(self) -> None:
        script = "import sys\ntry:\n    open(%r, 'w').write('8')\nexcept OSError as e:\n    sys.exit(e.errno)\n" % self.victim

        def child() -> None:
            code = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True).returncode
            if code:
                raise OSError(code, "the child's write")

        got = restricted(self.inside, {"child": child})
        self.assertEqual(got, {"child": errno.EACCES})
        with open(self.victim) as f:
            self.assertEqual(f.read(), '{"factor": 1.0}')

    def test_prepare_reports_the_abi_and_a_trial_failure(self) -> None:
        before = landlock.ABI
        try:
            note = landlock.prepare(self.base)
            self.assertEqual(landlock.ABI, landlock.abi_version())
            self.assertRegex(note, r"^Landlock \(ABI \d+\)")
            self.assertEqual(sorted(os.listdir(self.base)), ["inside", "outside"])  # the trial left nothing
            real = landlock._call

            def refused(nr: int, *args: object) -> int:
                if nr == landlock.SYS_RESTRICT_SELF:
                    raise OSError(errno.EPERM, "refused")
                return real(nr, *args)  # type: ignore[arg-type]

            landlock._call = refused  # type: ignore[assignment]
            try:
                note = landlock.prepare(self.base)
            finally:
                landlock._call = real  # type: ignore[assignment]
            self.assertEqual(landlock.ABI, 0)
            self.assertRegex(note, r"^NO Landlock: .*trial failed")
        finally:
            landlock.ABI = before


class RemoveTree(unittest.TestCase):
    def test_a_folder_whose_modes_were_changed_is_removed_and_links_are_not_followed(self) -> None:
        base = tempfile.mkdtemp(prefix="eddy-landlock-rm-")
        os.chmod(base, 0o755)
        keep = os.path.join(base, "keep")
        os.mkdir(keep)
        _write(os.path.join(keep, "precious"))
        # As an ordinary user (nobody, where the test runs as root: root ignores modes), in a
        # folder of that user's (as the keeper's scratch folder is).
        uid = NOBODY if os.geteuid() == 0 else None
        owned = os.path.join(base, "owned")
        work = os.path.join(owned, "work")
        for d in (owned, work):
            os.mkdir(d, 0o755)
            if uid is not None:
                os.chown(d, uid, uid)
        pid = os.fork()
        if pid == 0:
            try:
                if uid is not None:
                    os.setgid(uid)
                    os.setuid(uid)
                for d in ("a", "a/b", "c"):
                    os.mkdir(os.path.join(work, d))
                _write(os.path.join(work, "a/b/f"))
                _write(os.path.join(work, "c/g"))
                os.symlink(keep, os.path.join(work, "a/to-keep"))
                os.chmod(os.path.join(work, "a/b"), 0)
                os.chmod(os.path.join(work, "a"), 0o500)
                os.chmod(os.path.join(work, "c"), 0o100)
                os._exit(0)
            except BaseException:
                os._exit(1)
        self.assertEqual(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), 0)
        try:
            pid = os.fork()
            if pid == 0:
                if uid is not None:
                    os.setgid(uid)
                    os.setuid(uid)
                landlock.remove_tree(work)
                os._exit(0 if not os.path.lexists(work) else 1)
            self.assertEqual(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), 0, "the folder is gone")
            self.assertTrue(os.path.exists(os.path.join(keep, "precious")))
        finally:
            landlock.remove_tree(base)


@unittest.skipUnless(os.geteuid() == 0, "needs root (files of another uid)")
class Sweep(unittest.TestCase):
    def test_only_the_candidates_uid_is_removed_from_shared_folders(self) -> None:
        shared = tempfile.mkdtemp(prefix="eddy-landlock-sweep-")
        os.chmod(shared, 0o1777)
        uid = 2_000_000_000 + os.getpid()
        try:
            paths = {
                "theirs": os.path.join(shared, "leak"),
                "their dir": os.path.join(shared, "dir"),
                "others": os.path.join(shared, "someone-else"),
                "open dir": os.path.join(shared, "x11"),
                "theirs in open dir": os.path.join(shared, "x11", "leak"),
                "others in open dir": os.path.join(shared, "x11", "socket"),
            }
            os.mkdir(paths["open dir"])
            os.chmod(paths["open dir"], 0o1777)
            os.mkdir(paths["their dir"])
            _write(os.path.join(paths["their dir"], "inner"))
            for name in ("theirs", "others", "theirs in open dir", "others in open dir"):
                _write(paths[name])
            for name in ("theirs", "their dir", "theirs in open dir"):
                os.lchown(paths[name], uid, uid)
            os.chmod(paths["their dir"], 0)
            self.assertEqual(landlock.sweep(uid, (shared,)), 3)
            left = {name for name, p in paths.items() if os.path.lexists(p)}
            self.assertEqual(left, {"others", "open dir", "others in open dir"})
            self.assertEqual(os.stat(paths["others"]).st_mode & stat.S_IFMT(0o170000), stat.S_IFREG)
        finally:
            shutil.rmtree(shared, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
