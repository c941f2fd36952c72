"""Oracle for string_anagram_prefixes: multiset equality of two bounded prefixes."""


def solution(s, t, *, n):
    return sorted(s[:n]) == sorted(t[:n])


def tests(*, n):
    base = "".join("abcab"[p % 5] for p in range(n))
    yield ("", ""), True
    yield (base, base[::-1]), True
    yield (base + "x", base[::-1] + "y"), True           # they differ only after position n
    yield (base + "x", base[::-1]), True
    if n >= 1:
        yield (base[:-1] + "x", base), False              # the n-th character differs
        yield (base[:-1] + "Q", base[:-1] + "q"), False   # case matters
        yield (base[:-1], base), False                    # a string one character short
    else:
        yield ("x", "y"), True
    yield ("a" * (n + 1) + "b", "a" * (n + 1) + "c"), True
    if n >= 3:
        yield ("aab" + "c" * (n - 3), "abb" + "c" * (n - 3)), False   # same letters, other counts
    yield ("a" * n, "a" * (n + 3)), True


def inputs(rng, *, n):
    s = "".join(rng.choice("ab") for _ in range(rng.choice([n - 1, n, n + 1, rng.randint(0, n + 3)]) if n else rng.randint(0, 3)))
    if rng.random() < 0.6:
        chars = list(s[:n])
        rng.shuffle(chars)
        t = "".join(chars) + "".join(rng.choice("abc") for _ in range(rng.randint(0, 2)))
    else:
        t = "".join(rng.choice("ab") for _ in range(rng.choice([n, n + 1, rng.randint(0, n + 2)])))
    return (s, t)


def edge_cases(args, *, n):
    s, t = args
    hit = ["empty"] if not s or not t else []
    if len(s) < n or len(t) < n:
        hit.append("shorter_than_n")
    if s[:n] == t[:n]:
        hit.append("identical_prefixes")
    return hit


def mutant_whole_strings(s, t, *, n):
    return sorted(s) == sorted(t)


def mutant_letter_sets(s, t, *, n):
    return set(s[:n]) == set(t[:n])


def mutant_one_more(s, t, *, n):
    return sorted(s[:n + 1]) == sorted(t[:n + 1])


def mutant_one_fewer(s, t, *, n):
    return sorted(s[:max(n - 1, 0)]) == sorted(t[:max(n - 1, 0)])


def mutant_ignores_case(s, t, *, n):
    return sorted(s[:n].lower()) == sorted(t[:n].lower())
