"""Oracle for nth_char_index: position of the n-th occurrence (1-based count) of a character."""


def solution(s, *, n, c):
    seen = 0
    for i, ch in enumerate(s):
        if ch == c:
            seen += 1
            if seen == n:
                return i
    return -1


def tests(*, n, c):
    other = "q"
    yield ("",), -1
    yield (c * n,), n - 1
    yield (c * (n - 1),), -1
    yield ((other + c) * n,), 2 * n - 1
    yield (other * 3 + c * (n + 2),), 3 + n - 1
    yield (c.upper() * (n + 1),), -1
    # exactly n occurrences, the last one at the very end
    yield (other * n + c * n,), 2 * n - 1


def inputs(rng, *, n, c):
    density = rng.choice([0.1, 0.3, 0.6, 0.9])
    length = rng.choice([0, n - 1, n, n + 1, rng.randint(0, 3 * n + 6)])
    letters = "abexyzq"
    return ("".join(c if rng.random() < density else rng.choice(letters) for _ in range(max(length, 0))),)


def mutant_zero_based_count(s, *, n, c):
    seen = 0
    for i, ch in enumerate(s):
        if ch == c:
            if seen == n:
                return i
            seen += 1
    return -1


def mutant_one_based_index(s, *, n, c):
    seen = 0
    for i, ch in enumerate(s):
        if ch == c:
            seen += 1
            if seen == n:
                return i + 1
    return -1


def mutant_from_the_end(s, *, n, c):
    seen = 0
    for i in range(len(s) - 1, -1, -1):
        if s[i] == c:
            seen += 1
            if seen == n:
                return i
    return -1


def mutant_last_when_short(s, *, n, c):
    seen, last = 0, -1
    for i, ch in enumerate(s):
        if ch == c:
            seen += 1
            last = i
            if seen == n:
                return i
    return last
