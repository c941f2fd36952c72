"""The worker's side of its long-lived keepers (candidate.py): which reports make it let a keeper
go, and that a keeper let go is never taken for alive again."""

import marshal
from typing import Any
import os
import socket
import unittest

from eddy_judge import candidate as c


def said(obj: Any) -> c.Run:
    run = c.Run()
    c._keeper_message(run, marshal.dumps(obj))
    return run


class KeeperReports(unittest.TestCase):
    def test_a_status_keeps_the_keeper_anything_else_lets_it_go(self) -> None:
        ok = said(("status", 0, 1.0, 2.0, 0.0, None, (), ()))
        self.assertEqual(ok.status, 0)
        self.assertFalse(c._keeper_failed(ok))
        for garbage in (("status", "x"), ("what",), 17):
            self.assertTrue(c._keeper_failed(said(garbage)), garbage)
        run = c.Run()
        c._keeper_message(run, b"\xff not marshal")
        self.assertTrue(c._keeper_failed(run))
        self.assertTrue(c._keeper_failed(said(("setup", "sandbox set-up failed: OSError"))))
        silent = c.Run()
        silent.stalled = True
        self.assertTrue(c._keeper_failed(silent))
        # The candidate's own set-up failure (on its result pipe) is no fault of the keeper's.
        own = c.Run()
        own.setup = "sandbox: MemoryError"
        self.assertFalse(c._keeper_failed(own))

    def test_a_keeper_let_go_is_killed_and_never_alive_again(self) -> None:
        ours, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:
            ours.close()
            theirs.recv(1)  # until killed
            os._exit(0)
        theirs.close()
        k = c.Keeper(ours, pid, os.pidfd_open(pid))
        c._keepers[0] = k
        try:
            self.assertTrue(k.alive())
            c._retire(k)
            self.assertFalse(k.alive())
            self.assertIsNone(c._keepers[0])
            _, status = os.waitpid(pid, 0)
            self.assertTrue(os.WIFSIGNALED(status))
        finally:
            c._keepers[0] = None


if __name__ == "__main__":
    unittest.main()
