"""The answer languages the judge knows, read once at start-up from eddy's language registry.

src/languages/languages.json names them, one line each, and the default (the language of a
request that names none); each has a folder there, src/languages/<name>/, whose language.json says
what the judge needs of it: its runtime (the command, its Debian package, the flags before the
harness file, the address space it needs, what it reads at start-up, how it says it ran out of
memory) and how a reference answer calls the hand-written translation of an oracle's solution; its
harness (harness.<ext>) runs the answer in the sandbox (eddy_sandbox/relay.py). The one language
without a runtime is the judge's own: its answers run in the sandbox's Python, and its reference
answers are the oracle's own functions (references.py). Nothing else in the judge names a language.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, NamedTuple

from eddy_sandbox.relay import Foreign

from .oracle import OracleError
from .protocol import short

# src/judge/python/eddy_judge → src/languages (shipped beside the judge: package.json `files`, the kit).
REGISTRY = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "languages"))
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_EXT = re.compile(r"^[a-z0-9]+$")
_PLACEHOLDER = re.compile(r"\{(solution|function|parameters|arguments)\}")


class RegistryError(Exception):
    """The language registry is missing or malformed: the judge cannot start."""


class Runtime(NamedTuple):
    """(A NamedTuple: `dataclasses` would load `inspect`, issue #36.)"""

    binary: str  # the runtime's command, found on PATH by runtime_path
    package: str  # the Debian package that provides it
    ext: str  # the extension of the language's files (harness, answer, translations)
    flags: tuple[str, ...]  # arguments before the harness file; {mb} is the answer's memory budget
    vm_mb: int  # address space the runtime needs on top of the answer's memory budget
    binds: tuple[str, ...]  # read-only paths the runtime reads besides /usr/lib (bound when present)
    resource_words: tuple[str, ...]  # how it says it ran out of memory or stack, where the harness cannot


class Reference(NamedTuple):
    """How a reference answer in the language calls the translation's `solution` (references.py)."""

    parameter: str  # one parameter as the language writes it: {name} in it
    bindings: str  # "json": the bindings as one JSON object, always; "named": `name: literal` pairs, when any
    answer: str  # the answer: {solution}, {function}, {parameters}, {arguments} in it


class Language(NamedTuple):
    name: str
    folder: str
    runtime: Runtime | None  # None: the judge's own language
    reference: Reference | None


def _fail(where: str, what: str) -> RegistryError:
    return RegistryError("eddy's language registry: %s %s" % (where, what))


def _strings(d: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    v = d.get(key)
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise _fail(where, "has no list of strings %r" % key)
    return tuple(v)


def _string(d: dict[str, Any], key: str, where: str) -> str:
    v = d.get(key)
    if not isinstance(v, str) or not v:
        raise _fail(where, "has no %r" % key)
    return v


def _read(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        raise _fail(path, "cannot be read (%s)" % e) from None
    if not isinstance(d, dict):
        raise _fail(path, "is not a JSON object")
    return d


def _language(folder: str, name: str) -> Language:
    where = os.path.join(folder, "language.json")
    d = _read(where)
    rt, ref = d.get("runtime"), d.get("reference")
    if rt is None:
        if ref is not None:
            raise _fail(where, "has a reference but no runtime: the judge's own language's reference answers are the oracle's own")
        return Language(name, folder, None, None)
    if not isinstance(rt, dict) or not isinstance(ref, dict):
        raise _fail(where, "needs both a runtime and a reference (or neither: the judge's own language)")
    ext = _string(rt, "ext", where)
    vm_mb = rt.get("vmMb")
    if not _EXT.match(ext) or type(vm_mb) is not int or vm_mb < 0:
        raise _fail(where, "has a bad ext or vmMb")
    runtime = Runtime(_string(rt, "binary", where), _string(rt, "package", where), ext, _strings(rt, "flags", where), vm_mb, _strings(rt, "binds", where), _strings(rt, "resourceWords", where))
    bindings = _string(ref, "bindings", where)
    if bindings not in ("json", "named"):
        raise _fail(where, "has reference bindings %r (json or named)" % bindings)
    reference = Reference(_string(d, "parameter", where), bindings, _string(ref, "answer", where))
    if not os.path.isfile(os.path.join(folder, "harness." + ext)):
        raise _fail(folder, "has no harness.%s" % ext)
    return Language(name, folder, runtime, reference)


def load(root: str = REGISTRY) -> tuple[str, dict[str, Language]]:
    """(the default language, every language by name, in the registry's order)."""
    d = _read(os.path.join(root, "languages.json"))
    names = _strings(d, "languages", os.path.join(root, "languages.json"))
    default = d.get("default")
    out: dict[str, Language] = {}
    for name in names:
        if not _NAME.match(name) or name in out:
            raise _fail(os.path.join(root, "languages.json"), "names %r twice or badly" % name)
        out[name] = _language(os.path.join(root, name), name)
    if default not in out:
        raise _fail(os.path.join(root, "languages.json"), "has a default that is not one of its languages")
    if sum(1 for lang in out.values() if lang.runtime is None) != 1:
        raise _fail(os.path.join(root, "languages.json"), "needs exactly one language without a runtime (the judge's own)")
    return str(default), out


DEFAULT, LANGUAGES = load()
# The judge's own language: answers run in the sandbox's Python, references are the oracle's own functions.
NATIVE = next(lang.name for lang in LANGUAGES.values() if lang.runtime is None)


def language_of(req: dict[str, Any]) -> Language:
    """The language a request names (`language`), or the default; OracleError for another."""
    name = req.get("language") or DEFAULT
    lang = LANGUAGES.get(name) if isinstance(name, str) else None
    if lang is None:
        raise OracleError("the judge knows no language %r" % short(name, 40))
    return lang


def runtime_path(binary: str) -> str | None:
    """The runtime's real path on this machine, or None. EDDY_RUNTIME_PATH (folders, colon-separated)
    replaces where runtimes are looked for (tests use it to show a missing one)."""
    for d in os.environ.get("EDDY_RUNTIME_PATH", "/usr/local/bin:/usr/bin:/bin").split(":"):
        p = os.path.join(d, binary)
        if os.access(p, os.X_OK):
            return os.path.realpath(p)
    return None


def runtimes() -> dict[str, str | None]:
    """Where each language with a runtime of its own finds it here (None: not installed)."""
    return {lang.name: runtime_path(lang.runtime.binary) for lang in LANGUAGES.values() if lang.runtime is not None}


_harnesses: dict[str, str] = {}


def foreign(lang: Language, binary: str) -> Foreign:
    """What a job tells the sandbox of another language's runtime (eddy_sandbox/relay.py)."""
    rt = lang.runtime
    assert rt is not None
    if lang.name not in _harnesses:
        with open(os.path.join(lang.folder, "harness." + rt.ext), encoding="utf-8") as f:
            _harnesses[lang.name] = f.read()
    return Foreign(lang.name, binary, _harnesses[lang.name], rt.ext, rt.flags, rt.vm_mb, rt.resource_words)


def _named_literal(v: Any) -> str:
    """A binding's value as Ruby's keyword arguments and PHP's named arguments write it (they read alike)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(_named_literal(x) for x in v) + "]"
    if isinstance(v, str):
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return repr(v)


def reference_answer(lang: Language, solution: str, fn: str, arity: int, bindings: dict[str, Any]) -> str:
    """The translation's source `solution` wrapped as an answer defining `fn`, which calls its
    `solution` with the answer's arguments and the instance's bindings."""
    ref = lang.reference
    assert ref is not None
    params = [ref.parameter.replace("{name}", "arg%d" % k) for k in range(arity)]
    if ref.bindings == "json":
        extra = [json.dumps(bindings)]
    else:
        kw = ", ".join("%s: %s" % (k, _named_literal(v)) for k, v in bindings.items())
        extra = [kw] if kw else []
    parts = {"solution": solution, "function": fn, "parameters": ", ".join(params), "arguments": ", ".join(params + extra)}
    return _PLACEHOLDER.sub(lambda m: parts[m.group(1)], ref.answer)
