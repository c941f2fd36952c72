"""Reference answers rendered from an oracle: solution() or a mutant_*() as an answer defining the
required function, or the hand-written translation of solution() into another language, wrapped
as its registry entry says (languages.py)."""

from __future__ import annotations

import inspect
import os
import textwrap
from typing import Any

from . import oracle
from .languages import Language, language_of, reference_answer
from .oracle import OracleError
from .prepare import load_oracle


def answer_source(req: dict[str, Any]) -> str:
    """solution() or a mutant_*() rendered as an answer defining the required function."""
    lang = language_of(req)
    if lang.reference is not None:
        return translated_source(req, lang)
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


def translation_path(oracle: str, lang: Language) -> str:
    """Where the hand-written translation of an oracle's solution into `lang` lives."""
    assert lang.runtime is not None
    base = os.path.splitext(os.path.basename(oracle))[0]
    return os.path.join(os.path.dirname(oracle), "translations", "%s.%s" % (base, lang.runtime.ext))


def translated_source(req: dict[str, Any], lang: Language) -> str:
    """The hand-written translation's `solution`, wrapped as an answer defining the required function."""
    which = req.get("which") or "solution"
    path = translation_path(req["oracle"], lang)
    if which != "solution" or not os.path.isfile(path):
        raise OracleError("oracle %s has no %s translation of %s()" % (os.path.basename(req["oracle"]), lang.name, which))
    with open(path, encoding="utf-8") as f:
        src = f.read().rstrip()
    return reference_answer(lang, src, str(req["function"]), int(req["arity"]), req["bindings"])


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
