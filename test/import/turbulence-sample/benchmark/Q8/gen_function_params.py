import random


def input_generator(l, seed):
    if seed != 'default':
        random.seed(seed)
    return [random.randint(-50, 50) for _ in range(random.randint(0, 10))]
