def gen_params(q_no, seed):
    return [(2.0,), (3.0,), (10.0,), (0.25,)]
