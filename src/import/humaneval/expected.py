"""Expected outputs of one imported problem, computed once at import (EvalPlus's get_groundtruth).

Run by 'eddy import humaneval|mbpp' as `python -I -B expected.py <judge package parent>`, one process
per problem (the importer runs several at once). stdin: JSON {"problem": <the release line>,
"dataset": "humaneval" | "mbpp", "out": <path of the .expected.pkl to write>}. stdout: one JSON line.

The problem's own trusted code (prompt + canonical_solution) runs here with no wall limit, as in
EvalPlus; each input's CPU time is measured (process_time: what the answer's budget is charged in).
What is written is everything a run needs, so no run ever calls the canonical solution on the tests:
the inputs (MBPP+'s deserialised as EvalPlus deserialises them), the expected outputs, the tolerance
EvalPlus applies to each, and, for a problem without base_input/plus_input (HumanEval as OpenAI
published it), the calls check(candidate) makes with their results.
"""

import copy
import hashlib
import inspect
import json
import marshal
import math
import pickle
import sys
import time
from typing import Any

# EvalPlus's evalplus/config.py defaults: an input's limit is max(min limit, factor x the ground
# truth's time); a group (base or plus) never runs past EVALPLUS_TIMEOUT_PER_TASK.
MIN_TIME_LIMIT_MS = 4000.0
GT_TIME_LIMIT_FACTOR = 4.0
TIMEOUT_PER_GROUP_MS = 60000.0
# unsafe_execute's process gets sum(limits) + 2 s (fast_check: +1, and join's +1).
GROUP_EXTRA_MS = 2000.0

# What the judge holds of one problem's expected outputs (pickled): an answer's results, up to twice
# these, cross to the trusted worker and are read and compared there, value by value. Beyond this
# the problem cannot come in (an output stored as its digest takes 71 bytes: MBPP+'s Mbpp/255,
# 744 MB of one output of 128 million values, comes in that way).
MAX_EXPECTED_BYTES = 256 * 1024 * 1024

# An expected output over this (pickled) is stored as its digest (eddy_judge/digest.py) where it can
# be compared exactly: no float or complex anywhere, no tolerance, no special oracle. The answer's
# harness sends the same digest of its own result for that input, and the two are compared.
DIGEST_OVER_BYTES = 16 * 1024 * 1024

# evalplus/eval/_special_oracle.py: MBPP+ tasks judged by 'out is not None' only.
MBPP_OUTPUT_NOT_NONE_TASKS = ["check_str", "text_match_three", "text_starta_endb"]


def _tuple_all(x: Any) -> Any:
    if isinstance(x, list):
        return tuple(_tuple_all(i) for i in x)
    return x


def mbpp_deserialize_inputs(task_id: str, inputs: list) -> list:
    """MBPP+ inputs as EvalPlus's evalplus/data/mbpp.py reads them: JSON has no tuples, sets or
    complex numbers, so the tasks whose arguments are such are rebuilt by task number."""
    n = int(task_id.split("/")[-1])
    if n in (2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560, 579, 596, 616, 630, 726, 740, 744, 809):
        return [[tuple(lst) for lst in inp] for inp in inputs]
    if n in (63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780):
        return [[[tuple(lst) for lst in lst_lst] for lst_lst in inp] for inp in inputs]
    if n in (75, 413, 444, 753):
        return [[[tuple(lst) for lst in inp[0]]] + [inp[1]] for inp in inputs]
    if n in (106, 750):
        return [[inp[0]] + [tuple(inp[1])] for inp in inputs]
    if n == 115:
        return [[[set(item) if isinstance(item, list) and len(item) else {} for item in inp[0]]] for inp in inputs]
    if n == 124:
        return [(float(inp[0]), complex(inp[1])) for inp in inputs]
    if n in (250, 405, 446, 617, 720, 763, 808):
        return [[tuple(inp[0])] + [inp[1]] for inp in inputs]
    if n in (259, 401, 445):
        out = [[[tuple(lst) for lst in lst_lst] for lst_lst in inp] for inp in inputs]
        return [[tuple(lst) for lst in inp] for inp in out]
    if n == 278:
        out = [[[tuple(item) if isinstance(item, list) else item for item in inp[0]]] for inp in inputs]
        return [[tuple(lst) for lst in inp] for inp in out]
    if n == 307:
        return [[tuple(inp[0])] + [inp[1], inp[2]] for inp in inputs]
    if n == 722:
        return [[{k: tuple(v) for k, v in inp[0].items()}] + inp[1:] for inp in inputs]
    if n == 252:
        return [[complex(inp[0])] for inp in inputs]
    if n in (580, 615, 791):
        return [_tuple_all(inp) for inp in inputs]
    return inputs


