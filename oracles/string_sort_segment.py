"""Oracle for string_sort_segment: sorting only an inclusive index range of a string."""


def solution(s, *, i, j):
    return s[:i] + "".join(sorted(s[i:j + 1])) + s[j + 1:]


def _expected(s, i, j):
    # Independent of solution(): bubble-sort the chosen positions in a list of characters.
    chars = list(s)
    last = min(j, len(chars) - 1)
    for _ in range(len(chars)):
        for p in range(i, last):
            if ord(chars[p]) > ord(chars[p + 1]):
                chars[p], chars[p + 1] = chars[p + 1], chars[p]
    return "".join(chars)


def tests(*, i, j):
    yield ("",), ""
    letters = "zYxWvUtSrQpOnMlKjIhGfEdCbA"
    yield ("q" * i,), "q" * i                          # i characters: nothing to sort
    for length in (i + 1, j, j + 1, j + 3):
        s = "".join(letters[(p * 7) % 26] for p in range(length))
        yield (s,), _expected(s, i, j)
    s = "".join("bBaA"[p % 4] for p in range(j + 2))
    yield (s,), _expected(s, i, j)


def inputs(rng, *, i, j):
    length = rng.choice([0, i, i + 1, j, j + 1, rng.randint(0, j + 5)])
    return ("".join(rng.choice("abcABC") for _ in range(length)),)


def edge_cases(args, *, i, j):
    s, = args
    if not s:
        return ["empty"]
    if len(s) <= i:
        return ["out_of_range"]
    if len(s) <= j:
        return ["ends_inside"]
    return ["upper_bound"] if len(s) == j + 1 else []


def mutant_exclusive_end(s, *, i, j):
    return s[:i] + "".join(sorted(s[i:j])) + s[j:]


def mutant_starts_after_i(s, *, i, j):
    return s[:i + 1] + "".join(sorted(s[i + 1:j + 1])) + s[j + 1:]


def mutant_descending(s, *, i, j):
    return s[:i] + "".join(sorted(s[i:j + 1], reverse=True)) + s[j + 1:]


def mutant_case_insensitive(s, *, i, j):
    return s[:i] + "".join(sorted(s[i:j + 1], key=str.lower)) + s[j + 1:]


def mutant_sorts_everything(s, *, i, j):
    return "".join(sorted(s))
