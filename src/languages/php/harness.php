<?php
// eddy's PHP harness (run by php inside the judge's sandbox, behind the relay in eddy_sandbox/relay.py):
// reads the calls as type-tagged JSON on stdin, loads the answer, calls the named function on each
// argument tuple and writes one JSON line per call on fd 3 (eddy_judge/wire.py has the tags). It never sees an
// expected value: comparison happens in the trusted Python worker. PHP has one container, the
// array: it goes back as {"arr": [[k, v], ...], "list": bool} and the expected value decides.

// Nothing of the harness's is a global: the answer could reach a global through $GLOBALS (its
// previous result, its arguments, the output stream). Its state lives in the locals of
// eddy_main() and in a static of eddy_say(), which no other function can reach.

// The relay hands each step (the load, each call, the end) over with a nonce on stdin, read just
// before the step (eddy_say(null)); every line of that step carries it.
function eddy_say($obj) {
    static $out = null;
    static $nonce = "";
    if ($obj === null) {
        $line = fgets(STDIN);
        if ($line === false) exit(0);
        $nonce = rtrim($line, "\n");
        return;
    }
    if ($out === null) $out = fopen("php://fd/3", "w");
    fwrite($out, json_encode(["n" => $nonce] + $obj, JSON_UNESCAPED_UNICODE | JSON_INVALID_UTF8_SUBSTITUTE | JSON_PRESERVE_ZERO_FRACTION) . "\n");
    fflush($out);
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
    // An object's name only: print_r would call its __debugInfo (the answer's code) while recording.
    return ["opaque" => "<" . (is_object($v) ? get_class($v) : gettype($v)) . ">"];
}

function eddy_text($e) {
    return substr(get_class($e) . ": " . $e->getMessage(), 0, 300);
}

function eddy_main($argv) {
    [$_, $candidate, $fn, $arity, $send, $callsPath] = $argv;
    $arity = (int) $arity;
    $send = $send === "1";
    $calls = json_decode(file_get_contents($callsPath), true);
    eddy_say(null); // the load's
    // Every call's arguments are decoded before the answer is loaded.
    $all = [];
    foreach ($calls as $i => $c) {
        try {
            $all[$i] = array_map("eddy_decode", $c);
        } catch (Throwable $e) {
            $all[$i] = $e;
        }
    }
    $source = file_get_contents($candidate);
    // An answer may or may not open with the PHP tag; a closing tag at its end is allowed.
    if (!preg_match('/^\s*<\?php/', $source)) $source = "<?php\n" . $source;
    file_put_contents($candidate, $source);
    try {
        (function () use ($candidate) { include $candidate; })();
    } catch (ParseError $e) {
        eddy_say(["load" => "syntax", "text" => eddy_text($e)]);
        exit(0);
    } catch (Throwable $e) {
        eddy_say(["load" => "runtime", "text" => eddy_text($e)]);
        exit(0);
    }
    if (!function_exists($fn)) {
        eddy_say(["load" => "missing", "text" => "no function named $fn is defined"]);
        exit(0);
    }
    $f = new ReflectionFunction($fn);
    $need = $f->getNumberOfRequiredParameters();
    $count = $f->getNumberOfParameters();
    if ($need > $arity || ($count < $arity && !$f->isVariadic())) {
        eddy_say(["load" => "arity", "text" => "$fn takes $need argument(s); expected $arity"]);
        exit(0);
    }
    eddy_say(["load" => "ok"]);
    // Every value the answer returned stays referenced until the end (no destructor of the
    // answer's runs because the harness let go of it), and no cycle collection runs while the
    // harness records.
    $kept = [];
    foreach ($all as $i => $args) {
        eddy_say(null);
        if ($args instanceof Throwable) {
            eddy_say(["i" => $i, "err" => "runtime", "text" => "the judge could not pass the arguments: " . eddy_text($args)]);
            continue;
        }
        gc_enable();
        try {
            $v = $fn(...$args);
        } catch (Throwable $e) {
            gc_disable();
            eddy_say(["i" => $i, "err" => "runtime", "text" => eddy_text($e)]);
            continue;
        }
        gc_disable();
        $kept[] = $v;
        try {
            // The arguments first. PHP arrays are values: an answer cannot hand back its argument
            // object, so nothing is shared.
            $after = $send ? array_map("eddy_encode", $args) : null;
            eddy_say(["i" => $i, "after" => $after, "shares" => false, "v" => eddy_encode($v)]);
        } catch (Throwable $e) {
            eddy_say(["i" => $i, "v" => ["opaque" => "<a value the harness cannot write: " . eddy_text($e) . ">"], "after" => null]);
        }
    }
    eddy_say(null);
    eddy_say(["done" => true]);
    exit(0);
}

eddy_main($argv);