# Tasks whose outputs EvalPlus judges by something other than == (evalplus/eval/__init__.py and
# _special_oracle.py): their outputs are never stored as a digest.
MBPP_NOT_EXACT_TASKS = ["are_equivalent", "sum_div", "surface_Area", "digit_distance_nums", "similar_elements", "find_char_long", "common_in_nested_lists", "extract_singly", "larg_nnum", "intersection_array", "find_dissimilar", "Diff"] + MBPP_OUTPUT_NOT_NONE_TASKS


def special_oracle(dataset: str, entry_point: str) -> bool:
    return (dataset == "mbpp" and entry_point in MBPP_NOT_EXACT_TASKS) or (dataset == "humaneval" and entry_point == "find_zero")


def is_floats(x: Any) -> bool:
    """evalplus.eval.is_floats (numpy arrays aside: plain data only reaches eddy's judge)."""
    if isinstance(x, float):
        return True
    if isinstance(x, (list, tuple)) and x:
        return all(isinstance(i, float) for i in x)
    return False


def type_name(v: Any) -> str:
    if isinstance(v, list) and v and all(isinstance(r, list) for r in v):
        return "matrix"
    return "none" if v is None else type(v).__name__


def group_atols(atol: float, expected: list, sticky: bool) -> list:
    """The tolerance EvalPlus's unsafe_execute holds at each input of a group, before and after
    its float rule: `atol` becomes 1e-6 at the first float answer and stays so for the rest of the
    group (except where a special oracle decides first and the rule is never reached)."""
    out = []
    for exp in expected:
        before = atol
        if sticky and atol == 0 and is_floats(exp):
            atol = 1e-6
        out.append((before, atol))
    return out


def group_budget_ms(times_ms: list, factor: float) -> float:
    """EvalPlus's ceiling for one group, on the reference machine: the sum of the inputs' limits,
    at most the per-task timeout, plus the process's extra seconds."""
    if not times_ms:
        return 0.0
    limits = sum(max(MIN_TIME_LIMIT_MS, GT_TIME_LIMIT_FACTOR * t / factor) for t in times_ms)
    return min(TIMEOUT_PER_GROUP_MS, limits) + GROUP_EXTRA_MS


def input_limits_ms(times_ms: list, factor: float) -> list:
    """EvalPlus's limit of each input, on the reference machine: max(min limit, factor x the
    ground truth's time on it) (evalplus/evaluate.py: time_limits; unsafe_execute times out each
    input on its own)."""
    return [max(MIN_TIME_LIMIT_MS, GT_TIME_LIMIT_FACTOR * t / factor) for t in times_ms]


def digest_large(outs: list, exact: bool, digest: Any) -> tuple[list, list, list]:
    """(outputs, digests, CPU ms of each digest): an output over DIGEST_OVER_BYTES is replaced by
    None and its digest given beside it, where `exact` (the problem compares it with == alone) and
    the output is plain data without floats; any other output stays as it is."""
    digests: list = [None] * len(outs)
    spent: list = []
    if not exact:
        return outs, digests, spent
    outs = list(outs)
    for k, out in enumerate(outs):
        try:
            size = len(pickle.dumps(out, protocol=4))
        except BaseException:
            continue
        if size <= DIGEST_OVER_BYTES:
            continue
        t0 = time.process_time()
        d = digest(out)
        if d is None:
            continue
        spent.append((time.process_time() - t0) * 1000.0)
        digests[k], outs[k] = d, None
    return outs, digests, spent


def run_group(fn: Any, inputs: list, not_none: bool) -> tuple[list, list]:
    outs, times = [], []
    for inp in inputs:
        args = copy.deepcopy(inp)
        t0 = time.process_time()
        out = fn(*args)
        times.append((time.process_time() - t0) * 1000.0)
        outs.append(out is not None if not_none else out)
    return outs, times


def record_check(ns: dict, fn: Any, test: str, entry_point: str) -> list:
    """The calls check(candidate) makes on the canonical solution, with their results: prompt,
    solution and test in one namespace (HumanEval's program), the entry point bound as candidate
    and under its own name."""
    calls: list = []

    def recording(*args: Any, **kwargs: Any) -> Any:
        bound = inspect.signature(fn).bind(*args, **kwargs)
        bound.apply_defaults()
        args = tuple(bound.args) + tuple(bound.kwargs.values())
        before = copy.deepcopy(args)
        result = fn(*args)
        calls.append((before, copy.deepcopy(result)))
        return result

    ns[entry_point] = recording
    exec(compile(test, "test.py", "exec"), ns)
    ns["check"](recording)
    return calls


