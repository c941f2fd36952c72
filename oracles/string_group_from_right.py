"""Oracle for string_group_from_right: separators every n characters counted from the right."""


def solution(s, *, c, n):
    parts = []
    end = len(s)
    while end > 0:
        parts.append(s[max(0, end - n):end])
        end -= n
    return c.join(reversed(parts))


def _expected(s, c, n):
    # Independent of solution(): a separator goes before index p when the rest has a multiple of n characters.
    out = ""
    for p, ch in enumerate(s):
        if p > 0 and (len(s) - p) % n == 0:
            out += c
        out += ch
    return out


def tests(*, c, n):
    yield ("",), ""
    yield ("x",), "x"
    yield ("y" * n,), "y" * n
    for length in (n + 1, 2 * n, 2 * n + 1, 3 * n - 1):
        s = "".join("0123456789"[p % 10] for p in range(length))
        yield (s,), _expected(s, c, n)


def inputs(rng, *, c, n):
    length = rng.choice([0, n, n + 1, 2 * n, rng.randint(0, 3 * n + 2)])
    return ("".join(rng.choice("0123456789ab") for _ in range(length)),)


def edge_cases(args, *, c, n):
    s, = args
    if not s:
        return ["empty"]
    return ["multiple_of_n"] if len(s) % n == 0 else (["shorter_than_n"] if len(s) < n else [])


def mutant_groups_from_left(s, *, c, n):
    return c.join(s[p:p + n] for p in range(0, len(s), n))


def mutant_leading_separator(s, *, c, n):
    out = ""
    for p, ch in enumerate(s):
        if (len(s) - p) % n == 0 and p >= 0 and len(s) > n:
            out += c
        out += ch
    return out


def mutant_groups_of_n_plus_one(s, *, c, n):
    parts = []
    end = len(s)
    while end > 0:
        parts.append(s[max(0, end - n - 1):end])
        end -= n + 1
    return c.join(reversed(parts))


def mutant_reversed_groups(s, *, c, n):
    parts = []
    end = len(s)
    while end > 0:
        parts.append(s[max(0, end - n):end])
        end -= n
    return c.join(parts)


def mutant_trailing_separator(s, *, c, n):
    parts = []
    end = len(s)
    while end > 0:
        parts.append(s[max(0, end - n):end])
        end -= n
    return "".join(part + c for part in reversed(parts))
