<?php
// Hand-written PHP translation of solution() in ../search_first_pair_sum.py (a pair is an array).
function solution($values, $t) {
    $first = [];
    foreach ($values as $j => $v) {
        if (array_key_exists($t - $v, $first)) return [$first[$t - $v], $j];
        if (!array_key_exists($v, $first)) $first[$v] = $j;
    }
    return null;
}
