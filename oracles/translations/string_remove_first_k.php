<?php
// Hand-written PHP translation of solution() in ../string_remove_first_k.py.
function solution($s, $c, $k) {
    $out = "";
    $left = $k;
    foreach (preg_split('//u', $s, -1, PREG_SPLIT_NO_EMPTY) as $ch) {
        if ($ch === $c && $left > 0) $left--;
        else $out .= $ch;
    }
    return $out;
}
