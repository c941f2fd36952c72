"""Oracle for string_anagram_windows: sliding-window anagram search from index k on."""


def solution(s, t, *, k):
    m = len(t)
    target = sorted(t)
    return [i for i in range(k, len(s) - m + 1) if sorted(s[i:i + m]) == target]


def _expected(s, t, k):
    # Independent of solution(): compare character counts with str.count.
    m = len(t)
    out = []
    for i in range(k, len(s) - m + 1):
        window = s[i:i + m]
        if all(window.count(ch) == t.count(ch) for ch in set(window) | set(t)):
            out.append(i)
    return out


def tests(*, k):
    pad = "z" * k
    yield ("", "ab"), []
    yield (pad + "ab", "ab"), [k]                       # identical window at exactly k
    yield (pad + "ba", "ab"), [k]
    yield (pad[:-1] + "ab" if k else "ab", "ab"), ([] if k else [0])   # starts one before k
    yield (pad + "abab", "ba"), [k, k + 1, k + 2]        # overlapping windows
    yield (pad + "aab", "abb"), []                      # same letters, other counts
    yield (pad + "AbaB", "ab"), [k + 1]                 # case matters
    for s, t in (("xyz" * (k + 3), "zyx"), ("abcab" * 3 + "a" * k, "cab")):
        yield (s, t), _expected(s, t, k)


def inputs(rng, *, k):
    t = "".join(rng.choice("ab") for _ in range(rng.randint(1, 3)))
    length = rng.choice([k, k + len(t), k + len(t) + 1, rng.randint(0, k + 10)])
    return ("".join(rng.choice("abc") for _ in range(length)), t)


def edge_cases(args, *, k):
    s, t = args
    if not s:
        return ["empty"]
    m = len(t)
    starts = [i for i in range(k, len(s) - m + 1) if sorted(s[i:i + m]) == sorted(t)]
    if not starts:
        return ["no_match"]
    hit = ["lower_bound"] if starts[0] == k else []
    if any(s[i:i + m] == t for i in starts):
        hit.append("identical")
    return hit


def mutant_after_k(s, t, *, k):
    m = len(t)
    return [i for i in range(k + 1, len(s) - m + 1) if sorted(s[i:i + m]) == sorted(t)]


def mutant_ignores_k(s, t, *, k):
    m = len(t)
    return [i for i in range(0, len(s) - m + 1) if sorted(s[i:i + m]) == sorted(t)]


def mutant_misses_last_window(s, t, *, k):
    m = len(t)
    return [i for i in range(k, len(s) - m) if sorted(s[i:i + m]) == sorted(t)]


def mutant_letter_sets(s, t, *, k):
    m = len(t)
    return [i for i in range(k, len(s) - m + 1) if set(s[i:i + m]) == set(t)]


def mutant_excludes_identical(s, t, *, k):
    m = len(t)
    return [i for i in range(k, len(s) - m + 1) if sorted(s[i:i + m]) == sorted(t) and s[i:i + m] != t]
