"""Oracle for find_in_window: first match inside an inclusive index window."""


def solution(values, *, target, lo, hi):
    for i in range(lo, min(hi + 1, len(values))):
        if values[i] == target:
            return i
    return -1


def _with_target(length, filler, target, positions):
    values = [filler] * length
    for p in positions:
        values[p] = target
    return values


def tests(*, target, lo, hi):
    other = target + 1
    n = hi + 3
    yield ([],), -1
    yield ([other] * n,), -1
    yield (_with_target(n, other, target, [lo]),), lo
    yield (_with_target(n, other, target, [hi]),), hi
    yield (_with_target(n, other, target, [lo, hi]),), lo
    yield (_with_target(n, other, target, [hi + 1]),), -1
    yield (_with_target(n, other, target, [hi + 1, hi + 2]),), -1
    yield ([target] * n,), lo
    if lo > 0:
        yield (_with_target(n, other, target, [lo - 1]),), -1
        yield (_with_target(n, other, target, [0, lo - 1, hi]),), hi
        yield ([target] * lo,), -1  # the list ends just before the window
    yield ([other] * lo + [target],), lo  # the window is cut short by the end of the list
    if hi > lo:
        yield (_with_target(n, other, target, [lo + 1]),), lo + 1


def inputs(rng, *, target, lo, hi):
    length = rng.choice([0, lo, lo + 1, hi, hi + 1, hi + 2, rng.randint(0, hi + 4)])
    pool = [target, target - 1, target + 1, rng.randint(0, 99)]
    values = [rng.choice(pool) if rng.random() < 0.3 else rng.randint(-99, 199) for _ in range(length)]
    for p in (lo - 1, lo, hi, hi + 1):
        if 0 <= p < length and rng.random() < 0.5:
            values[p] = target
    return (values,)


def edge_cases(args, *, target, lo, hi):
    """Which named edges an input hits: used by `eddy templates validate --strength`."""
    (values,) = args
    hit = ["empty"] if not values else []
    inside = [i for i, v in enumerate(values) if v == target and lo <= i <= hi]
    if target not in values:
        hit.append("no_match")
    if lo < len(values) and values[lo] == target:
        hit.append("lower_bound")
    if hi < len(values) and values[hi] == target:
        hit.append("upper_bound")
    if target in values and not inside:
        hit.append("only_outside")
    if lo < len(values) <= hi:
        hit.append("cut_short")
    return hit


def mutant_exclusive_hi(values, *, target, lo, hi):
    for i in range(lo, min(hi, len(values))):
        if values[i] == target:
            return i
    return -1


def mutant_exclusive_lo(values, *, target, lo, hi):
    for i in range(lo + 1, min(hi + 1, len(values))):
        if values[i] == target:
            return i
    return -1


def mutant_last_occurrence(values, *, target, lo, hi):
    for i in reversed(range(lo, min(hi + 1, len(values)))):
        if values[i] == target:
            return i
    return -1


def mutant_whole_list(values, *, target, lo, hi):
    return values.index(target) if target in values else -1
