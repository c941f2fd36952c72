"""Oracle for string_top_chars: frequency ranking with an alphabetical tie-break."""


def solution(s, *, k, c):
    counts = {}
    for ch in s:
        if ch != c:
            counts[ch] = counts.get(ch, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:k]


def _expected(s, k, c):
    # Independent of solution(): repeatedly pick the best remaining character with str.count.
    remaining = sorted(set(s) - {c})
    out = []
    while remaining and len(out) < k:
        best = remaining[0]
        for ch in remaining:
            if s.count(ch) > s.count(best):
                best = ch
        out.append((best, s.count(best)))
        remaining.remove(best)
    return out


def tests(*, k, c):
    yield ("",), []
    yield (c * 5,), []
    other = "z"
    yield (c * 3 + other,), [(other, 1)]
    for s in ("nnmmmzza", "zyxwvutsrqponm" * 2 + "mm", "ba" * 3 + "c" * 4 + "d", "aAbB" + c * 9 + "bb"):
        yield (s,), _expected(s, k, c)


def inputs(rng, *, k, c):
    alphabet = rng.choice(["ab" + c, "abcdefghijklmn", "xyz" + c + c])
    length = rng.choice([0, 1, rng.randint(0, 20)])
    return ("".join(rng.choice(alphabet) for _ in range(length)),)


def edge_cases(args, *, k, c):
    s, = args
    if not s:
        return ["empty"]
    hit = ["excluded_present"] if c in s else []
    counts = [s.count(ch) for ch in set(s) - {c}]
    if len(set(counts)) < len(counts):
        hit.append("tie")
    if len(counts) < k:
        hit.append("fewer_than_k")
    return hit


def mutant_list_pairs(s, *, k, c):
    counts = {}
    for ch in s:
        if ch != c:
            counts[ch] = counts.get(ch, 0) + 1
    return [[ch, n] for ch, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:k]]


def mutant_first_appearance_ties(s, *, k, c):
    counts = {}
    for ch in s:
        if ch != c:
            counts[ch] = counts.get(ch, 0) + 1
    return sorted(counts.items(), key=lambda item: -item[1])[:k]


def mutant_counts_excluded(s, *, k, c):
    counts = {}
    for ch in s:
        counts[ch] = counts.get(ch, 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:k]


def mutant_one_extra(s, *, k, c):
    counts = {}
    for ch in s:
        if ch != c:
            counts[ch] = counts.get(ch, 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:k + 1]


def mutant_least_frequent(s, *, k, c):
    counts = {}
    for ch in s:
        if ch != c:
            counts[ch] = counts.get(ch, 0) + 1
    return sorted(counts.items(), key=lambda item: (item[1], item[0]))[:k]
