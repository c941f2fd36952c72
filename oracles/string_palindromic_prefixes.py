"""Oracle for string_palindromic_prefixes: which prefix lengths, within bounds, are palindromes."""


def solution(s, *, n):
    return [length for length in range(n, len(s) + 1) if s[:length] == s[:length][::-1]]


def _is_palindrome(s, length):
    # Two pointers over the prefix (independent of slicing and reversal).
    left, right = 0, length - 1
    while left < right:
        if s[left] != s[right]:
            return False
        left, right = left + 1, right - 1
    return True


def tests(*, n):
    yield ("",), []
    yield ("a" * (n - 1),), []
    yield ("a" * (n + 2),), [n, n + 1, n + 2]
    for s in ("ab" * (n // 2 + 2), "a" * n + "b" + "a" * n, "abc" * (n // 3 + 2), "ba" + "a" * n):
        yield (s,), [length for length in range(n, len(s) + 1) if _is_palindrome(s, length)]


def inputs(rng, *, n):
    length = rng.choice([n - 1, n, n + 1, rng.randint(0, n + 6)])
    alphabet = rng.choice(["a", "ab", "abc"])
    return ("".join(rng.choice(alphabet) for _ in range(max(length, 0))),)


def edge_cases(args, *, n):
    s, = args
    if not s:
        return ["empty"]
    if len(s) < n:
        return ["below_range"]
    return ["lower_bound"] if s[:n] == s[:n][::-1] else []


def mutant_longer_than_n(s, *, n):
    return [length for length in range(n + 1, len(s) + 1) if s[:length] == s[:length][::-1]]


def mutant_misses_whole_string(s, *, n):
    return [length for length in range(n, len(s)) if s[:length] == s[:length][::-1]]


def mutant_ignores_n(s, *, n):
    return [length for length in range(1, len(s) + 1) if s[:length] == s[:length][::-1]]


def mutant_decreasing(s, *, n):
    return [length for length in range(len(s), n - 1, -1) if s[:length] == s[:length][::-1]]


def mutant_suffixes(s, *, n):
    return [length for length in range(n, len(s) + 1) if s[len(s) - length:] == s[len(s) - length:][::-1]]
