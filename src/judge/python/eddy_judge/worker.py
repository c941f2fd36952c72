"""The trusted judge worker: oracles, expected outputs, comparison. Candidate code never runs here.

Protocol with Node: one JSON object per line on stdin (a request with an "id" and an "op"), one
JSON object per line on stdout (the reply with the same "id"). Candidates run in sandboxes forked
by a clean zygote process (eddy_sandbox/zygote.py) in bubblewrap's world (world.py); this process sends each
one only its code, the function name, the argument values and a per-job key, and reads back
authenticated frames of plain values (protocol.py). Budgets are CPU time (budget.py).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from eddy_sandbox import isolation as iso

from .candidate import close_zygote, isolation_report, prefork
from .environment import describe
from .languages import runtimes
from .oracle import OracleError
from .profile import phases
from .protocol import exc_line
from .references import answer_source, mutants
from .verdicts import MAX_CODE_BYTES, judge


def handle(req: dict[str, Any]) -> dict[str, Any]:
    op = req.get("op")
    if op == "hello":
        report = isolation_report()
        prefork()
        return {
            "isolation": report,
            "python": sys.version.split()[0],
            "runtimes": runtimes(),
            # The interpreter and the third-party packages it offers answers (environment.py).
            "environment": describe(),
            "limits": {"maxCodeBytes": MAX_CODE_BYTES},
        }
    if op == "judge":
        t0 = time.monotonic()
        out = judge(req)
        ms = (time.monotonic() - t0) * 1000.0
        prefork()
        extra: dict[str, Any] = {}
        if req.get("profile") and out.stamps:
            extra["phases"] = phases(out.stamps)
        return {
            **extra,
            "category": out.category,
            "detail": out.detail,
            "ms": ms,
            "limit": out.limit,
            "borderline": out.borderline,
            "cpuMs": out.cpu_ms,
            "budgetMs": round(out.budget_ms, 3),
            "shrunk": out.shrunk,
        }
    if op == "source":
        return {"source": answer_source(req)}
    if op == "mutants":
        return {"mutants": mutants(req)}
    raise OracleError("unknown op %r" % op)


def main() -> None:
    # The protocol gets a private copy of stdout; fd 1 becomes stderr so that a print() in an
    # oracle cannot corrupt the reply stream.
    proto = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    out = os.fdopen(proto, "w", encoding="utf-8")
    # Same-uid processes (the no-namespace fallback) cannot read this process's memory.
    try:
        iso.prctl(iso.PR_SET_DUMPABLE, 0)
    except OSError:
        pass
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 5000))
    inp = sys.stdin.buffer
    try:
        while True:
            line = inp.readline()
            if not line:
                break
            if not line.strip():
                continue
            rid = None
            try:
                req = json.loads(line)
                rid = req.get("id")
                reply = handle(req)
                reply["id"] = rid
            except OracleError as e:
                reply = {"id": rid, "error": str(e)[:1000]}
            except Exception as e:  # a harness bug: report it as a judge_error, keep serving
                reply = {"id": rid, "error": "judge worker: " + exc_line(e)}
            out.write(json.dumps(reply) + "\n")
            out.flush()
    finally:
        close_zygote()
