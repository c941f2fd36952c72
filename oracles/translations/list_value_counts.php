<?php
// Hand-written PHP translation of solution() in ../list_value_counts.py (an array keyed by value).
function solution($values, $m) {
    $counts = [];
    foreach ($values as $x) $counts[$x] = ($counts[$x] ?? 0) + 1;
    return array_filter($counts, fn($c) => $c >= $m);
}
