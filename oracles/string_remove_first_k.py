"""Oracle for string_remove_first_k: drop the first k occurrences of one character."""


def solution(s, *, c, k):
    return s.replace(c, "", k)


def tests(*, c, k):
    other = "q"
    yield ("",), ""
    yield (c * k,), ""                                      # exactly k copies: all go
    yield (c * (k + 1),), c                                  # one more than k: the last stays
    yield ((c + other) * (k + 2),), other * k + (c + other) * 2
    yield (other * 3,), other * 3
    if k > 0:
        yield (other + c * (k - 1) + other,), other * 2      # fewer than k: remove them all


def inputs(rng, *, c, k):
    length = rng.choice([k, k + 1, k + 3, rng.randint(0, 2 * k + 6)])
    return ("".join(c if rng.random() < 0.5 else rng.choice("abcxyzq") for _ in range(length)),)


def mutant_removes_all(s, *, c, k):
    return s.replace(c, "")


def mutant_removes_last_k(s, *, c, k):
    return s[::-1].replace(c, "", k)[::-1]


def mutant_one_extra(s, *, c, k):
    return s.replace(c, "", k + 1)


def mutant_one_short(s, *, c, k):
    return s.replace(c, "", max(k - 1, 0))
