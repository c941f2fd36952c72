"""Checks decided without running anything, in SPEC order (no_function … static_error).

Runs inside the candidate's sandboxed process, under its rlimits and before any candidate code,
so that parsing hostile code (huge, deeply nested) costs the sandbox's time and memory, never the
trusted worker's. Every step is linear in the size of the code.
"""

from __future__ import annotations

import ast
import builtins
import math
import re
import symtable
from types import CodeType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the zygote runs this module without the categories module: types only
    from .categories import Category

# Only on code that does not parse: names of `def` lines, one line at a time.
DEF_RE = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)[ \t]*\(([^)\n]*)\)?", re.M)
MODULE_NAMES = {"__name__", "__file__", "__doc__", "__builtins__", "__spec__", "__loader__", "__package__", "__annotations__"}
_TOO_BIG = (RecursionError, MemoryError, OverflowError)
# Taken once, where the module is loaded (the zygote): the check runs before any answer code, on
# the same builtins, and listing them in each candidate touched (and so copied) every page that
# holds one of their names.
_ALWAYS_BOUND = frozenset(MODULE_NAMES) | frozenset(dir(builtins))

Verdict = tuple["Category", str]


def _arity_ok(args: ast.arguments, arity: int) -> tuple[bool, int]:
    pos = list(args.posonlyargs) + list(args.args)
    required = len(pos) - len(args.defaults)
    most = math.inf if args.vararg else len(pos)
    kw_required = [k for k, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]
    return required <= arity <= most and not kw_required, len(pos)


def _from_def_lines(code: str, fn: str, arity: int, syntax: BaseException) -> Verdict:
    defs = DEF_RE.findall(code)
    if not defs:
        return ("no_function", "no function definition found")
    names = [d[0] for d in defs]
    if fn not in names:
        return ("wrong_function_name", "expected a function named %s; found %s" % (fn, ", ".join(names[:5])))
    sig = next(d[1] for d in defs if d[0] == fn)
    try:
        fake = ast.parse("def f(%s): pass" % sig).body[0]
        if isinstance(fake, ast.FunctionDef):
            ok, n = _arity_ok(fake.args, arity)
            if not ok:
                return ("wrong_arg_count", "%s takes %d argument(s); expected %d" % (fn, n, arity))
    except (SyntaxError, ValueError) + _TOO_BIG:
        pass
    line = getattr(syntax, "lineno", None)
    msg = getattr(syntax, "msg", None) or str(syntax)
    return ("syntax_error", ("line %s: %s" % (line, msg)) if line else msg)


def precheck(code: str, fn: str, arity: int) -> tuple[Verdict | None, CodeType | None]:
    """(verdict, None) when the code cannot run; (None, compiled code) when it may."""
    try:
        tree = ast.parse(code)
    except _TOO_BIG:
        return ("static_error", "the code is too large or too deeply nested for the judge to analyse"), None
    except (SyntaxError, ValueError) as e:
        return _from_def_lines(code, fn, arity, e), None
    top: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            top[node.name] = node
    if not top and not any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) for n in ast.walk(tree)):
        return ("no_function", "no function definition found"), None
    if fn not in top:
        return ("wrong_function_name", "expected a function named %s; found %s" % (fn, ", ".join(list(top)[:5]) or "no top-level function")), None
    ok, n = _arity_ok(top[fn].args, arity)
    if not ok:
        return ("wrong_arg_count", "%s takes %d argument(s); expected %d" % (fn, n, arity)), None
    try:
        # From the source, not the tree: the same code object (and the same errors), without
        # converting every node of the tree back to C (30 µs against 56 µs for a typical answer,
        # measured in a warm process).
        compiled = compile(code, "candidate.py", "exec")
    except _TOO_BIG:
        return ("static_error", "the code is too large or too deeply nested for the judge to analyse"), None
    except (SyntaxError, ValueError) as e:
        line = getattr(e, "lineno", None)
        return ("syntax_error", ("line %s: %s" % (line, getattr(e, "msg", e))) if line else str(e)), None
    del tree
    unbound = unbound_names(code)
    if unbound:
        return ("static_error", "undefined name%s: %s" % ("s" if len(unbound) > 1 else "", ", ".join(unbound[:5]))), None
    return None, compiled


def unbound_names(code: str) -> list[str]:
    """Names read somewhere that nothing binds: not the module, not a builtin, not a closure.
    One pass over the symbol tables; `missing` keeps first-seen order in a dict (linear)."""
    try:
        top = symtable.symtable(code, "candidate.py", "exec")
    except (SyntaxError, ValueError) + _TOO_BIG:
        return []
    if "import *" in code or "import*" in code:
        return []  # a star import binds names we cannot see
    bound: set[str] = set()
    tables: list[symtable.SymbolTable] = []
    stack = [top]
    while stack:
        t = stack.pop()
        tables.append(t)
        stack.extend(t.get_children())
    for t in tables:
        for s in t.get_symbols():
            binds = s.is_assigned() or s.is_imported() or s.is_namespace()
            if binds and (t is top or s.is_declared_global()):
                bound.add(s.get_name())
    missing: dict[str, None] = {}
    for t in tables:
        kind = t.get_type()
        for s in t.get_symbols():
            if not s.is_referenced():
                continue
            name = s.get_name()
            if name in _ALWAYS_BOUND or name in bound or name in missing:
                continue
            if t is top or kind == "class" or s.is_global():
                if t is not top and (s.is_local() and not s.is_global()):
                    continue
                if kind == "class" and (s.is_assigned() or s.is_imported() or s.is_namespace() or s.is_free()):
                    continue
                missing[name] = None
    return list(missing)
