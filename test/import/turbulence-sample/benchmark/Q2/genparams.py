# Reads the hand-chosen divisors and adds divisors from a fixed list until there are four.
def gen_params(q_no, seed):
    with open(f"Q{q_no}/manually_chosen_params.txt", "r") as f:
        rows = [(int(line.split()[0]),) for line in f if line.strip()]
    for d in (5, 12, 20):
        if len(rows) < 4 and (d,) not in rows:
            rows.append((d,))
    return rows
