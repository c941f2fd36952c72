// Hand-written JavaScript translation of solution() in ../set_add_range.py.
function solution(items, { lo, hi }) {
    const out = new Set(items);
    for (let x = lo; x <= hi; x++) out.add(x);
    return out;
}
