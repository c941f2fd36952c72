import random


def input_generator(l, seed):
    if seed != 'default':
        random.seed(seed)
    return ''.join(random.choice('aeqzxy') for _ in range(random.randint(0, 15)))
