// Hand-written JavaScript translation of solution() in ../string_remove_first_k.py.
function solution(s, { c, k }) {
    let out = "";
    let left = k;
    for (const ch of s) {
        if (ch === c && left > 0) left--;
        else out += ch;
    }
    return out;
}
