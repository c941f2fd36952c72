"""Oracle for search_find_all_from: overlapping occurrences starting at index k or later."""


def solution(s, *, pattern, length, k):
    out = []
    i = s.find(pattern, k)
    while i != -1:
        out.append(i)
        i = s.find(pattern, i + 1)
    return out


def tests(*, pattern, length, k):
    def expected(s):
        # Independent of str.find: compare character by character at every start.
        return [i for i in range(k, len(s) - length + 1) if all(s[i + j] == pattern[j] for j in range(length))]

    pad = "c" * k
    yield ("",), []
    yield (pad + pattern,), [k]                           # exactly at k
    yield (pad[:-1] + pattern if k else pattern,), ([] if k else [0])   # starts one before k
    for s in (pad + pattern + pattern, "a" * (k + 6), ("ab" * (k + 4)), pattern * 3 + pad + "b" + pattern, "ba" * (k // 2 + 5)):
        yield (s,), expected(s)


def inputs(rng, *, pattern, length, k):
    n = rng.choice([k, k + length, k + length + 2, rng.randint(0, k + 12)])
    return ("".join(rng.choice("ab") for _ in range(n)),)


def edge_cases(args, *, pattern, length, k):
    s, = args
    if not s:
        return ["empty"]
    found = [i for i in range(k, len(s) - length + 1) if s[i:i + length] == pattern]
    if not found:
        return ["no_match"]
    hit = ["lower_bound"] if found[0] == k else []
    if any(b - a < length for a, b in zip(found, found[1:])):
        hit.append("overlap")
    return hit


def mutant_no_overlaps(s, *, pattern, length, k):
    out = []
    i = s.find(pattern, k)
    while i != -1:
        out.append(i)
        i = s.find(pattern, i + length)
    return out


def mutant_after_k(s, *, pattern, length, k):
    return [i for i in range(k + 1, len(s) - length + 1) if s[i:i + length] == pattern]


def mutant_ignores_k(s, *, pattern, length, k):
    return [i for i in range(0, len(s) - length + 1) if s[i:i + length] == pattern]


def mutant_misses_last_position(s, *, pattern, length, k):
    return [i for i in range(k, len(s) - length) if s[i:i + length] == pattern]


def mutant_reaching_past_k(s, *, pattern, length, k):
    return [i for i in range(max(k - length + 1, 0), len(s) - length + 1) if s[i:i + length] == pattern]
