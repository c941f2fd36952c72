"""Expected outputs of imported problems, computed once at import (EvalPlus's get_groundtruth), with
the problems' own code run in the judge's sandbox (issue #43: a benchmark file is untrusted input).

Run by 'eddy import humaneval|mbpp' as `python -I -B expected.py <judge package parent>`: a trusted
process that serves one problem after another (the importer runs several at once). stdin: one JSON
line per problem, {"problem": <the release line>, "dataset": "humaneval" | "mbpp", "out": <path of
the .expected.json to write>, "cpuS": <CPU seconds on the reference machine>, "memoryMb": <MB>,
"unsandboxedOk": <bool>}; stdout: one JSON line per problem, {"ok": true, ...} or {"ok": false,
"error": <why it cannot come in>}.

Nothing of the problem runs in this process. Its program (prompt + canonical_solution, and for a
problem without base_input/plus_input its `test` with check(candidate)) runs as an answer does,
in a sandbox of the judge (eddy_judge/outputs.py: the same bubblewrap world, keepers, rlimits,
seccomp allow-list and guard; a CPU-time limit for the whole problem, `cpuS` scaled by the host
factor; `memoryMb` of address space), driven by DRIVER below; what comes back is read as an
answer's results are (protocol.py's total, bounded reader): plain values, or a failure. Each input's
CPU time is measured there (process_time, what an answer's budget is charged in). What is written
is everything a run needs, so no run ever calls the canonical solution on the tests: the inputs
(MBPP+'s deserialised as EvalPlus deserialises them), the expected outputs, the tolerance EvalPlus
applies to each, each input's limit; stored as tagged JSON (expected_codec.py), never pickled.
"""

import collections
import hashlib
import importlib.util
import json
import marshal
import math
import os
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

# What the judge holds of one problem's expected outputs (their values as marshal measures them,
# inputs included): an answer's results, up to twice these, cross to the trusted worker and are
# read and compared there, value by value. Beyond this the problem cannot come in (an output stored
# as its digest takes 71 bytes: MBPP+'s Mbpp/255, 744 MB of one output of 128 million values,
# comes in that way).
MAX_EXPECTED_BYTES = 256 * 1024 * 1024

# An expected output over this (as marshal writes it) is stored as its digest (eddy_sandbox/digest.py)
# where it can be compared exactly: no float or complex anywhere, no tolerance, no special oracle.
# The answer's harness sends the same digest of its own result for that input, and the two are
# compared.
DIGEST_OVER_BYTES = 16 * 1024 * 1024

# The expected-outputs file is at most this large (tagged JSON takes up to about 3 x what marshal
# takes: escaped text, float reprs); the oracle reads no larger file (oracleSource.ts).
MAX_FILE_BYTES = 1024 * 1024 * 1024

# What comes back from the sandbox: every frame of one problem's run, and the longest integer.
RESULT_BYTES = MAX_EXPECTED_BYTES + 16 * 1024 * 1024
INT_DIGITS = 2_000_000

# evalplus/eval/_special_oracle.py: MBPP+ tasks judged by 'out is not None' only.
MBPP_OUTPUT_NOT_NONE_TASKS = ["check_str", "text_match_three", "text_starta_endb"]

