<?php
// Hand-written PHP translation of solution() in ../math_count_multiples.py (intdiv truncates: floored here, as Python's // does).
function solution($a, $b, $d) {
    if ($a > $b) return 0;
    $floor = function ($x, $y) {
        $q = intdiv($x, $y);
        return ($x % $y !== 0 && (($x < 0) !== ($y < 0))) ? $q - 1 : $q;
    };
    return $floor($b, $d) - $floor($a - 1, $d);
}
