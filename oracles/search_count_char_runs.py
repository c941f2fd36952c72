"""Oracle for count_char_runs: overlapping occurrences of a repeated character."""


def solution(s, *, k, c):
    count, run = 0, 0
    for ch in s:
        run = run + 1 if ch == c else 0
        if run >= k:
            count += 1
    return count


def tests(*, k, c):
    other = "q"
    yield ("",), 0
    yield (c * (k - 1),), 0
    yield (c * k,), 1
    yield (c * (k + 1),), 2
    yield (c * (2 * k),), k + 1
    yield (other + c * k + other,), 1
    yield ((c * k + other) * 3,), 3
    yield (other * (k + 2),), 0
    if k > 1:
        yield ((c * (k - 1) + other) * 4,), 0


def inputs(rng, *, k, c):
    parts = []
    for _ in range(rng.randint(0, 5)):
        run = rng.choice([k - 1, k, k + 1, 2 * k, rng.randint(1, 2 * k + 2)])
        parts.append(c * max(run, 0))
        parts.append(rng.choice(["", "q", "ab", c.upper(), "x"]))
    return ("".join(parts),)


def mutant_non_overlapping(s, *, k, c):
    return s.count(c * k)


def mutant_misses_last_position(s, *, k, c):
    return sum(1 for i in range(len(s) - k) if s[i:i + k] == c * k)


def mutant_counts_maximal_runs(s, *, k, c):
    count, run = 0, 0
    for ch in s + "\0":
        if ch == c:
            run += 1
        else:
            if run >= k:
                count += 1
            run = 0
    return count


def mutant_run_of_k_minus_one(s, *, k, c):
    count, run = 0, 0
    for ch in s:
        run = run + 1 if ch == c else 0
        if run >= max(k - 1, 1):
            count += 1
    return count
