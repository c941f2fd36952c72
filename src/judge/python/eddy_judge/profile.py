"""The per-phase profile of one verdict (`npm run bench:judge` prints it): what each step from the
request to the worker's keeper to the reply cost, from monotonic stamps taken by the worker, the keeper and the
candidate's harness code (the clock is shared across the sandbox's namespaces). Nothing here
decides a verdict."""

from __future__ import annotations

# (phase, from stamp, to stamp, CPU): wall time between the two stamps, and the CPU time of the
# process that did the work (the two stamps' own CPU clocks when both are that process's; for a
# clone, the cloning process's). A sandbox is made ahead of need: its first four phases overlap
# the previous verdict and are not in its `ms`. The keeper is the worker's, long-lived: a request
# reaches it over its socket, and it clones the candidate into new PID, mount and IPC namespaces.
PHASES = (
    ("request to keeper", "w_requested", "k_start", ""),
    ("keeper set-up", "k_start", "k_namespaces", "k"),
    ("clone keeper to candidate", "k_namespaces", "c_start", "k_namespaces..k_forked"),
    ("candidate scratch space and descriptors", "c_start", "c_scratch", "c"),
    ("previous sandbox's clean-up", "w_start", "w_stopped", "w"),
    ("job to candidate", "w_stopped", "c_job", "w_stopped..w_job"),
    ("rlimits, capabilities, seccomp", "c_job", "c_limits", "c"),
    ("static check", "c_limits", "c_checked", "c"),
    ("harness ready", "c_checked", "c_ready", "c"),
    ("load and calls", "c_ready", "w_done", "answer"),
    ("candidate exit", "w_done", "k_ended", ""),
    ("keeper watching (the warm wait included)", "k_forked", "k_ended", "k"),
    ("keeper clean-up and report", "k_ended", "k_cleaned", "k"),
    ("results read", "w_waited", "w_results", "w"),
    ("comparison", "w_results", "w_verdict", "w"),
    ("worker, whole verdict", "w_start", "w_verdict", "w"),
)


# What a process spent on one answer (wall from its first to its last stamp), with its CPU time
# and minor page faults from getrusage: after a fork each page of the parent's heap a process
# writes is copied on the first write, a fault each, the largest single cost of a verdict (see
# README, "What a verdict costs"). The keeper's are its own since its previous report (it serves
# one answer after another), the candidate's (its reaped children's included) its whole life,
# from the keeper's wait.
LIVES = (
    ("keeper, per answer", "k_start", "k_cleaned", "k_life"),
    ("candidate, whole life", "c_start", "k_ended", "c_life"),
)


def phases(stamps: dict[str, float]) -> dict[str, dict[str, float]]:
    """{phase: {"ms": wall ms, "cpu_ms": CPU ms}} for the phases whose stamps were taken."""
    out: dict[str, dict[str, float]] = {}
    for name, a, b, cpu in PHASES:
        if a not in stamps or b not in stamps:
            continue
        row = {"ms": round((stamps[b] - stamps[a]) * 1000.0, 3)}
        if cpu in ("k", "c", "w"):
            cpu = a + ".." + b
        if ".." in cpu:
            x, y = (c + "@cpu" for c in cpu.split(".."))
            if x in stamps and y in stamps:
                row["cpu_ms"] = round((stamps[y] - stamps[x]) * 1000.0, 3)
        elif cpu == "answer" and "answer_cpu_ms" in stamps:
            row["cpu_ms"] = round(stamps["answer_cpu_ms"], 3)
        elif cpu in stamps:
            row["cpu_ms"] = round(stamps[cpu], 3)
        out[name] = row
    for name, a, b, life in LIVES:
        if a in stamps and b in stamps and life + "@cpu" in stamps:
            out[name] = {
                "ms": round((stamps[b] - stamps[a]) * 1000.0, 3),
                "cpu_ms": round(stamps[life + "@cpu"] * 1000.0, 3),
                "minflt": stamps[life + "@minflt"],
            }
    return out
