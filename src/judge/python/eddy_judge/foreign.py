"""Answers in other languages: the runtime and harness for one, and its answers read back as
Python values beside the expected ones (wire.py)."""

from __future__ import annotations

from typing import Any

from eddy_sandbox.digest import NO_DIGEST
from eddy_sandbox.relay import Foreign

from .candidate import Run, read_results
from .compare import Opaque
from .languages import foreign, language_of, runtime_path
from .oracle import OracleError
from .prepare import Prepared
from .wire import WireError, WireFlood, read_answer


def foreign_runtime(req: dict[str, Any]) -> Foreign | None:
    """The runtime and harness of an answer in another language (languages.py); None for one in the
    judge's own."""
    lang = language_of(req)
    rt = lang.runtime
    if rt is None:
        return None
    binary = runtime_path(rt.binary)
    if binary is None:
        raise OracleError("%s answers need %s, which is not installed: install Debian's %s package" % (lang.name, rt.binary, rt.package))
    return foreign(lang, binary)


def read_foreign(run: Run, p: Prepared) -> None:
    """Another language's answers, read as Python values beside the expected ones (wire.py)."""
    if run.pre is not None or run.too_large or run.tamper is not None:
        return
    read_results(run)
    for i in sorted(run.results):
        if not read_foreign_one(run, p, i):
            return


def read_foreign_one(run: Run, p: Prepared, i: int) -> bool:
    """Result i (already read from its frame) as a Python value, where it is not yet; False when
    it is malformed (the results from i on are then dropped, and the channel is broken)."""
    if i in run.converted or i not in run.results:
        return True
    tag, a, b = run.results[i]
    run.converted.add(i)
    if tag != "r":
        return True
    by_digest = p.digest_calls is not None and i in p.digest_calls
    try:
        # A digest-compared call's value is its digest, taken on the answer's side (eddy_sandbox/relay.py).
        value, after, shared = read_answer(str(a), str(b), None if by_digest else p.expected[i], p.calls[i])
    except WireFlood as e:
        # Keys that hash alike, refused before any set or dict was built: the answer's cost.
        run.results[i] = ("e", "resource", str(e))
        return True
    except (WireError, IndexError) as e:
        run.broken = "result %d: %s" % (i + 1, e)
        run.results = {k: v for k, v in run.results.items() if k < i}
        return False
    if by_digest:
        run.results[i] = ("r", value if type(value) is str and (value.startswith("sha256:") or value == NO_DIGEST) else NO_DIGEST, after)
    elif isinstance(value, Opaque):
        run.results[i] = ("o", value.text, after)
    else:
        run.results[i] = ("r", value, after)
    if shared:
        run.shared.add(i)
    return True
