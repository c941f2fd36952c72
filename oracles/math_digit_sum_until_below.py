"""Oracle for digit_sum_until_below: repeated base-b digit sums with an exclusive stop."""


def solution(n, *, b, limit):
    while n >= limit:
        total = 0
        while n:
            n, digit = divmod(n, b)
            total += digit
        n = total
    return n


def _digit_sum(n, b):
    digits = []
    while n:
        digits.append(n % b)
        n //= b
    return sum(digits)


def tests(*, b, limit):
    yield (0,), 0
    yield (limit - 1,), limit - 1
    yield (1,), 1
    # b ** j has digit sum 1 in base b
    power = b
    while power < limit:
        power *= b
    yield (power,), 1
    # limit itself must be reduced
    s = _digit_sum(limit, b)
    while s >= limit:
        s = _digit_sum(s, b)
    yield (limit,), s
    # a number whose base-b digits are all (b - 1): digit sum = count * (b - 1)
    count = limit // (b - 1) + 2
    while b ** count > 10 ** 15:  # keep every value an exact double for JSON consumers
        count -= 1
    value = b ** count - 1
    s = count * (b - 1)
    while s >= limit:
        s = _digit_sum(s, b)
    yield (value,), s
    if b == 10:
        yield (1234,), (10 if limit <= 1234 and limit > 10 else (1 if limit <= 10 else 1234))


def inputs(rng, *, b, limit):
    r = rng.random()
    if r < 0.3:
        return (rng.choice([limit - 1, limit, limit + 1, b, b - 1, b * b]),)
    if r < 0.6:
        return (rng.randint(0, 3 * limit + b),)
    return (rng.randint(0, 10 ** rng.randint(1, 12)),)


def mutant_single_pass(n, *, b, limit):
    if n < limit:
        return n
    total = 0
    while n:
        n, digit = divmod(n, b)
        total += digit
    return total


def mutant_inclusive_limit(n, *, b, limit):
    while n > limit:
        total = 0
        while n:
            n, digit = divmod(n, b)
            total += digit
        n = total
    return n


def mutant_decimal_digits(n, *, b, limit):
    while n >= limit and n >= 10:
        n = sum(int(ch) for ch in str(n))
    return n


def mutant_until_single_digit(n, *, b, limit):
    while n >= b:
        total = 0
        while n:
            n, digit = divmod(n, b)
            total += digit
        n = total
    return n
