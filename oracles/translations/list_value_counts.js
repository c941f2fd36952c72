// Hand-written JavaScript translation of solution() in ../list_value_counts.py (a Map keeps number keys).
function solution(values, { m }) {
    const counts = new Map();
    for (const x of values) counts.set(x, (counts.get(x) ?? 0) + 1);
    return new Map([...counts].filter(([, c]) => c >= m));
}
