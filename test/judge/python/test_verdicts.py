"""How the worker words and classes a candidate process's end (wait statuses from real children)."""

import os
import signal
import unittest

from eddy_judge import verdicts


def status_of(action: str) -> int:
    pid = os.fork()
    if pid == 0:
        try:
            if action != "exit":
                sig = getattr(signal, action)
                if sig != signal.SIGKILL:
                    signal.signal(sig, signal.SIG_DFL)  # Python starts with SIGXFSZ ignored
                os.kill(os.getpid(), sig)
        finally:
            os._exit(3)
    return os.waitpid(pid, 0)[1]


class DescribeStatus(unittest.TestCase):
    def test_limits_are_resource_exhaustion(self) -> None:
        # SIGSEGV/SIGBUS: how CPython ends when recursion with the limit lifted runs out of stack
        # or address space at an allocation it does not check (varies from run to run).
        for sig in ("SIGSEGV", "SIGBUS", "SIGXCPU", "SIGXFSZ"):
            desc, kind = verdicts._describe_status(status_of(sig))
            self.assertEqual(desc, "killed by " + sig)
            self.assertEqual(kind, "resource", sig)

    def test_other_ends_are_runtime_errors(self) -> None:
        self.assertEqual(verdicts._describe_status(status_of("SIGKILL")), ("killed by SIGKILL", "runtime"))
        self.assertEqual(verdicts._describe_status(status_of("SIGABRT")), ("killed by SIGABRT", "runtime"))
        self.assertEqual(verdicts._describe_status(status_of("exit")), ("exited with status 3", "runtime"))
        self.assertEqual(verdicts._describe_status(None), ("ended", "runtime"))

    def test_the_verdict_names_the_limit(self) -> None:
        self.assertIn("stack or memory limit: 64 MB", verdicts._which_limit("killed by SIGSEGV; Fatal Python error", 64))
        self.assertIn("memory limit: 64 MB", verdicts._which_limit("MemoryError", 64))
        self.assertEqual(verdicts._which_limit("killed by SIGKILL", 64), "")


if __name__ == "__main__":
    unittest.main()
