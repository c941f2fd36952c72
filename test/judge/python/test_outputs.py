"""eddy_judge/outputs.py: code that is not eddy's own run in the candidates' sandbox for its outputs
(issue #43: what an importer runs of a benchmark file), read back as plain data or a failure."""

import os
import tempfile
import unittest

from eddy_judge import candidate
from eddy_judge.outputs import Outputs, run_outputs

MB = 1024 * 1024


def run(code: str, calls: list, cpu_ms: float = 5000.0, **kw: object) -> Outputs:
    return run_outputs(code, "f", 1, calls, cpu_ms, 256, 32 * MB, 200_000, **kw)  # type: ignore[arg-type]


class RunOutputs(unittest.TestCase):
    @classmethod
    def tearDownClass(cls) -> None:
        candidate.close_zygote()

    def test_plain_values_come_back_in_order(self) -> None:
        out = run("def f(x):\n    return (x, [x] * 2, {x: {x}})\n", [(1,), ("a",)])
        self.assertEqual(out.results, [("r", (1, [1, 1], {1: {1}})), ("r", ("a", ["a", "a"], {"a": {"a"}}))])
        self.assertIsNone(out.stopped)
        self.assertTrue(out.loaded)
        self.assertEqual(len(out.call_ms or []), 2)

    def test_the_first_call_that_raises_or_is_not_plain_ends_the_run(self) -> None:
        out = run("def f(x):\n    return 1 // x\n", [(1,), (0,), (2,)])
        self.assertEqual(out.results[0], ("r", 1))
        self.assertEqual(out.results[1][:2], ("e", "runtime"))
        self.assertIn("ZeroDivisionError", out.results[1][2])
        self.assertEqual(len(out.results), 2)
        # An object whose unpickling would run code: only its repr crosses, as a stand-in.
        out = run("class P:\n    def __reduce__(self):\n        return (print, ('x',))\n\ndef f(x):\n    return P()\n", [(1,)])
        self.assertEqual(out.results[0][0], "o")

    def test_a_load_failure_a_cpu_limit_and_a_sleep_are_said(self) -> None:
        out = run("raise ValueError('no')\ndef f(x):\n    return x\n", [(1,)])
        self.assertEqual(out.load, ("runtime", "ValueError: no"))
        out = run("def f(x):\n    while x:\n        pass\n    return x\n", [(0,), (1,)], cpu_ms=500.0)
        self.assertEqual((out.results, out.limit), ([("r", 0)], "cpu"))
        self.assertIn("CPU time limit", out.stopped or "")
        out = run("import time\ndef f(x):\n    time.sleep(3600)\n", [(1,)], cpu_ms=500.0)
        self.assertEqual(out.limit, "blocked")

    def test_nothing_is_written_outside_the_sandbox(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            canary = os.path.join(d, "canary")
            out = run("def f(x):\n    open(%r, 'w').write('x')\n    return x\n" % canary, [(1,)])
            self.assertEqual(out.results[0][:2], ("e", "runtime"))
            self.assertFalse(os.path.exists(canary))


if __name__ == "__main__":
    unittest.main()
