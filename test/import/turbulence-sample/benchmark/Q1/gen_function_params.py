import random


def input_generator(l, seed):
    if seed != 'default':
        random.seed(seed)
    size = random.randint(0, int(l[1]) + 5)
    return [random.randint(-100, 100) for _ in range(size)]
