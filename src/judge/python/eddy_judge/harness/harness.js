"use strict";
// eddy's JavaScript harness (run by node inside the judge's sandbox, behind the relay in
// languages.py): reads the calls as type-tagged JSON on stdin, loads the answer, calls the named
// function on each argument tuple and writes one JSON line per call on fd 3 (wire.py has the tags).
// It never sees an expected value: comparison happens in the trusted Python worker.
const fs = require("fs");
// Held before the answer runs: what it patches later does not change how lines are written.
const writeSync = fs.writeSync;
const stringify = JSON.stringify;
const exit = process.exit.bind(process);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const [, , candidatePath, fn, arityText, sendArgsText] = process.argv;
const arity = Number(arityText);
const sendArgs = sendArgsText === "1";

function say(obj) {
    const b = Buffer.from(stringify(obj) + "\n");
    for (let off = 0; off < b.length; ) off += writeSync(3, b, off);
}

function decode(t) {
    if (t === null || typeof t === "boolean" || typeof t === "string") return t;
    if ("int" in t) {
        const b = BigInt(t.int);
        // Beyond 2^53 a Number is not exact: such integers arrive as BigInt.
        return b >= -MAX_SAFE && b <= MAX_SAFE ? Number(b) : b;
    }
    if ("float" in t) return t.float === "nan" ? NaN : t.float === "inf" ? Infinity : t.float === "-inf" ? -Infinity : t.float;
    if ("list" in t) return t.list.map(decode);
    if ("tuple" in t) return t.tuple.map(decode);
    if ("set" in t) return new Set(t.set.map(decode));
    if ("dict" in t) return new Map(t.dict.map(([k, v]) => [decode(k), decode(v)]));
    throw new Error("eddy harness: unknown argument tag");
}

function encode(v, depth) {
    if (depth > 200) throw new RangeError("value nested too deeply");
    if (v === null || v === undefined) return null;
    switch (typeof v) {
        case "boolean":
        case "string":
            return v;
        case "bigint":
            return { int: v.toString() };
        case "number":
            if (Number.isInteger(v)) return { num: BigInt(v).toString() };
            return { float: Number.isNaN(v) ? "nan" : v === Infinity ? "inf" : v === -Infinity ? "-inf" : v };
    }
    if (Array.isArray(v)) return { seq: Array.from(v, (x) => encode(x, depth + 1)) };
    if (v instanceof Set) return { set: Array.from(v, (x) => encode(x, depth + 1)) };
    if (v instanceof Map) return { map: Array.from(v, ([k, x]) => [encode(k, depth + 1), encode(x, depth + 1)]) };
    const proto = typeof v === "object" ? Object.getPrototypeOf(v) : undefined;
    if (proto === Object.prototype || proto === null) return { map: Object.entries(v).map(([k, x]) => [k, encode(x, depth + 1)]) };
    let shown;
    try {
        shown = String(v).slice(0, 300);
    } catch {
        shown = "<" + typeof v + ">";
    }
    return { opaque: shown };
}

function isObject(a) {
    return a !== null && typeof a === "object";
}

function shares(v, args) {
    if (!isObject(v)) return false;
    return args.some((a) => isObject(a) && (v === a || (Array.isArray(v) && v.includes(a)) || (v instanceof Set && v.has(a))));
}

function kind(e) {
    if (e instanceof RangeError && /call stack|Invalid array length|Invalid string length|allocation/i.test(String(e.message))) return "resource";
    if (isObject(e) && ["EAGAIN", "ENOMEM", "EMFILE", "ENFILE", "ENOSPC", "EFBIG"].includes(e.code)) return "resource";
    return "runtime";
}

function text(e) {
    try {
        if (e instanceof Error) return (e.name + ": " + e.message).slice(0, 300);
        return ("thrown: " + String(e)).slice(0, 300);
    } catch {
        return "an unprintable exception";
    }
}

const calls = JSON.parse(fs.readFileSync(0, "utf8"));
// ES module syntax is accepted: top-level `export` keywords are dropped, the function is what counts.
const source = fs
    .readFileSync(candidatePath, "utf8")
    .replace(/^export\s+default\s+(?=(async\s+)?function\b|class\b)/gm, "")
    .replace(/^export\s+(?=(async\s+)?function\b|const\b|let\b|var\b|class\b)/gm, "");
let body;
try {
    body = new Function("module", "exports", "require", source + "\n;return typeof " + fn + " !== 'undefined' ? " + fn + " : undefined;");
} catch (e) {
    say(e instanceof SyntaxError ? { load: "syntax", text: text(e) } : { load: kind(e), text: text(e) });
    exit(0);
}
let f;
try {
    const mod = { exports: {} };
    f = body(mod, mod.exports, require);
    const ex = mod.exports;
    if (typeof f !== "function" && isObject(ex) && typeof ex[fn] === "function") f = ex[fn];
    if (typeof f !== "function" && typeof ex === "function" && ex.name === fn) f = ex;
} catch (e) {
    say({ load: kind(e), text: text(e) });
    exit(0);
}
if (typeof f !== "function") {
    say({ load: "missing", text: "no function named " + fn + " is defined" });
    exit(0);
}
const head = Function.prototype.toString.call(f);
const params = head.slice(0, head.indexOf(")") + 1);
const flexible = /\.\.\.|=/.test(params) || /\barguments\b/.test(head);
if (f.length > arity || (f.length < arity && !flexible)) {
    say({ load: "arity", text: fn + " takes " + f.length + " argument(s); expected " + arity });
    exit(0);
}
say({ load: "ok" });
for (let i = 0; i < calls.length; i++) {
    const args = calls[i].map(decode);
    let v;
    try {
        v = f(...args);
    } catch (e) {
        say({ i, err: kind(e), text: text(e) });
        continue;
    }
    let msg;
    try {
        msg = { i, v: encode(v, 0), after: sendArgs ? args.map((a) => encode(a, 0)) : null, shares: shares(v, args) };
    } catch (e) {
        msg = { i, v: { opaque: "<a value the harness cannot write: " + text(e) + ">" }, after: null };
    }
    say(msg);
}
say({ done: true });
exit(0);
