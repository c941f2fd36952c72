import random


def input_generator(l, seed):
    if seed != 'default':
        random.seed(seed)
    x = random.randint(-50, 200)
    return (x, x + random.randint(-5, 300))
