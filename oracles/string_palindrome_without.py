"""Oracle for string_palindrome_without: a palindrome test after deleting two characters."""


def solution(s, *, a, b):
    kept = "".join(ch for ch in s if ch != a and ch != b)
    return kept == kept[::-1]


def tests(*, a, b):
    # Fillers are uppercase, so never equal to a or b (both lowercase).
    yield ("",), True
    yield (a + b + a,), True
    yield (a + "X",), True                       # "X" is left
    yield ("XY" + a,), False
    yield ("X" + a + "YX",), True
    yield ("X" + b + "Y" + "X",), True           # needs b deleted
    yield ("X" + a + b + "Y" + b + "X" + a,), True
    low = next(ch for ch in "pqrs" if ch not in (a, b))
    yield (low.upper() + a + low,), False         # case matters
    yield ("X Y" + b + "X",), False              # the space counts
    yield ("XY" + a + "YX",), True


def inputs(rng, *, a, b):
    half = "".join(rng.choice("XY" + a + b) for _ in range(rng.randint(0, 5)))
    s = half + rng.choice(["", "Z", a, b]) + half[::-1]
    if rng.random() < 0.5:
        chars = list(s)
        for _ in range(rng.randint(1, 2)):
            chars.insert(rng.randint(0, len(chars)), rng.choice([a, b, "X", "x"]))
        s = "".join(chars)
    return (s,)


def edge_cases(args, *, a, b):
    s, = args
    if not s:
        return ["empty"]
    kept = [ch for ch in s if ch not in (a, b)]
    if not kept:
        return ["only_deleted"]
    return ["palindrome"] if kept == kept[::-1] else ["not_palindrome"]


def mutant_only_first_char(s, *, a, b):
    kept = s.replace(a, "")
    return kept == kept[::-1]


def mutant_deletes_nothing(s, *, a, b):
    return s == s[::-1]


def mutant_ignores_case(s, *, a, b):
    kept = "".join(ch for ch in s if ch != a and ch != b).lower()
    return kept == kept[::-1]


def mutant_deletes_first_occurrences(s, *, a, b):
    kept = s.replace(a, "", 1).replace(b, "", 1)
    return kept == kept[::-1]


def mutant_ignores_spaces(s, *, a, b):
    kept = "".join(ch for ch in s if ch not in (a, b, " "))
    return kept == kept[::-1]
