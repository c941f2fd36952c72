"""Reads one Turbulence question folder for eddy's importer (trusted benchmark code, run once at import).

stdin: {"root": <benchmark folder>, "question": <n>, "function": <name>, "samples": <random inputs per tuple>,
        "reports": [<params_report.json of each published round, first round first>], "reportsRoot": <folder>}
stdout: {"ok": true, ...facts} or {"ok": false, "error": <one line>}

Facts: the recorded parameter tuples and where they came from, the solution's positional
argument names, whether any answer of the model solution holds a float, the type of its
answers, and whether input_generator() returns tuples (argument spreading).
"""

import ast
import contextlib
import importlib.util
import io
import json
import os
import random
import re
import signal
import sys

TIMEOUT_S = 20


class Failure(Exception):
    pass


def instantiate(template, values):
    # Turbulence's own rule: $0, $1, ... replaced in ascending order by str(value).
    for i, v in enumerate(values):
        template = template.replace("$%d" % i, str(v))
    return template


def as_json_value(v, where):
    if isinstance(v, bool) or isinstance(v, (int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return [as_json_value(x, where) for x in v]
    raise Failure("%s: parameter value %r is not a number, string, boolean or list" % (where, v))


def parse_line(line, where):
    line = line.strip()
    try:
        value = ast.literal_eval(line)
    except (ValueError, SyntaxError):
        # manually_chosen_params.txt: whitespace-separated values
        value = tuple(literal_or_text(tok) for tok in line.split())
    if not isinstance(value, (list, tuple)):
        value = (value,)
    return [as_json_value(v, where) for v in value]


def literal_or_text(tok):
    try:
        return ast.literal_eval(tok)
    except (ValueError, SyntaxError):
        return tok


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line for line in f.read().splitlines() if line.strip()]


def report_params(entry):
    """One params_report.json entry: the tuple, or [tuple, metrics...] for correct responses (v1 reports)."""
    if not isinstance(entry, list):
        return [entry] if isinstance(entry, (int, float, str, bool)) else None
    with_metrics = len(entry) >= 2 and isinstance(entry[0], list) and any(isinstance(x, dict) for x in entry[1:])
    return list(entry[0]) if with_metrics else list(entry)


def published_params(reports, root):
    """The published neighbourhood: every Folder_c of each round's params_report.json, in folder order (first round first)."""
    tuples, seen = [], set()
    for path in reports:
        rel = os.path.relpath(path, root)
        try:
            with open(path, encoding="utf-8") as f:
                report = json.load(f)
        except (OSError, ValueError) as e:
            raise Failure("%s does not read as JSON: %s" % (rel, exc_line(e)))
        folders = {}
        for side in ("correct", "wrong"):
            entries = report.get(side) if isinstance(report, dict) else None
            if isinstance(entries, dict):
                for key, entry in entries.items():
                    m = re.match(r"^Folder_(\d+)$", key)
                    params = report_params(entry)
                    if m and params is not None:
                        folders[int(m.group(1))] = as_json_value(params, "%s %s" % (rel, key))
        for c in sorted(folders):
            key = json.dumps(folders[c])
            if key not in seen:
                seen.add(key)
                tuples.append(folders[c])
    later = len(reports) - 1
    source = os.path.relpath(reports[0], root) + (" (and %d later round(s))" % later if later else "")
    return tuples, source


def recorded_params(qdir, root, n):
    """The neighbourhood as Turbulence recorded it: all_params.txt, else genparams.py, else manually_chosen_params.txt."""
    candidates = [os.path.join(qdir, "all_params.txt")]
    for d in sorted(os.listdir(qdir)):
        if "_results_" in d and os.path.isdir(os.path.join(qdir, d)):
            candidates.append(os.path.join(qdir, d, "all_params.txt"))
    for path in candidates:
        if os.path.isfile(path):
            rel = os.path.relpath(path, root)
            return [parse_line(l, "%s line %d" % (rel, i + 1)) for i, l in enumerate(read_lines(path))], rel
    gen = os.path.join(qdir, "genparams.py")
    if os.path.isfile(gen):
        cwd = os.getcwd()
        os.chdir(root)  # gen_params opens Q<n>/manually_chosen_params.txt relative to the benchmark folder
        try:
            mod = load_module("genparams", gen)
            with contextlib.redirect_stdout(io.StringIO()):
                rows = mod.gen_params(n, "default")
        except Failure:
            raise
        except BaseException as e:
            raise Failure("Q%d/genparams.py failed: %s" % (n, exc_line(e)))
        finally:
            os.chdir(cwd)
        return [as_json_value(list(r) if isinstance(r, (list, tuple)) else [r], "Q%d/genparams.py" % n) for r in rows], "Q%d/genparams.py" % n
    manual = os.path.join(qdir, "manually_chosen_params.txt")
    if os.path.isfile(manual):
        return [parse_line(l, "Q%d/manually_chosen_params.txt line %d" % (n, i + 1)) for i, l in enumerate(read_lines(manual))], "Q%d/manually_chosen_params.txt" % n
    raise Failure("Q%d has no recorded parameters (all_params.txt, genparams.py or manually_chosen_params.txt)" % n)


def load_module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise Failure("%s cannot be loaded as a module" % os.path.basename(path))
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
    except BaseException as e:
        raise Failure("%s does not load: %s" % (os.path.basename(path), exc_line(e)))
    return mod


def exc_line(e):
    text = ("%s: %s" % (type(e).__name__, e)).strip()
    return text.splitlines()[0][:300] if text else type(e).__name__


def positional_names(source, function, where):
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        raise Failure("%s does not parse: %s (line %s)" % (where, e.msg, e.lineno))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            a = node.args
            return [p.arg for p in list(a.posonlyargs) + list(a.args)], bool(a.vararg)
    raise Failure("%s defines no top-level function '%s' (the name quoted in question.txt.template)" % (where, function))


def contains_float(v, depth=0):
    if depth > 20:
        return False
    if isinstance(v, float):
        return True
    if isinstance(v, (list, tuple, set, frozenset)):
        return any(contains_float(x, depth + 1) for x in v)
    if isinstance(v, dict):
        return any(contains_float(x, depth + 1) for x in v.values())
    return False


def type_name(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, list) and v and all(isinstance(x, list) for x in v):
        return "matrix"
    if v is None:
        return "none"
    return type(v).__name__


def on_alarm(signum, frame):
    raise TimeoutError("took longer than %ss" % TIMEOUT_S)


def main():
    req = json.loads(sys.stdin.read())
    root, n, function = req["root"], int(req["question"]), req["function"]
    qdir = os.path.join(root, "Q%d" % n)
    reports = req.get("reports") or []
    if reports:
        tuples, source = published_params(reports, req.get("reportsRoot") or root)
    else:
        tuples, source = recorded_params(qdir, root, n)
    if not tuples:
        raise Failure("Q%d: the recorded parameter list (%s) is empty" % (n, source))
    with open(os.path.join(qdir, "solution.py.template"), encoding="utf-8") as f:
        solution_template = f.read()
    names, vararg = positional_names(instantiate(solution_template, tuples[0]), function, "Q%d/solution.py.template" % n)
    generator = load_module("gen_function_params", os.path.join(qdir, "gen_function_params.py"))
    if not callable(getattr(generator, "input_generator", None)):
        raise Failure("Q%d/gen_function_params.py defines no input_generator(l, seed)" % n)

    signal.signal(signal.SIGALRM, on_alarm)
    floats, tuple_lengths, types = False, set(), set()
    samples = int(req.get("samples", 3))
    for k, params in enumerate(tuples):
        where = "Q%d tuple %d %s" % (n, k + 1, json.dumps(params))
        src = instantiate(solution_template, params)
        ns = {"__name__": "turbulence_solution"}
        signal.alarm(TIMEOUT_S)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(src, "solution.py", "exec"), ns)
                fn = ns.get(function)
                if not callable(fn):
                    raise Failure("%s: the model solution defines no '%s'" % (where, function))
                for s in range(samples):
                    r = generator.input_generator(list(params), 1000 * k + s + 1)
                    if isinstance(r, tuple):
                        tuple_lengths.add(len(r))
                    args = (r,) if req.get("arguments") == "single" else tuple(r) if (req.get("arguments") == "list" or isinstance(r, tuple)) else (r,)
                    out = fn(*args)
                    floats = floats or contains_float(out)
                    types.add(type_name(out))
        except Failure:
            raise
        except BaseException as e:
            raise Failure("%s: the model solution does not run: %s" % (where, exc_line(e)))
        finally:
            signal.alarm(0)
    print(json.dumps({
        "ok": True,
        "tuples": tuples,
        # str() of every value, as Turbulence writes it into the question: 974.0 stays 974.0.
        "texts": [[str(v) for v in t] for t in tuples],
        "floatPositions": sorted({i for t in tuples for i, v in enumerate(t) if contains_float(v)}),
        "paramsSource": source,
        "argNames": names,
        "vararg": vararg,
        "floats": floats,
        "tupleLengths": sorted(tuple_lengths),
        "returnTypes": sorted(types),
    }))


if __name__ == "__main__":
    random.seed(0)
    try:
        main()
    except Failure as e:
        print(json.dumps({"ok": False, "error": str(e)}))
    except BaseException as e:  # a bug here or in the benchmark's own code: still one line
        print(json.dumps({"ok": False, "error": exc_line(e)}))
