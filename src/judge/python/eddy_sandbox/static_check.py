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
import sys
from types import CodeType
from typing import Literal

# Only on code that does not parse: names of `def` lines, one line at a time.
DEF_RE = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)[ \t]*\(([^)\n]*)\)?", re.M)
MODULE_NAMES = {"__name__", "__file__", "__doc__", "__builtins__", "__spec__", "__loader__", "__package__", "__annotations__"}
_TOO_BIG = (RecursionError, MemoryError, OverflowError)
# Taken once, where the module is loaded (the zygote): the check runs before any answer code, on
# the same builtins, and listing them in each candidate touched (and so copied) every page that
# holds one of their names.
_ALWAYS_BOUND = frozenset(MODULE_NAMES) | frozenset(dir(builtins))

# The verdict categories the check can say (the trusted side's categories.py checks each word as
# it comes back from the sandbox, never trusting it).
Verdict = tuple[Literal["no_function", "wrong_function_name", "wrong_arg_count", "syntax_error", "static_error"], str]


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
    unbound = unbound_names(code, fn, tree, compiled)
    del tree
    if unbound:
        return ("static_error", "undefined name%s: %s" % ("s" if len(unbound) > 1 else "", ", ".join(unbound[:5]))), None
    return None, compiled


# Where the code text holds one of these words (in code, a string or a comment), it may bind a name
# without a binding statement (a dict of its globals, the builtins module, exec), or swap what
# is called (a module's dict): no name is called undefined then.
_DYNAMIC = re.compile(
    r"\b(?:globals|locals|vars|exec|eval|builtins|__builtins__|__build_class__|__import__|importlib|modules|"
    r"__main__|__dict__|__globals__|__code__|f_globals|f_locals|f_builtins|_getframe|getmodule)\b"
)
_STAR_IMPORT = re.compile(r"\bimport\s*\*")
# From Python 3.14 (PEP 649) no annotation is evaluated where it stands.
_LAZY_ANNOTATIONS = sys.version_info >= (3, 14)
# Built-in classes a class may derive from with its body still run in a plain dict (no metaclass
# of their own, so no __prepare__ that could supply names).
_PLAIN_BASES = frozenset(n for n, v in vars(builtins).items() if type(v) is type)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_TRY: tuple[type[ast.Try], ...] = (ast.Try, getattr(ast, "TryStar", ast.Try))  # try/except* from 3.11
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")  # where a statement holds statements
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_NOT_CALLED = 0x20 | 0x80 | 0x100 | 0x200  # CO_GENERATOR, CO_COROUTINE, CO_ITERABLE_COROUTINE, CO_ASYNC_GENERATOR
_Scope = tuple[str, "symtable.SymbolTable | None"]


