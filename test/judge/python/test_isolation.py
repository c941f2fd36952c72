"""The seccomp filter the no-namespace fallback relies on, tried in a throw-away child."""

import errno
import os
import socket
import unittest

from eddy_judge import isolation as iso


def in_child(protect: list[int]) -> dict[str, int]:
    """errno (0 = allowed) of each probe, run under the filter in a forked child."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        out: dict[str, int] = {}
        iso.apply_seccomp(protect, True)

        def probe(name: str, fn: object) -> None:
            try:
                fn()  # type: ignore[operator]
                out[name] = 0
            except OSError as e:
                out[name] = e.errno or -1

        probe("kill_all", lambda: os.kill(-1, 0))  # signal 0: only asks whether it would be allowed
        probe("kill_protected", lambda: os.kill(protect[0], 0))
        probe("kill_self", lambda: os.kill(os.getpid(), 0))
        probe("socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))
        probe("socketpair", lambda: socket.socketpair())
        os.write(w, repr(out).encode())
        os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 4096):
        data += chunk
    os.waitpid(pid, 0)
    return eval(data.decode())  # our own repr of a dict of ints


@unittest.skipUnless(iso.seccomp_supported(), "no seccomp filter for this architecture")
class Seccomp(unittest.TestCase):
    def test_refuses_sockets_kill_all_and_protected_pids_only(self) -> None:
        got = in_child([os.getpid()])
        self.assertEqual(got["kill_all"], errno.EPERM)
        self.assertEqual(got["kill_protected"], errno.EPERM)
        self.assertEqual(got["kill_self"], 0)
        self.assertEqual(got["socket"], errno.EACCES)
        self.assertEqual(got["socketpair"], 0)


if __name__ == "__main__":
    unittest.main()
