"""Oracle for string_substring_inclusive: s[i..j] with both ends included, clipped to s."""


def solution(s, *, i, j):
    return s[i:j + 1]


def tests(*, i, j):
    letters = "abcdefghijklmnopqrstuvwxyz"
    long = (letters * 5)[:j + 3]
    # Expected characters picked one index at a time.
    yield (long,), "".join(long[p] for p in range(i, j + 1))
    yield ("",), ""
    yield (long[:i],), ""                                     # exactly i characters: nothing left
    yield (long[:i + 1],), long[i]                            # one character at index i
    yield (long[:j],), "".join(long[p] for p in range(i, j))  # ends one before j
    yield (long[:j + 1],), "".join(long[p] for p in range(i, j + 1))


def inputs(rng, *, i, j):
    length = rng.choice([0, i, i + 1, j, j + 1, j + 2, rng.randint(0, j + 5)])
    return ("".join(rng.choice("abcdefgh") for _ in range(length)),)


def edge_cases(args, *, i, j):
    """Which named edges an input hits: used by `eddy templates validate --strength`."""
    (s,) = args
    hit = ["empty"] if not s else []
    if len(s) <= i:
        hit.append("too_short")
    elif len(s) <= j:
        hit.append("cut_short")
    elif len(s) == j + 1:
        hit.append("ends_at_j")
    return hit


def mutant_exclusive_end(s, *, i, j):
    return s[i:j]


def mutant_exclusive_start(s, *, i, j):
    return s[i + 1:j + 1]


def mutant_one_based(s, *, i, j):
    return s[max(i - 1, 0):j]


def mutant_no_clipping(s, *, i, j):
    return "".join(s[p] for p in range(i, j + 1))
