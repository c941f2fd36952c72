"""How the worker reads a running candidate's frames (candidate._collect): batched while the calls
run, whatever the pace or the size of what the candidate writes, and read the same."""

import marshal
import os
import struct
import time
import unittest
from typing import Any
from unittest import mock

from eddy_judge import candidate
from eddy_judge.budget import make_budget
from eddy_judge.candidate import Run, Sandbox, read_results
from eddy_sandbox.sandbox import MAC_BYTES, mac

KEY = b"k" * 32


def frames(values: list[Any]) -> list[bytes]:
    """The frames a candidate's harness writes for calls answering `values` (sandbox.py's layout)."""
    msgs: list[Any] = [("pre", None, ""), ("ready",), ("loaded",)]
    msgs += [("r", i, v, None) for i, v in enumerate(values)]
    msgs += [("times", [0.1] * len(values)), ("done",)]
    out = []
    for seq, m in enumerate(msgs):
        payload = marshal.dumps(m)
        out.append(struct.pack(">I", len(payload) + MAC_BYTES) + mac(KEY, seq, payload) + payload)
    return out


def collect(values: list[Any], gap_s: float = 0.0, flood: int = 0) -> tuple[Run, int, float]:
    """Runs _collect against a child process writing the frames for `values`, one every `gap_s`
    seconds (0: all at once), and `flood` bytes on its stdout meanwhile. Returns the run, how many
    reads of the result pipe the worker made after the calls began, and _collect's wall time (s)."""
    job_r, job_w = os.pipe()
    res_r, res_w = os.pipe()
    out_r, out_w = os.pipe()
    st_r, st_w = os.pipe()
    ctl_r, ctl_w = os.pipe()
    todo = frames(values)
    pid = os.fork()
    if pid == 0:
        try:
            for fd in (job_w, res_r, out_r, st_r, ctl_w):
                os.close(fd)
            os.read(job_r, 1)  # the job has come: the calls start
            if flood:
                chunk = b"x" * 4096
                for _ in range(flood // len(chunk)):
                    os.write(out_w, chunk)
            start = time.monotonic()
            for k, f in enumerate(todo):
                if gap_s:
                    delay = start + k * gap_s - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                view = memoryview(f)
                while view:
                    view = view[os.write(res_w, view) :]
        finally:
            os._exit(0)
    for fd in (job_r, res_w, out_w, ctl_r):
        os.close(fd)
    box = Sandbox(job_w, res_r, out_r, st_r, ctl_w)
    os.set_blocking(job_w, False)
    run = Run()
    reads = 0
    real_read = os.read

    def counted(fd: int, n: int) -> bytes:
        nonlocal reads
        if fd == res_r and run.loaded:
            reads += 1
        return real_read(fd, n)

    t0 = time.monotonic()
    try:
        with mock.patch.object(candidate.os, "read", counted):
            candidate._collect(run, b"j", box, KEY, make_budget(60_000.0, 1.0, 0.0))
    finally:
        elapsed = time.monotonic() - t0
        box.close()
        os.close(st_w)
        os.waitpid(pid, 0)
    return run, reads, elapsed


class Collect(unittest.TestCase):
    def assert_read_whole(self, run: Run, values: list[Any]) -> None:
        self.assertIsNone(run.broken)
        self.assertIsNone(run.tamper)
        self.assertTrue(run.done)
        read_results(run)
        self.assertIsNone(run.broken)
        self.assertEqual([run.results[i] for i in range(len(values))], [("r", v, None) for v in values])

    def test_frames_written_one_at_a_time_are_read_in_batches(self) -> None:
        # One frame every 0.1 ms for 200 calls: waking for each (what the worker did) reads the
        # pipe about 200 times; after a read that empties it the worker leaves it alone for
        # READ_QUIET_S, so it reads at most once per quiet period.
        values = [[i, i + 1] for i in range(200)]
        run, reads, elapsed = collect(values, gap_s=0.0001)
        self.assert_read_whole(run, values)
        self.assertLessEqual(reads, 2 + elapsed / candidate.READ_QUIET_S, (reads, elapsed))
        self.assertLess(reads, len(values) // 2, (reads, elapsed))

    def test_a_candidate_writing_faster_than_the_worker_reads(self) -> None:
        values = list(range(5000))
        run, _, _ = collect(values)
        self.assert_read_whole(run, values)

    def test_a_result_larger_than_the_pipe(self) -> None:
        # 5 bytes an int: each result is 200 KB, the four of them beyond even the enlarged pipe (256 KB).
        values = [list(range(k, k + 40_000)) for k in range(4)]
        run, _, _ = collect(values, gap_s=0.001)
        self.assert_read_whole(run, values)

    def test_stdout_flooded_while_the_calls_run(self) -> None:
        values = list(range(100))
        run, _, _ = collect(values, gap_s=0.0001, flood=1 << 20)
        self.assert_read_whole(run, values)
        self.assertEqual(len(run.captured), candidate.MAX_CAPTURE_BYTES)


if __name__ == "__main__":
    unittest.main()
