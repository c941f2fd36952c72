"""Oracle for string_anagram_plus: t is s rearranged plus exactly k copies of c."""


def solution(s, t, *, c, k):
    from collections import Counter
    return Counter(t) == Counter(s) + Counter({c: k})


def tests(*, c, k):
    other = "A" if c != "A" else "B"
    base = "xyz" + c
    yield (base, c * k + base[::-1]), True
    yield ("", c * k), True
    yield (base, base + c * (k + 1)), False                 # one copy too many
    if k > 0:
        yield (base, base[::-1] + c * (k - 1)), False       # one copy short
        yield (base, base + c * (k - 1) + other), False     # right length, wrong extra character
    else:
        yield (base, base + other), False
    yield (base, "xz" + c + c * k), False                   # a character of s is missing
    yield (base.upper(), (base + c * k).lower()), False       # case matters
    yield (c + "xxy", "xyy" + c * (k + 1)), False             # same letters and length, wrong counts


def inputs(rng, *, c, k):
    s = "".join(rng.choice("abc" + c) for _ in range(rng.randint(0, 8)))
    extra = rng.choice([k, k, k - 1, k + 1]) if k > 0 else rng.choice([0, 0, 1])
    chars = list(s) + [c] * extra
    roll = rng.random()
    if roll < 0.2 and chars:
        chars.pop(rng.randrange(len(chars)))
    elif roll < 0.3:
        chars.append(rng.choice("abcd"))
    rng.shuffle(chars)
    return (s, "".join(chars))


def mutant_at_least_k(s, t, *, c, k):
    from collections import Counter
    extra = Counter(t) - Counter(s)
    return not (Counter(s) - Counter(t)) and set(extra) <= {c} and extra[c] >= k


def mutant_ignores_counts(s, t, *, c, k):
    return set(t) == set(s) | ({c} if k > 0 else set()) and len(t) == len(s) + k


def mutant_only_length(s, t, *, c, k):
    return len(t) == len(s) + k and t.count(c) >= k


def mutant_sorted_prefix(s, t, *, c, k):
    return sorted(t) == sorted(s + c * k) or sorted(t) == sorted(s + c * (k + 1))
