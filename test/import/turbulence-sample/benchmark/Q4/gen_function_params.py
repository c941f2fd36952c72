import random


def input_generator(l, seed):
    if seed != 'default':
        random.seed(seed)
    size = random.randint(0, int(l[0]) + 12)
    return [random.uniform(-10.0, 10.0) for _ in range(size)]
