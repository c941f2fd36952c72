"""Oracle for string_insert_separator: a separator between fixed-size blocks, none at the end."""


def solution(s, *, c, n):
    return c.join(s[i:i + n] for i in range(0, len(s), n))


def tests(*, c, n):
    # Expected strings assembled character by character with a counter, not by slicing.
    def expect(s):
        out = ""
        for i, ch in enumerate(s):
            if i > 0 and i % n == 0:
                out += c
            out += ch
        return out

    yield ("",), ""
    yield ("a" * n,), "a" * n                                  # exactly one block: no separator
    yield ("a" * n + "b",), "a" * n + c + "b"                   # one past a block
    yield ("ab" * n,), expect("ab" * n)                         # two full blocks: one separator, none at the end
    yield ("x" * (n - 1),), "x" * (n - 1)
    yield ("abcdefghijklmnopqrstuvwxyz0123456789",), expect("abcdefghijklmnopqrstuvwxyz0123456789")


def inputs(rng, *, c, n):
    length = rng.choice([0, n - 1, n, n + 1, 2 * n, 3 * n + 1, rng.randint(0, 4 * n + 3)])
    return ("".join(rng.choice("abcxyz019") for _ in range(max(length, 0))),)


def mutant_trailing_separator(s, *, c, n):
    return "".join(s[i:i + n] + c for i in range(0, len(s), n))


def mutant_block_plus_one(s, *, c, n):
    return c.join(s[i:i + n + 1] for i in range(0, len(s), n + 1))


def mutant_separator_before_each_block(s, *, c, n):
    return "".join(c + s[i:i + n] for i in range(0, len(s), n))


def mutant_counts_from_one(s, *, c, n):
    out = ""
    for i, ch in enumerate(s, start=1):
        out += ch
        if i % n == 0 and i < len(s) - 1:
            out += c
    return out
