"""Oracle for string_palindrome_windows: count palindromic windows of length n that start with c."""


def solution(s, *, c, n):
    count = 0
    for start in range(len(s) - n + 1):
        window = s[start:start + n]
        if window[0] == c and window == window[::-1]:
            count += 1
    return count


def tests(*, c, n):
    # Expected counts reasoned out per string rather than computed by the same scan.
    o = "z"  # never equal to c
    yield ("",), 0
    yield (c * n,), 1                      # the whole string is the one window
    yield (c * (n - 1),), 0                # one short of a window
    yield (c * (n + 2),), 3                # three windows, all palindromes, all counted
    yield (o * (n + 2),), 0                # palindromes, but they do not start with c
    if n >= 2:
        yield (c + o + c * (n - 2),), 1 if n == 3 else 0   # only 'c z c' is a palindrome
        yield (c + o * (n - 2) + c + o,), 1   # only the first window
    else:
        yield (c + o + c,), 2              # single characters: each c counts


def inputs(rng, *, c, n):
    length = rng.choice([0, n - 1, n, n + 1, rng.randint(0, 2 * n + 6)])
    return ("".join(rng.choice("ab" + c) for _ in range(max(length, 0))),)


def mutant_misses_last_window(s, *, c, n):
    count = 0
    for start in range(len(s) - n):
        window = s[start:start + n]
        if window[0] == c and window == window[::-1]:
            count += 1
    return count


def mutant_ignores_start_char(s, *, c, n):
    return sum(1 for p in range(len(s) - n + 1) if s[p:p + n] == s[p:p + n][::-1])


def mutant_distinct_only(s, *, c, n):
    return len({s[p:p + n] for p in range(len(s) - n + 1) if s[p] == c and s[p:p + n] == s[p:p + n][::-1]})


def mutant_window_too_short(s, *, c, n):
    m = n - 1
    return sum(1 for p in range(len(s) - m + 1) if s[p:p + 1] == c and s[p:p + m] == s[p:p + m][::-1])


def mutant_whole_string(s, *, c, n):
    return 1 if len(s) >= n and s[:1] == c and s == s[::-1] else 0
