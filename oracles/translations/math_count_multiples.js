// Hand-written JavaScript translation of solution() in ../math_count_multiples.py.
function solution(a, b, { d }) {
    if (a > b) return 0;
    return Math.floor(b / d) - Math.floor((a - 1) / d);
}
