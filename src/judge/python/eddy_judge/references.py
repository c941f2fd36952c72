"""Reference answers rendered from an oracle: solution() or a mutant_*() as an answer defining the
required function, or the hand-written translation of solution() into another language."""

from __future__ import annotations

import inspect
import json
import os
import textwrap
from typing import Any

from . import oracle
from .languages import RUNTIMES
from .oracle import OracleError
from .prepare import load_oracle
from .protocol import short


def answer_source(req: dict[str, Any]) -> str:
    """solution() or a mutant_*() rendered as an answer defining the required function."""
    lang = req.get("language") or "python"
    if lang != "python":
        return translated_source(req, str(lang))
    mod = load_oracle(req["oracle"], req["oracleHash"])
    which = req.get("which") or "solution"
    ref = getattr(mod, which, None)
    if not callable(ref) or not (which == "solution" or which.startswith("mutant_")):
        raise OracleError("oracle %s has no %s()" % (os.path.basename(req["oracle"]), which))
    src = textwrap.dedent(inspect.getsource(ref))
    params = [p.name for p in inspect.signature(ref).parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    arity = int(req["arity"])
    args = params[:arity] + ["arg%d" % k for k in range(len(params), arity)]
    kw = ", ".join("%s=%r" % (k, v) for k, v in req["bindings"].items())
    call = ", ".join(args + ([kw] if kw else []))
    return "%s\n\n_ref = %s\n\n\ndef %s(%s):\n    return _ref(%s)\n" % (src.rstrip(), which, req["function"], ", ".join(args), call)


def translation_path(oracle: str, lang: str) -> str:
    """Where the hand-written translation of an oracle's solution into `lang` lives."""
    rt = RUNTIMES[lang]
    base = os.path.splitext(os.path.basename(oracle))[0]
    return os.path.join(os.path.dirname(oracle), "translations", "%s.%s" % (base, rt.ext))


def _ruby_literal(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(_ruby_literal(x) for x in v) + "]"
    if isinstance(v, str):
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return repr(v)


def translated_source(req: dict[str, Any], lang: str) -> str:
    """The hand-written translation's `solution`, wrapped as an answer defining the required function."""
    if lang not in RUNTIMES:
        raise OracleError("the judge knows no language %r" % short(lang, 40))
    which = req.get("which") or "solution"
    path = translation_path(req["oracle"], lang)
    if which != "solution" or not os.path.isfile(path):
        raise OracleError("oracle %s has no %s translation of %s()" % (os.path.basename(req["oracle"]), lang, which))
    with open(path, encoding="utf-8") as f:
        src = f.read().rstrip()
    fn = str(req["function"])
    args = ", ".join("arg%d" % k for k in range(int(req["arity"])))
    bindings: dict[str, Any] = req["bindings"]
    if lang == "javascript":
        kw = json.dumps(bindings)
        return "%s\n\nfunction %s(%s) {\n    return solution(%s);\n}\n" % (src, fn, args, ", ".join(([args] if args else []) + [kw]))
    # Ruby's keyword arguments and PHP's named arguments read alike; so do these literals.
    kw = ", ".join("%s: %s" % (k, _ruby_literal(v)) for k, v in bindings.items())
    if lang == "php":
        args = ", ".join("$arg%d" % k for k in range(int(req["arity"])))
        return "%s\n\nfunction %s(%s) {\n    return solution(%s);\n}\n" % (src, fn, args, ", ".join(([args] if args else []) + ([kw] if kw else [])))
    return "%s\n\ndef %s(%s)\n  solution(%s)\nend\n" % (src, fn, args, ", ".join(([args] if args else []) + ([kw] if kw else [])))


def mutants(req: dict[str, Any]) -> list[str]:
    mod = load_oracle(req["oracle"], req["oracleHash"])
    found: list[tuple[int, str]] = []
    for name in oracle.mutant_names(mod):
        try:
            line = inspect.getsourcelines(getattr(mod, name))[1]
        except (OSError, TypeError):
            line = 0
        found.append((line, name))
    return [n for _, n in sorted(found)]
