"""The verdict categories the judge may return, in the order it checks them (SPEC §2).

The same words as `src/vocabulary.ts` (MODEL_CATEGORIES, then HARNESS_CATEGORIES); a test holds the
two lists equal, and pyright holds every category the worker returns to this Literal.
"""

from __future__ import annotations

from typing import Literal, get_args

Category = Literal[
    "no_function",
    "wrong_function_name",
    "wrong_arg_count",
    "syntax_error",
    "static_error",
    "resource_exhaustion",
    "runtime_error",
    "assertion_error",
    "fuzzing_failure",
    "passed",
    "truncated",
    "judge_error",
]

CATEGORIES: tuple[Category, ...] = get_args(Category)


def as_category(word: str) -> Category | None:
    """The category named `word`, or None when it is not one (a reply from the sandbox is checked, never trusted)."""
    for c in CATEGORIES:
        if c == word:
            return c
    return None
