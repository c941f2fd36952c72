// Hand-written JavaScript translation of solution() in ../list_rotate_right.py.
function solution(values, { k }) {
    const n = values.length;
    if (n === 0) return [];
    const shift = ((k % n) + n) % n;
    return values.slice(n - shift).concat(values.slice(0, n - shift));
}
