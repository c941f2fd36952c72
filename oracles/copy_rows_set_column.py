"""Oracle for copy_rows_set_column: a shallow copy of the outer list is not enough."""

# The question forbids modifying the arguments: the judge fails a call that changes them.
KEEP_ARGUMENTS = True


def solution(rows, *, col, v):
    result = []
    for row in rows:
        new_row = list(row)
        if col < len(new_row):
            new_row[col] = v
        result.append(new_row)
    return [rows, result]


def tests(*, col, v):
    w = col + 2
    base = [[10 * r + c for c in range(w)] for r in range(3)]
    expected = [[v if c == col else 10 * r + c for c in range(w)] for r in range(3)]
    yield ([],), [[], []]
    yield ([[]],), [[[]], [[]]]
    yield ([list(row) for row in base],), [base, expected]
    short = list(range(col))  # one element too short to have index col
    yield ([list(short)],), [[short], [short]]
    exact = list(range(col + 1))
    yield ([list(exact)],), [[exact], [list(range(col)) + [v]]]
    yield ([list(short), list(exact)],), [[short, exact], [short, list(range(col)) + [v]]]


def inputs(rng, *, col, v):
    rows = []
    for _ in range(rng.randint(0, 5)):
        width = rng.choice([0, col, col + 1, col + 2, rng.randint(0, col + 4)])
        rows.append([rng.randint(-99, 99) for _ in range(max(width, 0))])
    return (rows,)


def mutant_outer_copy_only(rows, *, col, v):
    result = list(rows)
    for row in result:
        if col < len(row):
            row[col] = v
    return [rows, result]


def mutant_off_by_one_column(rows, *, col, v):
    result = []
    for row in rows:
        new_row = list(row)
        if col + 1 < len(new_row):
            new_row[col + 1] = v
        result.append(new_row)
    return [rows, result]


def mutant_pads_short_rows(rows, *, col, v):
    result = []
    for row in rows:
        new_row = list(row)
        while len(new_row) <= col:
            new_row.append(0)
        new_row[col] = v
        result.append(new_row)
    return [rows, result]


def mutant_strict_length_check(rows, *, col, v):
    result = []
    for row in rows:
        new_row = list(row)
        if col < len(new_row) - 1:
            new_row[col] = v
        result.append(new_row)
    return [rows, result]
