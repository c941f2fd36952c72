"""Oracle for string_surround_char: inserting a character before and after each occurrence."""


def solution(s, *, c, left, right):
    return "".join(left + ch + right if ch == c else ch for ch in s)


def tests(*, c, left, right):
    w = left + c + right
    o = "q"                         # never equal to c
    yield ("",), ""
    yield (o * 3,), o * 3
    yield (c,), w
    yield (c + c,), w + w
    yield (o + c + o + c + c,), o + w + o + w + w
    yield (c.upper() + c,), c.upper() + w       # another character, though it looks alike


def inputs(rng, *, c, left, right):
    length = rng.choice([0, 1, 2, rng.randint(0, 12)])
    return ("".join(rng.choice(c + c + "pq" + left) for _ in range(length)),)


def edge_cases(args, *, c, left, right):
    s, = args
    if not s:
        return ["empty"]
    if c not in s:
        return ["no_match"]
    return ["adjacent"] if c + c in s else []


def mutant_first_only(s, *, c, left, right):
    return s.replace(c, left + c + right, 1)


def mutant_swapped_sides(s, *, c, left, right):
    return "".join(right + ch + left if ch == c else ch for ch in s)


def mutant_before_only(s, *, c, left, right):
    return "".join(left + ch if ch == c else ch for ch in s)


def mutant_wraps_runs(s, *, c, left, right):
    import re

    return re.sub(re.escape(c) + "+", lambda m: left + m.group(0) + right, s)


def mutant_after_only(s, *, c, left, right):
    return "".join(ch + right if ch == c else ch for ch in s)