def compute(req: dict) -> dict:
    p = req["problem"]
    dataset = req["dataset"]
    task_id, entry_point = p["task_id"], p["entry_point"]
    ns: dict = {"__name__": "__main__"}
    try:
        exec(compile(p["prompt"] + p["canonical_solution"], "solution.py", "exec"), ns)
    except BaseException as e:
        raise ValueError("prompt + canonical_solution does not run: %s: %s" % (type(e).__name__, e))
    fn = ns.get(entry_point)
    if not callable(fn):
        raise ValueError("prompt + canonical_solution defines no function '%s'" % entry_point)
    params = inspect.signature(fn).parameters.values()
    if any(q.kind in (q.VAR_POSITIONAL, q.VAR_KEYWORD) for q in params):
        raise ValueError("%s takes *args or **kwargs; eddy asks for a fixed argument count" % entry_point)
    arity = sum(1 for q in params if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD))
    if arity < 1:
        raise ValueError("%s takes no arguments; eddy asks for at least one" % entry_point)
    atol = float(p.get("atol") or 0)
    evalplus = p.get("base_input") is not None or p.get("plus_input") is not None
    data: dict = {"task_id": task_id, "dataset": dataset, "entry_point": entry_point, "atol": atol}
    times: dict = {}
    digest_ms: list = []
    sys.path.insert(0, req["judge"])
    from eddy_judge.budget import host_factor  # noqa: E402 (the judge's own calibration)
    from eddy_judge.digest import digest  # noqa: E402 (the same walk as the answer's harness)

    if evalplus:
        base, plus = p.get("base_input") or [], p.get("plus_input") or []
        if dataset == "mbpp":
            base, plus = mbpp_deserialize_inputs(task_id, base), mbpp_deserialize_inputs(task_id, plus)
        not_none = dataset == "mbpp" and entry_point in MBPP_OUTPUT_NOT_NONE_TASKS
        for name, inputs in (("base", base), ("plus", plus)):
            try:
                outs, ts = run_group(fn, inputs, not_none)
            except BaseException as e:
                raise ValueError("the canonical solution raises on a %s input: %s: %s" % (name, type(e).__name__, str(e)[:200]))
            data[name + "_input"] = [tuple(a) for a in inputs]
            data[name] = outs
            data[name + "_atol"] = group_atols(atol, outs, not (dataset == "humaneval" and entry_point == "find_zero"))
            times[name] = ts
            data[name], data[name + "_digest"], spent = digest_large(outs, atol == 0 and not special_oracle(dataset, entry_point), digest)
            digest_ms += spent
        returns = sorted({type_name(v) for v in data["base"] + data["plus"]})
        calls = data["base_input"] + data["plus_input"]
    else:
        try:
            recorded = record_check(ns, fn, p["test"], entry_point)
        except BaseException as e:
            raise ValueError("the canonical solution fails check(candidate): %s: %s" % (type(e).__name__, str(e)[:200]))
        data["check_calls"] = recorded
        times["check"] = []
        returns = sorted({type_name(r) for _, r in recorded})
        calls = [a for a, _ in recorded]
        if not calls:
            raise ValueError("check(candidate) never calls the candidate")
    try:
        marshal.dumps(calls)
    except ValueError:
        raise ValueError("the test arguments are not plain data (None, bool, int, float, complex, str, bytes, list, tuple, dict, set)")
    factor = host_factor()
    for name in ("base", "plus"):
        if name in times:
            data[name + "_limit_ms"] = input_limits_ms(times[name], factor)
    blob = pickle.dumps(data, protocol=4)
    if len(blob) > MAX_EXPECTED_BYTES:
        raise ValueError(
            "its expected outputs take %d MB, more than the judge reads and compares for one problem (%d MB; an answer may send twice its problem's outputs; an output over %d MB is kept as its digest only where == alone compares it: no float or complex number in it, no tolerance, no special oracle)"
            % (len(blob) // (1024 * 1024), MAX_EXPECTED_BYTES // (1024 * 1024), DIGEST_OVER_BYTES // (1024 * 1024))
        )
    with open(req["out"], "wb") as f:
        f.write(blob)
    ms = {k: sum(v) for k, v in times.items()}
    budget = sum(group_budget_ms(v, factor) for k, v in times.items() if k != "check")
    # The answer's harness walks its result of each digest-compared input as the import did:
    # charged to the answer, so its budget has room for it (EvalPlus's factor on the import's time).
    budget += sum(max(MIN_TIME_LIMIT_MS, GT_TIME_LIMIT_FACTOR * t / factor) for t in digest_ms)
    return {
        "ok": True,
        "arity": arity,
        "returns": returns,
        "evalplus": evalplus,
        "tests": {k: len(data.get(k + "_input", data.get("check_calls", []))) for k in times},
        "canonicalMs": ms,
        "budgetMs": math.ceil(budget) if budget else None,
        "hostFactor": factor,
        "sha256": hashlib.sha256(blob).hexdigest(),
        "bytes": len(blob),
        "digests": sum(1 for g in ("base", "plus") for d in data.get(g + "_digest", []) if d is not None),
    }


def main() -> None:
    req = json.loads(sys.stdin.read())
    req["judge"] = sys.argv[1]
    try:
        out = compute(req)
    except BaseException as e:
        out = {"ok": False, "error": " ".join(str(e).split()) or type(e).__name__}
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
