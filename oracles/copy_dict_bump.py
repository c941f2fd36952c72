"""Oracle for copy_dict_bump: a modified shallow copy of a dict; the original stays intact."""

# The question forbids modifying the argument: the judge fails a call that changes it.
KEEP_ARGUMENTS = True
# The question asks for a new object: an answer that returns (or holds) its argument object fails.
NEW_OBJECT = True


def solution(counts, *, t, k):
    return {key: value + k if value >= t else value for key, value in counts.items()}


def tests(*, t, k):
    yield ({},), {}
    yield ({"a": t},), {"a": t + k}                      # equal to t is bumped
    yield ({"a": t - 1},), {"a": t - 1}
    yield ({"x": t + 5, "y": t - 5, "z": t},), {"x": t + 5 + k, "y": t - 5, "z": t + k}
    yield ({"p": -100, "q": 100},), {"p": -100, "q": 100 + k}


def inputs(rng, *, t, k):
    keys = rng.sample("abcdefgh", rng.randint(0, 6))
    return ({key: rng.randint(t - 3, t + 3) for key in keys},)


def edge_cases(args, *, t, k):
    counts, = args
    if not counts:
        return ["empty"]
    hit = ["lower_bound"] if t in counts.values() else []
    if all(v < t for v in counts.values()):
        hit.append("no_match")
    return hit


def mutant_in_place(counts, *, t, k):
    for key in counts:
        if counts[key] >= t:
            counts[key] += k
    return counts


def mutant_strictly_greater(counts, *, t, k):
    return {key: value + k if value > t else value for key, value in counts.items()}


def mutant_bumps_everything(counts, *, t, k):
    return {key: value + k for key, value in counts.items()}


def mutant_drops_small(counts, *, t, k):
    return {key: value + k for key, value in counts.items() if value >= t}


def mutant_bumps_by_t(counts, *, t, k):
    return {key: value + t if value >= t else value for key, value in counts.items()}
