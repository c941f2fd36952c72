"""What the static check (eddy_sandbox/static_check.py) said of each code text this worker has had checked.

The check runs in the candidate's sandbox, where parsing hostile code costs the sandbox's time
and memory; what it decides depends on the code text, the function's name and its arity alone.
So a code text the check passed skips it in later sandboxes (it is still compiled there), and one
it refused is refused again without a sandbox at all: the same answer to another instance of the
template, or again after a verdict-cache miss. A refusal about the judge's own limits (too large
or too deeply nested to analyse within the sandbox's memory, which the template's budget sets) is
not remembered: it is checked again each time.
"""

from __future__ import annotations

import hashlib

from .categories import Category

# Refusals decided by the code text alone (static_check.precheck), remembered as they were said.
_SETTLED = ("no_function", "wrong_function_name", "wrong_arg_count", "syntax_error")
_UNDEFINED = "undefined name"
# A bound on memory: the table starts again when full (a miss only costs the check again).
MAX_ENTRIES = 4096

Refusal = tuple[Category, str]

_seen: dict[bytes, Refusal | None] = {}


def _key(code: str, fn: str, arity: int) -> bytes:
    h = hashlib.blake2b(digest_size=20)
    h.update(b"%d\0%s\0" % (arity, fn.encode("utf-8", "surrogatepass")))
    h.update(code.encode("utf-8", "surrogatepass"))
    return h.digest()


def lookup(code: str, fn: str, arity: int) -> tuple[bool, Refusal | None]:
    """(known, refusal): known is False when this code has not been checked here yet; a known
    code with no refusal passed the check."""
    k = _key(code, fn, arity)
    if k not in _seen:
        return False, None
    return True, _seen[k]


def remember(code: str, fn: str, arity: int, refusal: Refusal | None) -> None:
    """Record what a sandbox's static check said (None: passed). Refusals that depend on the
    judge's limits rather than the code are left out."""
    if refusal is not None and not (refusal[0] in _SETTLED or (refusal[0] == "static_error" and refusal[1].startswith(_UNDEFINED))):
        return
    if len(_seen) >= MAX_ENTRIES:
        _seen.clear()
    _seen[_key(code, fn, arity)] = refusal


def forget() -> None:
    """Empty the table (tests)."""
    _seen.clear()
