"""The seccomp filters (the candidates' allow-list and the no-namespace fallback's deny-list),
each tried in a throw-away child."""

import errno
import os
import signal
import socket
import threading
import unittest

from eddy_sandbox import isolation as iso


def _read_all(r: int) -> bytes:
    """Everything a child writes to the pipe until it closes its end."""
    data = b""
    while chunk := os.read(r, 4096):
        data += chunk
    return data


def under_filter(program: bytes, probes: dict[str, object]) -> dict[str, int]:
    """errno (0 = allowed) of each probe, run under a seccomp program in a forked child."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        out: dict[str, int] = {}
        iso.apply_seccomp(program)
        for name, fn in probes.items():
            try:
                fn()  # type: ignore[operator]
                out[name] = 0
            except OSError as e:
                out[name] = e.errno or -1
        os.write(w, repr(out).encode())
        os._exit(0)
    os.close(w)
    data = _read_all(r)
    os.waitpid(pid, 0)
    return eval(data.decode())  # our own repr of a dict of ints


def in_child(protect: list[int]) -> dict[str, int]:
    """The no-namespace fallback's deny-list."""
    return under_filter(
        iso.fallback_filter(protect),
        {
            "kill_all": lambda: os.kill(-1, 0),  # signal 0: only asks whether it would be allowed
            "kill_protected": lambda: os.kill(protect[0], 0),
            "kill_self": lambda: os.kill(os.getpid(), 0),
            "socket": lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM),
            "socketpair": lambda: socket.socketpair(),
            "tkill": lambda: signal.pthread_kill(threading.get_ident(), 0),
        },
    )


@unittest.skipUnless(iso.seccomp_supported(), "no seccomp filter for this architecture")
class Seccomp(unittest.TestCase):
    def test_refuses_sockets_kill_all_and_protected_pids_only(self) -> None:
        got = in_child([os.getpid()])
        self.assertEqual(got["kill_all"], errno.EPERM)
        self.assertEqual(got["kill_protected"], errno.EPERM)
        self.assertEqual(got["kill_self"], 0)
        self.assertEqual(got["socket"], errno.EACCES)
        self.assertEqual(got["socketpair"], 0)
        # Signals by thread id are refused outright: a tid of eddy's could not be told apart.
        self.assertEqual(got["tkill"], errno.EPERM)


def _fork_and_wait() -> None:
    child = os.fork()
    if child == 0:
        os._exit(7)
    if os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) != 7:
        raise OSError(errno.EIO, "child did not run")


def _thread() -> None:
    box: list[int] = []
    th = threading.Thread(target=lambda: box.append(1))
    th.start()
    th.join()
    if box != [1]:
        raise OSError(errno.EIO, "thread did not run")


def under_allow_list() -> dict[str, int]:
    """The candidates' allow-list."""
    return under_filter(
        iso.candidate_filter(),
        {
            "fork": _fork_and_wait,
            "thread": _thread,
            "socketpair": lambda: socket.socketpair(),
            "socket": lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM),
            "unshare": lambda: iso.unshare(iso.CLONE_NEWUSER),
            "mount": lambda: iso.mount("tmpfs", "/tmp", "tmpfs", 0, None),
            "memfd": lambda: os.memfd_create("x"),
            "sigaction": lambda: signal.signal(signal.SIGUSR1, signal.SIG_IGN),
            "files": lambda: os.close(os.open("/dev/null", os.O_RDONLY)),
        },
    )


@unittest.skipUnless(iso.seccomp_supported(), "no seccomp filter for this architecture")
class AllowList(unittest.TestCase):
    def test_computation_files_threads_and_fork_but_no_namespaces_mounts_sockets_or_handlers(self) -> None:
        got = under_allow_list()
        for ok in ("fork", "thread", "socketpair", "files"):
            self.assertEqual(got[ok], 0, ok)
        for refused in ("socket", "unshare", "mount", "memfd"):
            self.assertEqual(got[refused], errno.EPERM, refused)
        # signal.signal's failure comes back as an OSError from sigaction.
        self.assertNotEqual(got["sigaction"], 0)



def _spawn() -> None:
    import subprocess

    subprocess.run(["true"], check=True)


def under_no_spawn(fd: int) -> dict[str, int]:
    """The filter stacked on a runtime's (or a limited Python answer's) own: fd is kept open."""
    return under_filter(
        iso.no_spawn_filter(fd),
        {
            "fork": _fork_and_wait,
            "spawn": _spawn,
            "thread": _thread,
            "dup": lambda: os.close(os.dup(fd)),
            "dup_other": lambda: os.close(os.dup(0)),
            "close": lambda: os.close(fd),
            "replace": lambda: os.dup2(0, fd),
            "replace_other": lambda: os.dup2(0, os.dup(0)),
            "close_range": lambda: iso.libc_call("close_range", fd, fd + 5, 0),
            "close_range_above": lambda: iso.libc_call("close_range", fd + 100, fd + 200, 0),
            "write": lambda: os.write(fd, b""),
        },
    )


