"""Reads HumanEval-format problems for 'eddy import humaneval': the entry point's positional
argument count and the type of its answers. stdin: JSON list of problems; stdout: one JSON line."""

import inspect
import json
import sys
from typing import Any


def type_name(v: Any) -> str:
    if isinstance(v, list) and v and all(isinstance(r, list) for r in v):
        return "matrix"
    return "none" if v is None else type(v).__name__


def probe(p: dict[str, Any]) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "humaneval_solution"}
    try:
        exec(compile(p["prompt"] + p["canonical_solution"], "solution.py", "exec"), namespace)
    except Exception as e:
        raise ValueError("prompt + canonical_solution does not run: %s: %s" % (type(e).__name__, e))
    fn = namespace.get(p["entry_point"])
    if not callable(fn):
        raise ValueError("prompt + canonical_solution defines no function '%s'" % p["entry_point"])
    params = inspect.signature(fn).parameters.values()
    if any(q.kind in (q.VAR_POSITIONAL, q.VAR_KEYWORD) for q in params):
        raise ValueError("%s takes *args or **kwargs; eddy asks for a fixed argument count" % p["entry_point"])
    arity = sum(1 for q in params if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD))
    types: set[str] = set()

    def recording(*args: Any, **kwargs: Any) -> Any:
        result = fn(*args, **kwargs)
        types.add(type_name(result))
        return result

    test_ns: dict[str, Any] = {"__name__": "humaneval_test"}
    try:
        exec(compile(p["test"], "test.py", "exec"), test_ns)
        test_ns["check"](recording)
    except Exception as e:
        raise ValueError("the canonical solution fails check(candidate): %s: %s" % (type(e).__name__, str(e)[:200]))
    for args in (p.get("base_input") or []) + (p.get("plus_input") or []):
        try:
            types.add(type_name(fn(*args)))
        except Exception as e:
            raise ValueError("the canonical solution raises on input %s: %s: %s" % (json.dumps(args)[:80], type(e).__name__, e))
    return {"arity": arity, "returns": sorted(types)}


def main() -> None:
    out: list[dict[str, Any]] = []
    for p in json.load(sys.stdin):
        try:
            out.append(probe(p))
        except Exception as e:
            print(json.dumps({"ok": False, "error": "%s: %s" % (p["task_id"], " ".join(str(e).split()))}))
            return
    print(json.dumps({"ok": True, "problems": out}))


if __name__ == "__main__":
    main()
