"""Oracle for string_remove_between: removing an index range with both bounds exclusive."""


def solution(s, *, i, j):
    return "".join(ch for p, ch in enumerate(s) if not i < p < j)


def tests(*, i, j):
    def expected(s):
        # By slicing, worked out from the two bounds (independent of the comprehension above).
        return s if j - i < 2 else s[:i + 1] + s[j:]

    yield ("",), ""
    alphabet = "abcdefghijklmnopqrstuvwxyz"
    for length in (i, i + 1, i + 2, j, j + 1, j + 3):
        s = "".join(alphabet[p % 26] for p in range(length))
        yield (s,), expected(s)


def inputs(rng, *, i, j):
    length = rng.choice([0, i, i + 1, j, j + 1, rng.randint(0, j + 5)])
    return ("".join(rng.choice("xyz01") for _ in range(length)),)


def edge_cases(args, *, i, j):
    s, = args
    hit = ["equal_bounds"] if i == j else []
    if not s:
        return hit + ["empty"]
    if len(s) <= i + 1:
        hit.append("out_of_range")
    elif len(s) <= j:
        hit.append("ends_inside")
    elif len(s) == j + 1:
        hit.append("upper_bound")
    return hit


def mutant_both_inclusive(s, *, i, j):
    return "".join(ch for p, ch in enumerate(s) if not i <= p <= j)


def mutant_includes_i(s, *, i, j):
    return "".join(ch for p, ch in enumerate(s) if not i <= p < j)


def mutant_includes_j(s, *, i, j):
    return "".join(ch for p, ch in enumerate(s) if not i < p <= j)


def mutant_keeps_only_between(s, *, i, j):
    return "".join(ch for p, ch in enumerate(s) if i < p < j)


def mutant_naive_slices(s, *, i, j):
    return s[:i + 1] + s[j:]