# The program run in the sandbox: eddy's own code around the problem's, whose texts are in it as
# string literals (repr). At load it runs the problem's program in a namespace of its own, as
# EvalPlus does (prompt + canonical_solution, one program, as __main__); then each call is one of
# ("sig", None): the entry point's positional parameters; ("call", args): its output on args, with
# the CPU time it took; ("check", None): check(candidate) run on the entry point, each call check
# makes recorded (arguments before the call, output). An output goes back as ("v", value, ms) when
# plain data; ("c", name, content, ms) for a Counter, OrderedDict, defaultdict or deque (exact
# types), which the judge rebuilds the same way from an answer; ("d", digest, ms, walk ms, type)
# when over DIGEST_OVER_BYTES and comparable by digest; ("x", type name, ms) for anything else,
# which cannot be stored. Whatever it hands back is only data to the trusted side, checked there.
DRIVER = r'''
import collections as _eddy_collections
import copy as _eddy_copy
import inspect as _eddy_inspect
import marshal as _eddy_marshal
import marshal
import time as _eddy_time
import time
from typing import Any

_EDDY_ENTRY = %(entry)r
_EDDY_TEST = %(test)r
_EDDY_EXACT = %(exact)r
_EDDY_NOT_NONE = %(not_none)r
DIGEST_OVER_BYTES = %(over)d
_EDDY_FORMS = {_eddy_collections.Counter: "Counter", _eddy_collections.OrderedDict: "OrderedDict", _eddy_collections.defaultdict: "defaultdict", _eddy_collections.deque: "deque"}
%(digest)s

_eddy_ns = {"__name__": "__main__"}
exec(compile(%(source)r, "solution.py", "exec"), _eddy_ns)


def _eddy_type(v):
    if isinstance(v, list) and v and all(isinstance(r, list) for r in v):
        return "matrix"
    return "none" if v is None else type(v).__name__


%(kept)s

def _eddy_encode(out, ms, copy_it):
    if _EDDY_NOT_NONE:
        return ("v", out is not None, ms)
    form = _EDDY_FORMS.get(type(out))
    if form is not None:
        content = list(out) if form == "deque" else dict(out)
        try:
            if copy_it:
                content = _eddy_marshal.loads(_eddy_marshal.dumps(content))
            else:
                _eddy_marshal.dumps(content)
        except ValueError:
            return ("x", type(out).__name__, ms)
        return ("c", form, content, ms)
    try:
        big = size_over(out, DIGEST_OVER_BYTES)
    except ValueError:
        return ("x", type(out).__name__, ms)
    except MemoryError:
        big = True
    if big:
        _, digests, spent = digest_large([out], _EDDY_EXACT, digest)
        if digests[0] is not None:
            return ("d", digests[0], ms, spent[0], _eddy_type(out))
    if copy_it:
        out = _eddy_marshal.loads(_eddy_marshal.dumps(out))
    return ("v", out, ms)


def _eddy_check(fn):
    calls = []
    sig = _eddy_inspect.signature(fn)

    def recording(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        args = tuple(bound.args) + tuple(bound.kwargs.values())
        before = _eddy_copy.deepcopy(args)
        t0 = _eddy_time.process_time()
        result = fn(*args)
        ms = (_eddy_time.process_time() - t0) * 1000.0
        calls.append((before, _eddy_encode(result, ms, True)))
        return result

    # HumanEval's program: prompt, solution and test in one namespace (the tests may call helpers
    # the prompt defines, or the function by its own name), the entry point bound as candidate.
    _eddy_ns[_EDDY_ENTRY] = recording
    exec(compile(_EDDY_TEST, "test.py", "exec"), _eddy_ns)
    check = _eddy_ns.get("check")
    if not callable(check):
        raise LookupError("the test defines no check(candidate)")
    check(recording)
    return calls


def eddy_ground_truth(kind, arg):
    fn = _eddy_ns.get(_EDDY_ENTRY)
    if kind == "call":
        t0 = _eddy_time.process_time()
        out = fn(*arg)
        ms = (_eddy_time.process_time() - t0) * 1000.0
        return _eddy_encode(out, ms, False)
    if kind == "sig":
        if not callable(fn):
            return ("nofn",)
        params = _eddy_inspect.signature(fn).parameters.values()
        var = any(q.kind in (q.VAR_POSITIONAL, q.VAR_KEYWORD) for q in params)
        return ("sig", sum(1 for q in params if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD)), var)
    if kind == "check":
        return ("check", _eddy_check(fn))
    raise ValueError(kind)
'''
DRIVER_FUNCTION = "eddy_ground_truth"


