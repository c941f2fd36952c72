"""Oracle for string_words_by_length: filter words by length, sort by length then text."""


def solution(text, *, n):
    return sorted((w for w in text.split() if len(w) >= n), key=lambda w: (-len(w), w))


def tests(*, n):
    yield ("",), []
    yield ("   ",), []
    short = "q" * (n - 1)
    yield (short + " " + short,), ([] if n > 1 else [])
    exact_b, exact_a = "b" * n, "a" * n
    longer = "c" * (n + 1)
    yield ("  ".join([exact_b, short, longer, exact_a, exact_b]),), [longer, exact_a, exact_b, exact_b]
    yield ("\t".join(["Z" + "y" * n, "a" + "y" * n, "x" * n]) + "\n",), ["Z" + "y" * n, "a" + "y" * n, "x" * n]


def inputs(rng, *, n):
    words = []
    for _ in range(rng.randint(0, 7)):
        length = rng.choice([n - 1, n, n + 1, rng.randint(1, n + 3)])
        words.append("".join(rng.choice("abAB") for _ in range(max(length, 1))))
    seps = [rng.choice([" ", "  ", "\t", "\n"]) for _ in words]
    return ("".join(w + sep for w, sep in zip(words, seps)),)


def edge_cases(args, *, n):
    text, = args
    words = text.split()
    if not words:
        return ["empty"]
    hit = []
    if any(len(w) == n for w in words):
        hit.append("lower_bound")
    if any(len(w) == n - 1 for w in words):
        hit.append("below_range")
    if len(set(words)) < len(words):
        hit.append("duplicates")
    return hit


def mutant_more_than_n(text, *, n):
    return sorted((w for w in text.split() if len(w) > n), key=lambda w: (-len(w), w))


def mutant_shortest_first(text, *, n):
    return sorted((w for w in text.split() if len(w) >= n), key=lambda w: (len(w), w))


def mutant_keeps_appearance_order(text, *, n):
    return sorted((w for w in text.split() if len(w) >= n), key=lambda w: -len(w))


def mutant_drops_duplicates(text, *, n):
    return sorted({w for w in text.split() if len(w) >= n}, key=lambda w: (-len(w), w))


def mutant_ignores_n(text, *, n):
    return sorted(text.split(), key=lambda w: (-len(w), w))
