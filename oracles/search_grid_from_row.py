"""Oracle for search_grid_from_row: row-major search of a ragged grid from a given row."""


def solution(grid, *, x, r):
    for i in range(r, len(grid)):
        for j, v in enumerate(grid[i]):
            if v == x:
                return (i, j)
    return (-1, -1)


def tests(*, x, r):
    y = x + 20                                  # never equal to x
    yield ([],), (-1, -1)
    yield ([[x]] * r,), (-1, -1)                # matches only in skipped rows
    yield ([[y]] * r + [[y, x, x]],), (r, 1)
    yield ([[x]] * r + [[], [y], [y, y, x]],), (r + 2, 2)
    yield ([[y, y] for _ in range(r)] + [[y, y, x], [x, y, y]],), (r, 2)   # row-major, not column-major
    yield ([[y] for _ in range(r + 3)],), (-1, -1)


def inputs(rng, *, x, r):
    rows = []
    for _ in range(rng.choice([0, r, r + 1, rng.randint(0, r + 4)])):
        rows.append([rng.choice([x, x + 1, x - 1, 0, 5]) for _ in range(rng.randint(0, 4))])
    return (rows,)


def edge_cases(args, *, x, r):
    grid, = args
    if not grid:
        return ["empty"]
    if len(grid) <= r:
        return ["out_of_range"]
    if x in grid[r]:
        return ["lower_bound"]
    return [] if any(x in row for row in grid[r:]) else ["no_match"]


def mutant_after_row_r(grid, *, x, r):
    for i in range(r + 1, len(grid)):
        for j, v in enumerate(grid[i]):
            if v == x:
                return (i, j)
    return (-1, -1)


def mutant_ignores_r(grid, *, x, r):
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if v == x:
                return (i, j)
    return (-1, -1)


def mutant_relative_row(grid, *, x, r):
    for i, row in enumerate(grid[r:]):
        for j, v in enumerate(row):
            if v == x:
                return (i, j)
    return (-1, -1)


def mutant_column_major(grid, *, x, r):
    width = max((len(row) for row in grid[r:]), default=0)
    for j in range(width):
        for i in range(r, len(grid)):
            if j < len(grid[i]) and grid[i][j] == x:
                return (i, j)
    return (-1, -1)


def mutant_none_when_missing(grid, *, x, r):
    for i in range(r, len(grid)):
        for j, v in enumerate(grid[i]):
            if v == x:
                return (i, j)
    return None