def _codec() -> Any:
    """expected_codec.py, beside this file (run with -I, whose folder is not on sys.path)."""
    spec = importlib.util.spec_from_file_location("eddy_expected_codec", os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected_codec.py"))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


codec = _codec()


class Refused(Exception):
    """The problem cannot come in: its reason, for the import summary."""


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
MBPP_NOT_EXACT_TASKS = [
    "are_equivalent",
    "sum_div",
    "surface_Area",
    "digit_distance_nums",
    "similar_elements",
    "find_char_long",
    "common_in_nested_lists",
    "extract_singly",
    "larg_nnum",
    "intersection_array",
    "find_dissimilar",
    "Diff",
] + MBPP_OUTPUT_NOT_NONE_TASKS


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
        out.append([before, atol])
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


def size_over(v: Any, limit: int) -> bool:
    """Whether v takes more than `limit` bytes as marshal writes it (a list or tuple counted in
    slices, stopping once over); ValueError when it is not plain data. Run in the sandbox (DRIVER
    carries this function's source) on what the problem's code returned."""
    if type(v) is list or type(v) is tuple:
        n = 0
        for i in range(0, len(v), 4096):
            n += len(marshal.dumps(v[i : i + 4096]))
            if n > limit:
                return True
        return False
    return len(marshal.dumps(v)) > limit


def digest_large(outs: list, exact: bool, digest: Any) -> tuple[list, list, list]:
    """(outputs, digests, CPU ms of each digest): an output over DIGEST_OVER_BYTES is replaced by
    None and its digest given beside it, where `exact` (the problem compares it with == alone) and
    the output is plain data without floats (digest(out) strict: None otherwise); any other output
    stays as it is. Run in the sandbox (DRIVER carries this function's source), output by output."""
    digests: list = [None] * len(outs)
    spent: list = []
    if not exact:
        return outs, digests, spent
    outs = list(outs)
    for k, out in enumerate(outs):
        try:
            if not size_over(out, DIGEST_OVER_BYTES):
                continue
        except ValueError:
            continue
        except MemoryError:
            pass
        t0 = time.process_time()
        d = digest(out)
        if d is None:
            continue
        spent.append((time.process_time() - t0) * 1000.0)
        digests[k], outs[k] = d, None
    return outs, digests, spent


def driver_source(p: dict, exact: bool, not_none: bool, digest_source: str) -> str:
    return DRIVER % {
        "entry": p["entry_point"],
        "test": p.get("test") or "",
        "exact": exact,
        "not_none": not_none,
        "over": DIGEST_OVER_BYTES,
        "digest": digest_source,
        "kept": "\n\n".join(_source(f) for f in (size_over, digest_large)),
        "source": p["prompt"] + p["canonical_solution"],
    }


def _source(f: Any) -> str:
    """A function of this file, as its text: the sandbox runs the same code (DRIVER)."""
    import inspect

    return inspect.getsource(f)


def _ms(x: Any, cap: float) -> float:
    """A CPU time the sandbox reported (ms): a number within [0, the problem's CPU limit]."""
    if type(x) not in (int, float) or x != x:
        return 0.0
    return max(0.0, min(float(x), cap))


def _text(x: Any) -> str:
    return " ".join(str(x).split())[:300]


class Output:
    """One expected output as it came back: its stored value (or None), digest, CPU times, type,
    and its size as marshal writes it (what the judge measures an answer's results by)."""

    def __init__(self, value: Any, digest: str | None, ms: float, walk_ms: float, type_: str, size: int) -> None:
        self.value = value
        self.digest = digest
        self.ms = ms
        self.walk_ms = walk_ms
        self.type = type_
        self.size = size


_DIGEST_CHARS = frozenset("0123456789abcdef")
_REBUILT = {"Counter": "Counter", "OrderedDict": "OrderedDict", "defaultdict": "defaultdict", "deque": "deque"}


def read_output(rec: Any, cap: float, where: str) -> Output:
    """One output record from the sandbox (DRIVER's _eddy_encode), checked; Refused otherwise."""
    if type(rec) is not tuple or not rec or type(rec[0]) is not str:
        raise Refused("the run in the sandbox gave an unexpected result %s" % where)
    tag = rec[0]
    if tag == "v" and len(rec) == 3:
        return Output(rec[1], None, _ms(rec[2], cap), 0.0, type_name(rec[1]), len(marshal.dumps(rec[1])))
    if tag == "c" and len(rec) == 4 and rec[1] in _REBUILT:
        name, content = rec[1], rec[2]
        if (name == "deque") != (type(content) is list) or (name != "deque" and type(content) is not dict):
            raise Refused("the run in the sandbox gave an unexpected result %s" % where)
        value = {"Counter": collections.Counter, "OrderedDict": collections.OrderedDict, "defaultdict": lambda d: collections.defaultdict(None, d), "deque": collections.deque}[name](content)
        return Output(value, None, _ms(rec[3], cap), 0.0, name, len(marshal.dumps(content)))
    if tag == "d" and len(rec) == 5 and type(rec[1]) is str and rec[1].startswith("sha256:") and len(rec[1]) == 71 and set(rec[1][7:]) <= _DIGEST_CHARS and type(rec[4]) is str:
        return Output(None, rec[1], _ms(rec[2], cap), _ms(rec[3], cap), rec[4][:40], len(rec[1]))
    if tag == "x" and len(rec) == 3 and type(rec[1]) is str:
        raise Refused(
            "the canonical solution returns a %s %s, which is not plain data and cannot be stored (None, bool, int, float, complex, str, bytes, list, tuple, dict, set, "
            "and the standard library's Counter, OrderedDict, defaultdict and deque)" % (_text(rec[1])[:60], where)
        )
    raise Refused("the run in the sandbox gave an unexpected result %s" % where)


def _limit_text(cpu_ms: float, factor: float, cpu_s: float) -> str:
    return "%.0f s of CPU time on this machine (%g s on the reference machine x host factor %.2f)" % (cpu_ms / 1000.0, cpu_s, factor)


def compute(req: dict, judge: Any) -> dict:
    # EvalPlus's minimum per-input limit: its current 4 s, or the version the import names (--evalplus-version).
    global MIN_TIME_LIMIT_MS
    MIN_TIME_LIMIT_MS = float(req.get("minTimeLimitS") or 4.0) * 1000.0
    # The problem's line as written, read by Python's json (integers beyond 2^53 stay exact).
    p = req["problem"]
    if type(p) is not dict:
        raise Refused("not a problem")
    dataset = req["dataset"]
    task_id, entry_point = p["task_id"], p["entry_point"]
    factor = judge.host_factor()
    cpu_s = float(req.get("cpuS") or 60.0)
    cpu_ms = cpu_s * 1000.0 * factor
    memory_mb = int(req.get("memoryMb") or 4096)
    atol = float(p.get("atol") or 0)
    evalplus = p.get("base_input") is not None or p.get("plus_input") is not None
    exact = atol == 0 and not special_oracle(dataset, entry_point)
    not_none = dataset == "mbpp" and entry_point in MBPP_OUTPUT_NOT_NONE_TASKS
    groups: list[tuple[str, list]] = []
    if evalplus:
        base, plus = p.get("base_input") or [], p.get("plus_input") or []
        if dataset == "mbpp":
            base, plus = mbpp_deserialize_inputs(task_id, base), mbpp_deserialize_inputs(task_id, plus)
        groups = [("base", [tuple(a) for a in base]), ("plus", [tuple(a) for a in plus])]
        if not base and not plus:
            raise Refused("it has no test inputs (base_input and plus_input are empty)")
        calls: list[tuple] = [("sig", None)] + [("call", a) for g in groups for a in g[1]]
    else:
        calls = [("sig", None), ("check", None)]
    try:
        marshal.dumps(calls)
    except ValueError:
        raise Refused("the test arguments are not plain data (None, bool, int, float, complex, str, bytes, list, tuple, dict, set)")
    # Where each call's result belongs, for the reasons given.
    where = ["while reading its signature"] + (["on %s input %d" % (g, k + 1) for g, inputs in groups for k in range(len(inputs))] if evalplus else ["in check(candidate)"])
    code = driver_source(p, exact, not_none, judge.DIGEST_SOURCE)

    def stop_at(i: int, r: tuple) -> bool:
        # The first call that raised, or gave what cannot be stored, ends the run.
        return r[0] != "r" or (type(r[1]) is tuple and len(r[1]) > 0 and r[1][0] in ("x", "nofn"))

    if not judge.sandboxed() and not req.get("unsandboxedOk"):
        raise Refused("no sandbox is possible here (bubblewrap), so its code was not run")
    run = judge.run_outputs(code, DRIVER_FUNCTION, 2, calls, cpu_ms, memory_mb, RESULT_BYTES, INT_DIGITS, stop_at)
    if run.load is not None:
        kind, text = run.load
        if kind == "static":
            raise Refused("eddy's program around it was refused by the judge's static check: %s" % _text(text))
        raise Refused("prompt + canonical_solution does not run: %s" % _text(text))
    # The results, in order.
    outputs: list[Output] = []
    arity = 0
    recorded: list[tuple] = []
    for i, r in enumerate(run.results):
        at = where[i] if i < len(where) else "on call %d" % (i + 1)
        if r[0] == "e":
            if i == 0:
                raise Refused("its entry point's signature cannot be read: %s" % _text(r[2]))
            if not evalplus:
                raise Refused("the canonical solution fails check(candidate): %s" % _text(r[2]))
            raise Refused("the canonical solution raises %s: %s" % (at, _text(r[2])))
        if r[0] == "o":
            if not evalplus and i == 1:
                raise Refused("check(candidate) calls it with arguments that are not plain data, or gets back what cannot be stored")
            raise Refused("the run in the sandbox gave back what is not plain data %s" % at)
        v = r[1]
        if i == 0:
            if v == ("nofn",):
                raise Refused("prompt + canonical_solution defines no function '%s'" % entry_point)
            if type(v) is not tuple or len(v) != 3 or v[0] != "sig" or type(v[1]) is not int or type(v[2]) is not bool:
                raise Refused("the run in the sandbox gave an unexpected result %s" % at)
            if v[2]:
                raise Refused("%s takes *args or **kwargs; eddy asks for a fixed argument count" % entry_point)
            arity = v[1]
            if arity < 1:
                raise Refused("%s takes no arguments; eddy asks for at least one" % entry_point)
        elif evalplus:
            outputs.append(read_output(v, cpu_ms, at))
        else:
            if type(v) is not tuple or len(v) != 2 or v[0] != "check" or type(v[1]) is not list:
                raise Refused("the run in the sandbox gave an unexpected result %s" % at)
            for k, call in enumerate(v[1]):
                if type(call) is not tuple or len(call) != 2 or type(call[0]) is not tuple:
                    raise Refused("the run in the sandbox gave an unexpected result %s" % at)
                recorded.append(call[0])
                outputs.append(read_output(call[1], cpu_ms, "on check(candidate)'s call %d" % (k + 1)))
    if len(run.results) < len(calls):
        at = (where[len(run.results)] if len(run.results) < len(where) else "after its last call") if run.loaded else "while prompt + canonical_solution loads"
        if run.limit == "cpu":
            raise Refused("the canonical solution did not finish within its CPU time limit at import, %s: stopped %s" % (_limit_text(cpu_ms, factor, cpu_s), at))
        if run.limit == "blocked":
            raise Refused("the canonical solution sleeps or waits instead of returning: %s, %s" % (run.stopped, at))
        if run.limit == "size":
            raise Refused("its expected outputs take more than the judge reads and compares for one problem (%d MB), %s" % (MAX_EXPECTED_BYTES // (1024 * 1024), at))
        raise Refused("its run in the sandbox ended %s: %s" % (at, run.stopped or "without its results"))
    if not evalplus:
        if not recorded:
            raise Refused("check(candidate) never calls the candidate")
        groups = [("check", recorded)]
        try:
            marshal.dumps(recorded)
        except ValueError:
            raise Refused("the test arguments are not plain data (None, bool, int, float, complex, str, bytes, list, tuple, dict, set)")
    data: dict = {"format": codec.EXPECTED_FORMAT, "task_id": task_id, "dataset": dataset, "entry_point": entry_point, "atol": atol, "groups": [g for g, _ in groups]}
    times: dict = {}
    walks: list = []
    k = 0
    size = len(marshal.dumps(calls))
    for g, inputs in groups:
        outs = outputs[k : k + len(inputs)]
        k += len(inputs)
        values = [o.value for o in outs]
        size += sum(o.size for o in outs)
        data[g + "_input"] = inputs
        data[g] = values
        # HumanEval's find_zero is judged by the polynomial's value (EvalPlus's special oracle);
        # check(candidate)'s own bound for it is 1e-4.
        g_atol = atol if (evalplus or atol or entry_point != "find_zero") else 1e-4
        data[g + "_atol"] = group_atols(g_atol, values, not (dataset == "humaneval" and entry_point == "find_zero"))
        data[g + "_digest"] = [o.digest for o in outs]
        data[g + "_ms"] = [o.ms for o in outs]
        times[g] = [o.ms for o in outs]
        walks += [o.walk_ms for o in outs if o.digest is not None]
    if size > MAX_EXPECTED_BYTES:
        raise Refused(
            "its expected outputs take %d MB, more than the judge reads and compares for one problem (%d MB; an answer may send twice its problem's outputs; "
            "an output over %d MB is kept as its digest only where == alone compares it: no float or complex number in it, no tolerance, no special oracle)"
            % (size // (1024 * 1024), MAX_EXPECTED_BYTES // (1024 * 1024), DIGEST_OVER_BYTES // (1024 * 1024))
        )
    if evalplus:
        for g, _ in groups:
            data[g + "_limit_ms"] = input_limits_ms(times[g], factor)
    try:
        blob = codec.encode_expected(data)
    except (TypeError, ValueError, RecursionError) as e:
        raise Refused("its expected outputs cannot be stored: %s" % _text(e))
    if len(blob) > MAX_FILE_BYTES:
        raise Refused("its expected outputs take %d MB as stored, more than an oracle reads (%d MB)" % (len(blob) // (1024 * 1024), MAX_FILE_BYTES // (1024 * 1024)))
    with open(req["out"], "wb") as f:
        f.write(blob)
    budget = sum(group_budget_ms(v, factor) for g, v in times.items() if g != "check")
    # The answer's harness walks its result of each digest-compared input as the import did:
    # charged to the answer, so its budget has room for it (EvalPlus's factor on the import's time).
    budget += sum(max(MIN_TIME_LIMIT_MS, GT_TIME_LIMIT_FACTOR * t / factor) for t in walks)
    return {
        "ok": True,
        "arity": arity,
        "returns": sorted({o.type for o in outputs}),
        "evalplus": evalplus,
        "tests": {g: len(inputs) for g, inputs in groups},
        "canonicalMs": {g: sum(v) for g, v in times.items()},
        "budgetMs": math.ceil(budget) if budget else None,
        "hostFactor": factor,
        "sha256": hashlib.sha256(blob).hexdigest(),
        "bytes": len(blob),
        "digests": sum(1 for o in outputs if o.digest is not None),
        "cpuMs": run.cpu_ms,
        "sandboxed": run.sandboxed,
    }


class Judge:
    """The judge package's parts this process uses, imported once its folder is on sys.path."""

    def __init__(self, parent: str) -> None:
        sys.path.insert(0, parent)
        from eddy_sandbox import isolation as iso  # noqa: E402
        from eddy_judge.budget import host_factor  # noqa: E402 (the judge's own calibration)
        from eddy_judge.candidate import close_zygote  # noqa: E402
        from eddy_sandbox.digest import DIGEST_SOURCE  # noqa: E402 (the same walk as the answer's harness)
        from eddy_judge.outputs import run_outputs, sandboxed  # noqa: E402

        self.iso = iso
        self.host_factor = host_factor
        self.close_zygote = close_zygote
        self.DIGEST_SOURCE = DIGEST_SOURCE
        self.run_outputs = run_outputs
        self.sandboxed = sandboxed


def main() -> None:
    # The reply stream gets a private copy of stdout; fd 1 becomes stderr, so that nothing else
    # written to it (a child's output) can corrupt the replies.
    proto = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    out = os.fdopen(proto, "w", encoding="utf-8")
    judge = Judge(sys.argv[1])
    try:
        # Same-uid processes (the no-namespace fallback) cannot read this process's memory.
        judge.iso.prctl(judge.iso.PR_SET_DUMPABLE, 0)
    except OSError:
        pass
    # Values come back from the sandbox up to 1000 deep; writing them recurses.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    inp = sys.stdin.buffer
    try:
        while True:
            line = inp.readline()
            if not line:
                break
            if not line.strip():
                continue
            try:
                reply = compute(json.loads(line), judge)
            except Refused as e:
                reply = {"ok": False, "error": " ".join(str(e).split())}
            except Exception as e:  # eddy's own failure around this problem: said, and the next one goes on
                reply = {"ok": False, "error": "the import failed on it: %s: %s" % (type(e).__name__, _text(e))}
            out.write(json.dumps(reply) + "\n")
            out.flush()
    finally:
        judge.close_zygote()


if __name__ == "__main__":
    main()
