"""Issue #30: the host factor is measured once per machine on a quiet moment, stored and reused;
a busy machine's measurement is used for that pool only, never stored."""

import os
import tempfile
import unittest
from unittest import mock

from eddy_judge import budget


class HostFactor(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.env = mock.patch.dict(os.environ, {"XDG_CACHE_HOME": self.dir.name})
        self.env.start()
        os.environ.pop("EDDY_JUDGE_CPU_FACTOR", None)

    def tearDown(self) -> None:
        self.env.stop()
        self.dir.cleanup()

    def test_busy_measurements_are_not_stored_quiet_ones_are_and_are_reused(self) -> None:
        path = budget.cache_file()
        self.assertTrue(path.startswith(self.dir.name))
        # Busy: every run got a fifth of a CPU.
        with mock.patch.object(budget, "_workload", return_value=(10.0, 50.0)):
            self.assertEqual(budget.host_factor_with_source(), (2.0, "measured-busy"))
        self.assertFalse(os.path.exists(path))
        # Quiet: stored.
        with mock.patch.object(budget, "_workload", return_value=(7.0, 7.2)):
            factor, source = budget.host_factor_with_source()
        self.assertEqual(source, "measured")
        self.assertTrue(os.path.exists(path))
        # Reused, whatever a measurement now would say (it is not made).
        with mock.patch.object(budget, "_workload", side_effect=AssertionError("measured again")):
            self.assertEqual(budget.host_factor_with_source(), (factor, "cache"))

    def test_the_environment_fixes_it_and_a_broken_cache_is_measured_again(self) -> None:
        with mock.patch.dict(os.environ, {"EDDY_JUDGE_CPU_FACTOR": "1.5"}):
            self.assertEqual(budget.host_factor_with_source(), (1.5, "env"))
        os.makedirs(os.path.dirname(budget.cache_file()), exist_ok=True)
        with open(budget.cache_file(), "w") as f:
            f.write("{not json")
        with mock.patch.object(budget, "_workload", return_value=(5.0, 5.0)):
            self.assertEqual(budget.host_factor_with_source(), (1.0, "measured"))


if __name__ == "__main__":
    unittest.main()
