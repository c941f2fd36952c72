// Hand-written JavaScript translation of solution() in ../search_first_pair_sum.py (a pair is an array).
function solution(values, { t }) {
    const first = new Map();
    for (let j = 0; j < values.length; j++) {
        const v = values[j];
        if (first.has(t - v)) return [first.get(t - v), j];
        if (!first.has(v)) first.set(v, j);
    }
    return null;
}