def unbound_names(code: str, fn: str | None = None, tree: ast.Module | None = None, compiled: CodeType | None = None) -> list[str]:
    """Names CPython would certainly fail to find (NameError): read on a path that runs every time
    the module loads (and, given fn, every time fn is called, up to its first return, raise or
    branch), and bound nowhere in the module (by any statement, in any branch or function) nor
    built in. Anything else an analysis cannot be sure of is left for the run to decide: code in
    branches, loops, handlers, `with` bodies, functions other than fn (called or not), annotations
    that are never evaluated (a function's local variables', or all of them under
    `from __future__ import annotations`), a class body a metaclass may supply names to, a module
    with a star import or a dynamic way to bind names. First-seen order, each name once; linear in
    the code."""
    try:
        top = symtable.symtable(code, "candidate.py", "exec")
    except (SyntaxError, ValueError) + _TOO_BIG:
        return []
    # One pass over the symbol tables: what the module binds (any statement, in any branch, or a
    # `global` in any function or class), and the names some scope reads from the globals that
    # nothing binds. Most code has none, and the walk below is skipped.
    tables: list[symtable.SymbolTable] = []
    stack = [top]
    while stack:
        t = stack.pop()
        tables.append(t)
        stack.extend(t.get_children())
    bound: dict[str, int] = {}
    for t in tables:
        for s in t.get_symbols():
            if (t is top or s.is_declared_global()) and (s.is_assigned() or s.is_imported() or s.is_namespace() or s.is_annotated()):
                # bound from inside a function or class (or a comprehension's walrus): not once
                name = s.get_name()
                bound[name] = max(bound.get(name, 0), 1 if t is top else 2)
    candidates: set[str] = set()
    for t in tables:
        kind = t.get_type()
        for s in t.get_symbols():
            name = s.get_name()
            if s.is_referenced() and name not in _ALWAYS_BOUND and name not in bound and (t is top or s.is_global()):
                if kind != "class" or not (s.is_assigned() or s.is_imported() or s.is_namespace() or s.is_annotated()):
                    candidates.add(name)
    if not candidates or _STAR_IMPORT.search(code) or _DYNAMIC.search(code):
        return []
    if tree is None:
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError) + _TOO_BIG:
            return []
    counts = _module_bindings(tree)
    for name, n in bound.items():
        counts[name] = counts[name] + n - 1 if name in counts else n
    eager = not _LAZY_ANNOTATIONS and not any(
        isinstance(n, ast.ImportFrom) and n.module == "__future__" and any(a.name == "annotations" for a in n.names) for n in tree.body
    )
    walk = _Certain(set(counts), counts, eager)
    walk.block(tree.body, ("module", top))
    node = _called_body(tree, fn, counts, code, compiled) if fn else None
    if node is not None:
        table = _child(top, "function", node.name, node.lineno)
        if table is not None:
            walk.block(node.body, ("function", table))
    return [name for name in walk.missing if name in candidates]


def _child(table: symtable.SymbolTable, kind: str, name: str, lineno: int) -> symtable.SymbolTable | None:
    """The one table under `table` for a def or class statement (None if it is not one only)."""
    found = [c for c in table.get_children() if c.get_type() == kind and c.get_name() == name and c.get_lineno() == lineno]
    return found[0] if len(found) == 1 else None


def _called_body(tree: ast.Module, fn: str, counts: dict[str, int], code: str, compiled: CodeType | None) -> ast.FunctionDef | None:
    """fn's def, where calling fn certainly runs its body: a plain top-level def (no decorator,
    not a generator or coroutine, no type parameters) and the module's only binding of the name."""
    if counts.get(fn) != 1:
        return None
    node = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == fn), None)
    if node is None or node.decorator_list or getattr(node, "type_params", None):
        return None
    try:
        if compiled is None:
            compiled = compile(code, "candidate.py", "exec")
    except (SyntaxError, ValueError) + _TOO_BIG:
        return None
    codes = [c for c in compiled.co_consts if isinstance(c, CodeType) and c.co_name == fn and c.co_firstlineno == node.lineno]
    if len(codes) != 1 or codes[0].co_flags & _NOT_CALLED:
        return None
    return node


