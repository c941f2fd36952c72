"""Oracle for last_index_before: last occurrence strictly before an exclusive stop index."""


def solution(values, *, target, stop):
    for i in range(min(stop, len(values)) - 1, -1, -1):
        if values[i] == target:
            return i
    return -1


def tests(*, target, stop):
    other = target + 1
    yield ([],), -1
    yield ([target],), (0 if stop >= 1 else -1)
    yield ([other] * (stop + 2),), -1
    # target only at the stop index itself: excluded
    yield ([other] * stop + [target, other],), -1
    # target just before the stop index
    if stop >= 1:
        yield ([other] * (stop - 1) + [target, other, other],), stop - 1
        yield ([target] * (stop + 3),), stop - 1
        yield ([target] + [other] * (stop - 1) + [target],), 0
    if stop >= 2:
        yield ([target, target] + [other] * stop,), 1
    # list shorter than stop: its last element is searched too
    if stop >= 3:
        yield ([other, target],), 1


def inputs(rng, *, target, stop):
    length = rng.choice([0, 1, stop - 1, stop, stop + 1, stop + 3, rng.randint(0, stop + 5)])
    length = max(length, 0)
    pool = [target, target - 1, target + 1, -target]
    values = [rng.choice(pool) if rng.random() < 0.35 else rng.randint(-99, 99) for _ in range(length)]
    for p in (0, stop - 2, stop - 1, stop, stop + 1):
        if 0 <= p < length and rng.random() < 0.5:
            values[p] = target
    return (values,)


def edge_cases(args, *, target, stop):
    """Which named edges an input hits: used by `eddy templates validate --strength`."""
    (values,) = args
    hit = ["empty"] if not values else []
    if target not in values[:stop]:
        hit.append("no_match")
    if stop < len(values) and values[stop] == target:
        hit.append("at_stop")
    if 0 < stop <= len(values) and values[stop - 1] == target:
        hit.append("just_before_stop")
    if len(values) < stop:
        hit.append("shorter_than_stop")
    return hit


def mutant_inclusive_stop(values, *, target, stop):
    for i in range(min(stop + 1, len(values)) - 1, -1, -1):
        if values[i] == target:
            return i
    return -1


def mutant_first_occurrence(values, *, target, stop):
    for i in range(min(stop, len(values))):
        if values[i] == target:
            return i
    return -1


def mutant_whole_list(values, *, target, stop):
    for i in range(len(values) - 1, -1, -1):
        if values[i] == target:
            return i
    return -1


def mutant_skips_index_zero(values, *, target, stop):
    for i in range(min(stop, len(values)) - 1, 0, -1):
        if values[i] == target:
            return i
    return -1
