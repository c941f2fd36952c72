<?php
// eddy's PHP harness (run by php inside the judge's sandbox, behind the relay in languages.py):
// reads the calls as type-tagged JSON on stdin, loads the answer, calls the named function on each
// argument tuple and writes one JSON line per call on fd 3 (wire.py has the tags). It never sees an
// expected value: comparison happens in the trusted Python worker. PHP has one container, the
// array: it goes back as {"arr": [[k, v], ...], "list": bool} and the expected value decides.

$eddy_out = fopen("php://fd/3", "w");
[$_, $eddy_candidate, $eddy_fn, $eddy_arity, $eddy_send] = $argv;
$eddy_arity = (int) $eddy_arity;
$eddy_send = $eddy_send === "1";

function eddy_say($obj) {
    global $eddy_out;
    fwrite($eddy_out, json_encode($obj, JSON_UNESCAPED_UNICODE | JSON_INVALID_UTF8_SUBSTITUTE | JSON_PRESERVE_ZERO_FRACTION) . "\n");
    fflush($eddy_out);
}

function eddy_decode($t) {
    if ($t === null || is_bool($t) || is_string($t)) return $t;
    $tag = array_key_first($t);
    $x = $t[$tag];
    switch ($tag) {
        case "int":
            if (!preg_match('/^-?\d{1,18}$/', $x)) throw new RangeError("an integer beyond PHP's 64-bit int");
            return (int) $x;
        case "float":
            return $x === "nan" ? NAN : ($x === "inf" ? INF : ($x === "-inf" ? -INF : (float) $x));
        case "list":
        case "tuple":
            return array_map("eddy_decode", $x);
        case "dict":
            $out = [];
            foreach ($x as [$k, $v]) $out[eddy_decode($k)] = eddy_decode($v);
            return $out;
    }
    throw new DomainError("eddy harness: PHP has no type for a $tag argument");
}

function eddy_encode($v, $depth = 0) {
    if ($depth > 200) throw new RangeError("value nested too deeply");
    if ($v === null || is_bool($v)) return $v;
    if (is_string($v)) return preg_match('//u', $v) ? $v : ["opaque" => substr(var_export($v, true), 0, 300)];
    if (is_int($v)) return ["int" => (string) $v];
    if (is_float($v)) return ["float" => is_nan($v) ? "nan" : (is_infinite($v) ? ($v > 0 ? "inf" : "-inf") : $v)];
    if (is_array($v)) {
        $pairs = [];
        foreach ($v as $k => $e) $pairs[] = [eddy_encode($k, $depth + 1), eddy_encode($e, $depth + 1)];
        return ["arr" => $pairs, "list" => array_is_list($v)];
    }
    return ["opaque" => substr(print_r($v, true), 0, 300)];
}

function eddy_text($e) {
    return substr(get_class($e) . ": " . $e->getMessage(), 0, 300);
}

$calls = json_decode(file_get_contents("php://stdin"), true);
$source = file_get_contents($eddy_candidate);
// An answer may or may not open with the PHP tag; a closing tag at its end is allowed.
if (!preg_match('/^\s*<\?php/', $source)) $source = "<?php\n" . $source;
file_put_contents($eddy_candidate, $source);
try {
    (function () use ($eddy_candidate) { include $eddy_candidate; })();
} catch (ParseError $e) {
    eddy_say(["load" => "syntax", "text" => eddy_text($e)]);
    exit(0);
} catch (Throwable $e) {
    eddy_say(["load" => "runtime", "text" => eddy_text($e)]);
    exit(0);
}
if (!function_exists($eddy_fn)) {
    eddy_say(["load" => "missing", "text" => "no function named $eddy_fn is defined"]);
    exit(0);
}
$eddy_f = new ReflectionFunction($eddy_fn);
$eddy_need = $eddy_f->getNumberOfRequiredParameters();
$eddy_all = $eddy_f->getNumberOfParameters();
if ($eddy_need > $eddy_arity || ($eddy_all < $eddy_arity && !$eddy_f->isVariadic())) {
    eddy_say(["load" => "arity", "text" => "$eddy_fn takes $eddy_need argument(s); expected $eddy_arity"]);
    exit(0);
}
eddy_say(["load" => "ok"]);
foreach ($calls as $i => $c) {
    try {
        $args = array_map("eddy_decode", $c);
    } catch (Throwable $e) {
        eddy_say(["i" => $i, "err" => "runtime", "text" => "the judge could not pass the arguments: " . eddy_text($e)]);
        continue;
    }
    try {
        $v = $eddy_fn(...$args);
    } catch (Throwable $e) {
        eddy_say(["i" => $i, "err" => "runtime", "text" => eddy_text($e)]);
        continue;
    }
    try {
        // PHP arrays are values: an answer cannot hand back its argument object, so nothing is shared.
        eddy_say(["i" => $i, "v" => eddy_encode($v), "after" => $eddy_send ? array_map("eddy_encode", $args) : null, "shares" => false]);
    } catch (Throwable $e) {
        eddy_say(["i" => $i, "v" => ["opaque" => "<a value the harness cannot write: " . eddy_text($e) . ">"], "after" => null]);
    }
}
eddy_say(["done" => true]);
exit(0);