@unittest.skipUnless(iso.seccomp_supported(), "no seccomp filter for this architecture")
class NoSpawn(unittest.TestCase):
    def test_no_process_and_the_result_descriptor_neither_closed_nor_replaced(self) -> None:
        r, w = os.pipe()
        try:
            got = under_no_spawn(w)
        finally:
            os.close(r)
            os.close(w)
        for ok in ("thread", "dup", "dup_other", "replace_other", "close_range_above", "write"):
            self.assertEqual(got[ok], 0, ok)
        for refused in ("fork", "spawn", "close", "replace", "close_range"):
            self.assertEqual(got[refused], errno.EPERM, refused)


def _child_says(fork: object, body: object) -> bytes:
    r, w = os.pipe()
    pid = fork()  # type: ignore[operator]
    if pid == 0:
        try:
            os.write(w, body())  # type: ignore[operator]
        finally:
            os._exit(0)
    os.close(w)
    data = _read_all(r)
    os.close(r)
    os.waitpid(pid, 0)
    return data


class Fork(unittest.TestCase):
    def test_without_the_at_fork_handlers_when_single_threaded_with_them_otherwise(self) -> None:
        import random

        # random's handler reseeds the module's generator in the child: without it, the child
        # draws what the parent draws next.
        state = random.getstate()
        drawn = _child_says(iso.fork, lambda: b"%d" % random.getrandbits(60))
        random.setstate(state)
        self.assertEqual(drawn, b"%d" % random.getrandbits(60))
        # Another thread running: os.fork(), whose handlers repair what that thread held.
        stop = threading.Event()
        t = threading.Thread(target=stop.wait)
        t.start()
        try:
            state = random.getstate()
            drawn = _child_says(iso.fork, lambda: b"%d" % random.getrandbits(60))
            random.setstate(state)
            self.assertNotEqual(drawn, b"%d" % random.getrandbits(60))
        finally:
            stop.set()
            t.join()

    def test_a_filter_prepared_once_is_the_filter_installed(self) -> None:
        program = iso.candidate_filter()
        iso.prepare_seccomp(program)
        got = under_filter(program, {"socket": lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close(), "getpid": os.getpid})
        self.assertEqual(got["getpid"], 0)
        self.assertNotEqual(got["socket"], 0)


class KeeperClone(unittest.TestCase):
    """What a keeper does (sandbox.py keeper): a user namespace entered once, then one candidate
    after another cloned into new PID, mount and IPC namespaces (isolation.py clone_candidate)."""

    def test_each_candidate_is_pid_1_with_its_own_ipc_and_locked_mounts_and_glibc_knows_its_tid(self) -> None:
        iso.find_tid_cache()
        r, w = os.pipe()
        keeper = os.fork()
        if keeper == 0:
            os.close(r)
            try:
                iso.enter_keeper_namespace()
            except OSError as e:
                os.write(w, repr({"skip": e.errno}).encode())
                os._exit(0)
            for round in range(2):
                cr, cw = os.pipe()
                child = iso.clone_candidate()
                if child == 0:
                    os.close(cr)
                    out: dict[str, object] = {"pid": os.getpid(), "tid": iso.tid_cache_ok() if iso._TID_AT is not None else None}
                    seen: list[int] = []
                    t = threading.Thread(target=lambda: seen.append(threading.get_native_id()))
                    t.start()
                    t.join()
                    out["thread"] = seen
                    # The first leaves a SysV segment behind; the second must not find it.
                    try:
                        out["shm"] = iso.libc_call("shmget", 0x5EDD1, 4096 if round == 0 else 0, (0o1000 if round == 0 else 0) | 0o600) >= 0
                    except OSError as e:
                        out["shm"] = e.errno
                    # It holds CAP_SYS_ADMIN in its namespaces (a tmpfs of its own mounts), yet a
                    # mount inherited from the keeper's world cannot be lifted: it is locked.
                    try:
                        iso.mount("tmpfs", "/tmp", "tmpfs", iso.MS_NOSUID | iso.MS_NODEV, "size=4k")
                        out["mount"] = 0
                    except OSError as e:
                        out["mount"] = e.errno
                    try:
                        iso.libc_call("umount2", b"/proc", 2)
                        out["umount"] = 0
                    except OSError as e:
                        out["umount"] = e.errno
                    os.write(cw, repr(out).encode())
                    os._exit(0)
                os.close(cw)
                got = os.read(cr, 4096)
                os.close(cr)
                os.waitpid(child, 0)
                os.write(w, got + b"\n")
            os._exit(0)
        os.close(w)
        data = _read_all(r)
        os.close(r)
        os.waitpid(keeper, 0)
        rounds = [eval(line) for line in data.decode().splitlines()]  # our own repr of dicts
        if "skip" in rounds[0]:
            self.skipTest("no user namespace for this user here (errno %s)" % rounds[0]["skip"])
        self.assertEqual(len(rounds), 2)
        for got in rounds:
            self.assertEqual(got["pid"], 1)
            if got["tid"] is not None:
                self.assertTrue(got["tid"])
            self.assertEqual(len(got["thread"]), 1)
            self.assertNotEqual(got["thread"][0], 1)
            self.assertEqual(got["mount"], 0)
            self.assertEqual(got["umount"], errno.EINVAL)
        self.assertIs(rounds[0]["shm"], True)
        self.assertEqual(rounds[1]["shm"], errno.ENOENT)


if __name__ == "__main__":
    unittest.main()
