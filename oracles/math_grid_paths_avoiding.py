"""Oracle for math_grid_paths_avoiding: lattice paths that skip one forbidden point."""


def solution(rows, cols, *, r, c):
    ways = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(rows + 1):
        for j in range(cols + 1):
            if (i, j) == (r, c):
                ways[i][j] = 0
            elif i == 0 and j == 0:
                ways[i][j] = 1
            else:
                ways[i][j] = (ways[i - 1][j] if i > 0 else 0) + (ways[i][j - 1] if j > 0 else 0)
    return ways[rows][cols]


def _paths(a, b):
    # Binomial count of monotone paths covering a steps one way and b the other.
    import math

    return math.comb(a + b, a) if a >= 0 and b >= 0 else 0


def tests(*, r, c):
    def expected(rows, cols):
        # Inclusion-exclusion: all paths minus those through (r, c) (independent of the table).
        if 0 <= r <= rows and 0 <= c <= cols:
            return _paths(rows, cols) - _paths(r, c) * _paths(rows - r, cols - c)
        return _paths(rows, cols)

    for rows, cols in ((0, 0), (r, c), (r + 1, c + 1), (r, c + 3), (r + 2, c), (max(r - 1, 0), c + 2), (12, 12), (3, 15), (0, 5), (30, 30), (30, 29)):
        yield (rows, cols), expected(rows, cols)


def inputs(rng, *, r, c):
    rows = rng.choice([0, r, r + 1, max(r - 1, 0), rng.randint(0, 14), rng.randint(0, 30)])
    cols = rng.choice([0, c, c + 1, max(c - 1, 0), rng.randint(0, 14), rng.randint(0, 30)])
    return (rows, cols)


def edge_cases(args, *, r, c):
    rows, cols = args
    hit = ["zero"] if rows == 0 and cols == 0 else []
    if (r, c) in ((0, 0), (rows, cols)):
        hit.append("forbidden_endpoint")
    elif r > rows or c > cols:
        hit.append("out_of_range")
    else:
        hit.append("inside")
    return hit


def mutant_ignores_forbidden(rows, cols, *, r, c):
    import math

    return math.comb(rows + cols, rows)


def mutant_spares_endpoints(rows, cols, *, r, c):
    import math

    if (r, c) in ((0, 0), (rows, cols)) or not (0 <= r <= rows and 0 <= c <= cols):
        return math.comb(rows + cols, rows)
    return math.comb(rows + cols, rows) - math.comb(r + c, r) * math.comb(rows - r + cols - c, rows - r)


def mutant_swapped_point(rows, cols, *, r, c):
    import math

    if 0 <= c <= rows and 0 <= r <= cols:
        return math.comb(rows + cols, rows) - math.comb(r + c, c) * math.comb(rows - c + cols - r, rows - c)
    return math.comb(rows + cols, rows)


def mutant_blocks_whole_row(rows, cols, *, r, c):
    ways = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(rows + 1):
        for j in range(cols + 1):
            if i == r and j >= c:
                ways[i][j] = 0
            elif i == 0 and j == 0:
                ways[i][j] = 1
            else:
                ways[i][j] = (ways[i - 1][j] if i > 0 else 0) + (ways[i][j - 1] if j > 0 else 0)
    return ways[rows][cols]


def mutant_cells_not_points(rows, cols, *, r, c):
    import math

    return math.comb(rows + cols - 2, rows - 1) if rows > 0 and cols > 0 else 1