def _module_bindings(tree: ast.Module) -> dict[str, int]:
    """How many statements and expressions of the module's own scope bind each name (function and
    class bodies left out: a `global` there is counted from the symbol tables)."""
    counts: dict[str, int] = {}

    def add(name: str | None) -> None:
        if name:
            counts[name] = counts.get(name, 0) + 1

    todo: list[ast.AST] = list(tree.body)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Name):
            if not isinstance(n.ctx, ast.Load):
                add(n.id)
            continue
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            add(n.name)
            todo.extend(n.decorator_list)
            if isinstance(n, ast.ClassDef):
                todo.extend(n.bases)
                todo.extend(n.keywords)
            else:
                todo.append(n.args)
            continue
        if isinstance(n, ast.Lambda):
            todo.append(n.args)
            continue
        if isinstance(n, ast.alias):
            add(n.asname or n.name.split(".")[0])
        elif isinstance(n, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
            add(n.name)
        elif isinstance(n, ast.MatchMapping):
            add(n.rest)
        todo.extend(ast.iter_child_nodes(n))
    return counts


def _escapes(stmt: ast.stmt) -> bool:
    """Whether control may leave stmt other than at its end or by an exception the code does not
    raise itself: a return, a raise, or a break or continue of a loop outside it. Statements only
    (an expression holds none), nested functions and classes left out."""
    todo: list[tuple[ast.AST, bool]] = [(stmt, False)]
    while todo:
        node, looped = todo.pop()
        if isinstance(node, (ast.Return, ast.Raise)) or (isinstance(node, (ast.Break, ast.Continue)) and not looped):
            return True
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            todo.extend((n, True) for n in node.body)
            todo.extend((n, looped) for n in node.orelse)
        elif not isinstance(node, _SCOPES):
            for field in _BLOCKS:
                todo.extend((n, looped) for n in getattr(node, field, ()))
    return False


class _Certain:
    """The reads on the path that certainly runs, each checked against its scope's symbol table."""

    def __init__(self, bound: set[str], counts: dict[str, int], eager: bool) -> None:
        self.bound = bound
        self.counts = counts
        self.eager = eager  # annotations at module and class level are evaluated where they stand
        self.plain_classes: set[str] = set()
        self.missing: dict[str, None] = {}

    def read(self, name: str, scope: _Scope) -> None:
        if name in self.missing or name in _ALWAYS_BOUND or name in self.bound or (name[:2] == "__" and name[-2:] == "__"):
            return
        if self.global_in(name, scope):
            self.missing[name] = None

    @staticmethod
    def global_in(name: str, scope: _Scope) -> bool:
        """Whether a read of name in this scope looks in the module's globals and the built-ins."""
        kind, table = scope
        if kind == "module" or table is None:
            return kind == "module"
        try:
            s = table.lookup(name)
        except KeyError:
            return False
        if not s.is_global():
            return False
        return kind != "class" or not (s.is_assigned() or s.is_imported() or s.is_namespace() or s.is_annotated())

    def expr(self, node: ast.AST | None, scope: _Scope) -> None:
        """The names an expression certainly reads: the first operand of `and`/`or`, a
        conditional's test, a comparison's first two operands, a comprehension's first iterable,
        a lambda's defaults, everything of the other expressions."""
        todo = [node] if node is not None else []
        while todo:
            n = todo.pop()
            if isinstance(n, ast.Name):
                if isinstance(n.ctx, ast.Load):
                    self.read(n.id, scope)
            elif isinstance(n, ast.BoolOp):
                todo.append(n.values[0])
            elif isinstance(n, ast.IfExp):
                todo.append(n.test)
            elif isinstance(n, ast.Compare):
                todo.append(n.comparators[0])
                todo.append(n.left)
            elif isinstance(n, ast.Lambda):
                todo.extend(d for d in reversed(n.args.kw_defaults) if d is not None)
                todo.extend(reversed(n.args.defaults))
            elif isinstance(n, _COMPREHENSIONS):
                todo.append(n.generators[0].iter)
            elif isinstance(n, ast.NamedExpr):
                todo.append(n.value)
            else:
                todo.extend(reversed(list(ast.iter_child_nodes(n))))

    def target(self, node: ast.expr, scope: _Scope) -> None:
        """What an assignment target evaluates: the object and index of an attribute or item."""
        todo = [node]
        while todo:
            n = todo.pop()
            if isinstance(n, ast.Attribute):
                self.expr(n.value, scope)
            elif isinstance(n, ast.Subscript):
                self.expr(n.value, scope)
                self.expr(n.slice, scope)
            elif isinstance(n, (ast.Tuple, ast.List)):
                todo.extend(reversed(n.elts))
            elif isinstance(n, ast.Starred):
                todo.append(n.value)

    def block(self, body: list[ast.stmt], scope: _Scope) -> bool:
        """Walk statements while each certainly runs; whether control certainly reaches the end."""
        for st in body:
            if not self.stmt(st, scope):
                return False
        return True

    def stmt(self, st: ast.stmt, scope: _Scope) -> bool:
        """Walk what one statement certainly evaluates; whether control certainly goes on after it."""
        if isinstance(st, ast.Expr):
            self.expr(st.value, scope)
        elif isinstance(st, ast.Assign):
            self.expr(st.value, scope)
            for x in st.targets:
                self.target(x, scope)
        elif isinstance(st, ast.AugAssign):
            self.target(st.target, scope)
            self.expr(st.value, scope)
        elif isinstance(st, ast.AnnAssign):
            self.expr(st.value, scope)
            self.target(st.target, scope)
            # A function's local annotations are never evaluated; the module's and a class's are,
            # unless `from __future__ import annotations` (or Python 3.14's lazy annotations).
            if self.eager and scope[0] != "function":
                self.expr(st.annotation, scope)
        elif isinstance(st, ast.Delete):
            for x in st.targets:
                self.target(x, scope)
        elif isinstance(st, ast.Assert):
            self.expr(st.test, scope)  # its message only when it fails
        elif isinstance(st, ast.Return):
            self.expr(st.value, scope)
            return False
        elif isinstance(st, (ast.Raise, ast.Break, ast.Continue)):
            return False
        elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(st, scope)
        elif isinstance(st, ast.ClassDef):
            self.klass(st, scope)
        elif isinstance(st, (ast.If, ast.While)):
            self.expr(st.test, scope)
            return not _escapes(st)
        elif isinstance(st, ast.For):
            self.expr(st.iter, scope)
            return not _escapes(st)
        elif isinstance(st, ast.With):
            for item in st.items:
                self.expr(item.context_expr, scope)
            return not _escapes(st)  # its body may end early, its exit may swallow an exception
        elif isinstance(st, _TRY):
            # The body only where no handler can take an exception from it (try/finally); the
            # finally block runs either way.
            if not st.handlers:
                self.block(st.body, scope)
            self.block(st.finalbody, scope)
            return not _escapes(st)
        elif isinstance(st, ast.Match):
            self.expr(st.subject, scope)
            return not _escapes(st)
        elif not isinstance(st, (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Pass)):
            return False  # anything else (async statements, newer syntax): stop here
        return True

    def function(self, st: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope) -> None:
        """What a def statement evaluates where it stands (its body is another matter)."""
        for x in st.decorator_list:
            self.expr(x, scope)
        a = st.args
        for x in a.defaults:
            self.expr(x, scope)
        for y in a.kw_defaults:
            self.expr(y, scope)
        if self.eager and not getattr(st, "type_params", None):
            for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
                if arg is not None:
                    self.expr(arg.annotation, scope)
            self.expr(st.returns, scope)

    def klass(self, st: ast.ClassDef, scope: _Scope) -> None:
        """A class statement: its decorators, bases and keywords, then its body, which runs there
        and then, where its namespace is certainly a plain dict (no keyword such as metaclass=,
        bases that are built-in classes or plain classes of the module's)."""
        for x in st.decorator_list:
            self.expr(x, scope)
        if getattr(st, "type_params", None):
            return
        for x in st.bases:
            self.expr(x, scope)
        for k in st.keywords:
            self.expr(k.value, scope)
        if st.keywords or not all(self.plain_base(b, scope) for b in st.bases):
            return
        kind, table = scope
        inner = _child(table, "class", st.name, st.lineno) if table is not None else None
        if inner is None:
            return
        self.block(st.body, ("class", inner))
        if kind == "module" and self.counts.get(st.name) == 1:
            self.plain_classes.add(st.name)

    def plain_base(self, base: ast.expr, scope: _Scope) -> bool:
        if not isinstance(base, ast.Name) or not self.global_in(base.id, scope):
            return False
        return base.id in self.plain_classes or (base.id in _PLAIN_BASES and base.id not in self.bound)
