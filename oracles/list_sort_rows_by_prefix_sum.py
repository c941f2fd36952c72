"""Oracle for list_sort_rows_by_prefix_sum: a stable sort of rows by the sum of a prefix."""

KEEP_ARGUMENTS = True


def solution(matrix, *, n):
    return sorted(matrix, key=lambda row: sum(row[:n]))


def _expected(matrix, n):
    # Independent of solution(): an insertion sort on keys summed by an explicit loop.
    keyed = []
    for row in matrix:
        total = 0
        for i in range(min(n, len(row))):
            total += row[i]
        pos = len(keyed)
        while pos > 0 and keyed[pos - 1][0] > total:   # strict: equal keys stay in order
            pos -= 1
        keyed.insert(pos, (total, row))
    return [row for _, row in keyed]


def tests(*, n):
    yield ([],), []
    yield ([[5], [1], [3]],), ([[1], [3], [5]] if n >= 1 else [[5], [1], [3]])
    heavy_tail = [1] * n + [100]       # prefix sum n, full sum n + 100
    light = [2] * n + [-100]           # prefix sum 2n, full sum 2n - 100
    yield ([light, heavy_tail],), ([heavy_tail, light] if n >= 1 else [light, heavy_tail])
    cases = [
        [[2, 0, 9], [0, 2, -9], [1, 1]],
        [[], [3], [-1, -1], [0]],
        [list(range(n + 2)), list(range(n + 1, -1, -1)), [n] * (n + 1)],
        [[4] * (n + 1), [4] * n, [-4]],
    ]
    for matrix in cases:
        yield ([list(r) for r in matrix],), _expected(matrix, n)


def inputs(rng, *, n):
    rows = []
    for _ in range(rng.randint(0, 6)):
        width = rng.choice([0, n, n + 1, rng.randint(0, n + 3)])
        rows.append([rng.randint(-9, 9) for _ in range(width)])
    return (rows,)


def edge_cases(args, *, n):
    matrix, = args
    hit = [] if matrix else ["empty"]
    if any(len(row) < n for row in matrix):
        hit.append("short_row")
    keys = [sum(row[:n]) for row in matrix]
    if len(set(keys)) < len(keys):
        hit.append("tie")
    return hit


def mutant_whole_row_sum(matrix, *, n):
    return sorted(matrix, key=sum)


def mutant_one_element_too_many(matrix, *, n):
    return sorted(matrix, key=lambda row: sum(row[:n + 1]))


def mutant_one_element_too_few(matrix, *, n):
    return sorted(matrix, key=lambda row: sum(row[:max(n - 1, 0)]))


def mutant_largest_first(matrix, *, n):
    return sorted(matrix, key=lambda row: -sum(row[:n]))


def mutant_sorts_rows_too(matrix, *, n):
    return sorted((sorted(row) for row in matrix), key=lambda row: sum(row[:n]))
