<?php
// Hand-written PHP translation of solution() in ../list_rotate_right.py.
function solution($values, $k) {
    $n = count($values);
    if ($n === 0) return [];
    $s = $k % $n;
    return array_merge(array_slice($values, $n - $s), array_slice($values, 0, $n - $s));
}
