"""Oracle for copy_block: copying a rectangular block of a ragged matrix, ends included."""

KEEP_ARGUMENTS = True
# The question asks for a new object: an answer that returns (or holds) its argument object fails.
NEW_OBJECT = True


def solution(matrix, *, r0, r1, c0, c1):
    return [list(row[c0:c1 + 1]) for row in matrix[r0:r1 + 1]]


def tests(*, r0, r1, c0, c1):
    full = [[10 * i + j for j in range(8)] for i in range(8)]
    # Expected by index arithmetic: entry (i, j) of the full grid is 10 * i + j.
    yield ([],), []
    yield ([list(row) for row in full],), [[10 * i + j for j in range(c0, c1 + 1)] for i in range(r0, r1 + 1)]
    ragged = [list(range(w)) for w in (c0, c0 + 1, c1 + 1, c1 + 3, 0, c1, 2, 9)]
    expected = [[j for j in range(c0, min(c1 + 1, len(ragged[i])))] for i in range(r0, min(r1 + 1, len(ragged)))]
    yield ([list(row) for row in ragged],), expected
    short = [[1, 2, 3]] * r0                 # exactly r0 rows: nothing to copy
    yield ([list(row) for row in short],), []


def inputs(rng, *, r0, r1, c0, c1):
    rows = rng.choice([r0, r1, r1 + 1, rng.randint(0, r1 + 3)])
    return ([[rng.randint(-9, 9) for _ in range(rng.choice([c0, c1, c1 + 1, rng.randint(0, c1 + 3)]))] for _ in range(rows)],)


def edge_cases(args, *, r0, r1, c0, c1):
    matrix, = args
    hit = ["equal_bounds"] if r0 == r1 and c0 == c1 else []
    if not matrix:
        return hit + ["empty"]
    if len(matrix) <= r1:
        hit.append("out_of_range")
    if any(len(row) <= c0 for row in matrix[r0:r1 + 1]):
        hit.append("short_row")
    return hit


def mutant_exclusive_ends(matrix, *, r0, r1, c0, c1):
    return [list(row[c0:c1]) for row in matrix[r0:r1]]


def mutant_exclusive_columns(matrix, *, r0, r1, c0, c1):
    return [list(row[c0:c1]) for row in matrix[r0:r1 + 1]]


def mutant_exclusive_rows(matrix, *, r0, r1, c0, c1):
    return [list(row[c0:c1 + 1]) for row in matrix[r0:r1]]


def mutant_drops_empty_rows(matrix, *, r0, r1, c0, c1):
    return [list(row[c0:c1 + 1]) for row in matrix[r0:r1 + 1] if row[c0:c1 + 1]]


def mutant_swapped_axes(matrix, *, r0, r1, c0, c1):
    return [list(row[r0:r1 + 1]) for row in matrix[c0:c1 + 1]]
