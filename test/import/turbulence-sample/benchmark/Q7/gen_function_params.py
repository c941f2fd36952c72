import random


def input_generator(l, seed):
    if seed != 'default':
        random.seed(seed)
    return [random.randint(-20, 20) for _ in range(random.randint(0, 12))]
