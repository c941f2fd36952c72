"use strict";
// eddy's JavaScript harness (run by node inside the judge's sandbox, behind the relay in
// eddy_sandbox/relay.py): reads the calls as type-tagged JSON on stdin, loads the answer, calls the named
// function on each argument tuple and writes one JSON line per call on fd 3 (eddy_judge/wire.py has the tags).
// It never sees an expected value: comparison happens in the trusted Python worker.
//
// The answer shares this process, so everything the harness uses is captured before the answer is
// loaded (what it patches later changes nothing here), and values are read without calling any of
// their own methods: no iterator, no getter, no toString, no toJSON; array elements and object
// properties through their own property descriptors, Sets and Maps through the captured built-in
// iterators. A Proxy or a getter among the values is tampering, reported as such. Lines are built
// as text here (JSON.stringify only ever sees a primitive string or number: no hook is consulted).
const fs = require("fs");
const util = require("util");
const apply = Reflect.apply;
const ownKeys = Reflect.ownKeys;
const getOwn = Reflect.getOwnPropertyDescriptor;
const getProto = Reflect.getPrototypeOf;
const defineProperty = Reflect.defineProperty;
const isProxy = util.types.isProxy;
const isSet = util.types.isSet;
const isMap = util.types.isMap;
const isArray = Array.isArray;
const ObjectProto = Object.prototype;
const SetCtor = Set;
const setAdd = Set.prototype.add;
const setHas = Set.prototype.has;
const setValues = Set.prototype.values;
const mapEntries = Map.prototype.entries;
const setNext = getProto(new Set().values()).next;
const mapNext = getProto(new Map().entries()).next;
const quote = JSON.stringify;
const parseJson = JSON.parse;
const writeSync = fs.writeSync;
const readFileSync = fs.readFileSync;
const bufferFrom = Buffer.from;
const BufferCtor = Buffer;
const byteLength = Buffer.byteLength;
const toBigInt = BigInt;
const bigToString = BigInt.prototype.toString;
const isInteger = Number.isInteger;
const isNaNumber = Number.isNaN;
const fnToString = Function.prototype.toString;
const strSlice = String.prototype.slice;
const strIndexOf = String.prototype.indexOf;
const strReplace = String.prototype.replace;
const reExec = RegExp.prototype.exec;
const ErrorCtor = Error;
const SyntaxErrorCtor = SyntaxError;
const RangeErrorCtor = RangeError;
const StringCtor = String;
const FunctionCtor = Function;
const exit = process.exit.bind(process);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const readSync = fs.readSync;
const fromCharCode = String.fromCharCode;
const [, , candidatePath, fn, arityText, sendArgsText, callsPath] = process.argv;
const arity = Number(arityText);
const sendArgs = sendArgsText === "1";
const MAX_DEPTH = 200;
// Built-ins an answer has no reason to redefine, which a harness (this one before, or a careless
// one) would call on its values: redefining one is tampering, reported as such after the call.
const HOOKS = [
    ["Array.prototype.map", Array.prototype, "map"],
    ["Array.prototype.forEach", Array.prototype, "forEach"],
    ["Array.prototype.includes", Array.prototype, "includes"],
    ["Array.prototype[Symbol.iterator]", Array.prototype, Symbol.iterator],
    ["Array.from", Array, "from"],
    ["Array.isArray", Array, "isArray"],
    ["Set.prototype[Symbol.iterator]", Set.prototype, Symbol.iterator],
    ["Set.prototype.has", Set.prototype, "has"],
    ["Map.prototype[Symbol.iterator]", Map.prototype, Symbol.iterator],
    ["Object.entries", Object, "entries"],
    ["Object.getPrototypeOf", Object, "getPrototypeOf"],
    ["JSON.stringify", JSON, "stringify"],
    ["Reflect.apply", Reflect, "apply"],
    ["Reflect.ownKeys", Reflect, "ownKeys"],
    ["Reflect.getOwnPropertyDescriptor", Reflect, "getOwnPropertyDescriptor"]
].map(([name, where, key]) => [name, where, key, Reflect.getOwnPropertyDescriptor(where, key)]);
// Own properties on a value that change how a harness would read it.
const VALUE_HOOKS = [
    [Symbol.iterator, "Symbol.iterator"],
    [Symbol.toPrimitive, "Symbol.toPrimitive"],
    ["toJSON", "toJSON"]
];

// The relay hands each step (the load, each call, the end) over with a nonce on stdin, read just
// before the step; every line of that step carries it. It lives only in this closure.
const { nextStep, say } = (() => {
    let nonce = "";
    const one = apply(bufferFrom, BufferCtor, [" "]);
    return {
        /** The next step's nonce; the relay has closed stdin: the run is over. */
        nextStep() {
            let text = "";
            for (;;) {
                let n = 0;
                try {
                    n = readSync(0, one, 0, 1, null);
                } catch {
                    n = 0;
                }
                if (n === 0) exit(0);
                const c = one[0];
                if (c === 10) break;
                text += fromCharCode(c);
            }
            nonce = text;
        },
        say(text) {
            const line = '{"n":' + quote(nonce) + "," + apply(strSlice, text, [1]) + "\n";
            const b = apply(bufferFrom, BufferCtor, [line]);
            const n = apply(byteLength, BufferCtor, [line]);
            for (let off = 0; off < n; ) off += writeSync(3, b, off, n - off);
        }
    };
})();

// Thrown (and only ever compared by identity) when a value is a Proxy or hides a getter.
const STOP = {};
let tampered = "";

/** Appends to an array of the harness's own without assignment (which would consult a setter the
 * answer may have put on Array.prototype). */
function push(arr, x) {
    defineProperty(arr, arr.length, { __proto__: null, value: x, writable: true, enumerable: true, configurable: true });
}

function tamper(what) {
    tampered = what;
    throw STOP;
}

/** The name of the first hook the answer redefined, or "". */
function redefinedHook() {
    for (let i = 0; i < HOOKS.length; i++) {
        const h = HOOKS[i];
        const now = getOwn(h[1], h[2]);
        if (now === undefined || getOwn(now, "value") === undefined || now.value !== h[3].value) return h[0];
    }
    return "";
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

/** A data property's value; a getter or setter is tampering. */
function dataValue(d, where) {
    if (getOwn(d, "get") !== undefined || getOwn(d, "set") !== undefined) tamper("a getter on " + where);
    return d.value;
}

/** The items of an array, a Set or a Map (pairs), or the [key, value] pairs of a plain object,
 * read without calling anything of the value's own; null for anything else. */
function items(v) {
    if (isProxy(v)) tamper("a Proxy among its values");
    for (let i = 0; i < VALUE_HOOKS.length; i++) if (getOwn(v, VALUE_HOOKS[i][0]) !== undefined) tamper("a redefined hook (" + VALUE_HOOKS[i][1] + ") on one of its values");
    if (isArray(v)) {
        const n = dataValue(getOwn(v, "length"), "an array's length");
        const out = [];
        for (let i = 0; i < n; i++) {
            const d = getOwn(v, "" + i);
            push(out, d === undefined ? undefined : dataValue(d, "an array element"));
        }
        return out;
    }
    if (isSet(v) || isMap(v)) {
        const it = apply(isSet(v) ? setValues : mapEntries, v, []);
        const next = isSet(v) ? setNext : mapNext;
        const out = [];
        for (;;) {
            const r = apply(next, it, []);
            if (r.done) break;
            push(out, r.value);
        }
        return out;
    }
    const proto = getProto(v);
    if (proto !== ObjectProto && proto !== null) return null;
    const keys = ownKeys(v);
    const out = [];
    for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        if (typeof k !== "string") continue;
        const d = getOwn(v, k);
        if (d === undefined || !d.enumerable) continue;
        push(out, [k, dataValue(d, "an object's property")]);
    }
    return out;
}

function list(xs, depth) {
    let text = "[";
    for (let i = 0; i < xs.length; i++) text += (i ? "," : "") + encode(xs[i], depth + 1);
    return text + "]";
}

function pairs(xs, depth, keysAreText) {
    let text = "[";
    for (let i = 0; i < xs.length; i++) {
        const p = xs[i];
        text += (i ? "," : "") + "[" + (keysAreText ? quote(p[0]) : encode(p[0], depth + 1)) + "," + encode(p[1], depth + 1) + "]";
    }
    return text + "]";
}

/** One value as the text of its type-tagged JSON (wire.py). */
function encode(v, depth) {
    if (depth > MAX_DEPTH) throw new RangeErrorCtor("value nested too deeply");
    if (v === null || v === undefined) return "null";
    switch (typeof v) {
        case "boolean":
            return v ? "true" : "false";
        case "string":
            return quote(v);
        case "bigint":
            return '{"int":' + quote(apply(bigToString, v, [])) + "}";
        case "number":
            if (isInteger(v)) return '{"num":' + quote(apply(bigToString, toBigInt(v), [])) + "}";
            return '{"float":' + (isNaNumber(v) ? '"nan"' : v === Infinity ? '"inf"' : v === -Infinity ? '"-inf"' : quote(v)) + "}";
        case "object":
            break;
        default:
            if (typeof v === "function" && isProxy(v)) tamper("a Proxy among its values");
            return '{"opaque":' + quote("<" + typeof v + ">") + "}";
    }
    const xs = items(v);
    if (xs === null) return '{"opaque":' + quote("<object>") + "}";
    if (isArray(v)) return '{"seq":' + list(xs, depth) + "}";
    if (isSet(v)) return '{"set":' + list(xs, depth) + "}";
    if (isMap(v)) {
        const ps = [];
        for (let i = 0; i < xs.length; i++) push(ps, [dataValue(getOwn(xs[i], "0"), "a Map entry"), dataValue(getOwn(xs[i], "1"), "a Map entry")]);
        return '{"map":' + pairs(ps, depth, false) + "}";
    }
    return '{"map":' + pairs(xs, depth, true) + "}";
}

/** Every object reachable from v (v included), into the set `into`; Map entries are arrays of
 * the harness's own, skipped. */
function reach(v, into, depth) {
    if (v === null || typeof v !== "object" || depth > MAX_DEPTH || apply(setHas, into, [v])) return;
    apply(setAdd, into, [v]);
    const xs = items(v);
    if (xs === null) return;
    for (let i = 0; i < xs.length; i++) {
        const x = xs[i];
        if (isMap(v) || (!isArray(v) && !isSet(v))) {
            // Map entries and object properties are [key, value] pairs made here.
            reach(x[0], into, depth + 1);
            reach(x[1], into, depth + 1);
        } else reach(x, into, depth + 1);
    }
}

/** Whether the answer is, or holds at any depth, an object of the arguments at any depth. */
function shares(v, args) {
    const mine = new SetCtor();
    for (let i = 0; i < args.length; i++) reach(args[i], mine, 0);
    const theirs = new SetCtor();
    reach(v, theirs, 0);
    let found = false;
    const it = apply(setValues, theirs, []);
    for (;;) {
        const r = apply(setNext, it, []);
        if (r.done) break;
        if (apply(setHas, mine, [r.value])) found = true;
    }
    return found;
}

function kind(e) {
    try {
        if (e instanceof RangeErrorCtor && apply(reExec, /call stack|Invalid array length|Invalid string length|allocation/i, [StringCtor(e.message)]) !== null) return "resource";
        const code = e !== null && typeof e === "object" ? e.code : undefined;
        if (code === "EAGAIN" || code === "ENOMEM" || code === "EMFILE" || code === "ENFILE" || code === "ENOSPC" || code === "EFBIG") return "resource";
    } catch {
        // an exception whose own properties throw: the answer's runtime error
    }
    return "runtime";
}

function text(e) {
    try {
        const s = e instanceof ErrorCtor ? StringCtor(e.name) + ": " + StringCtor(e.message) : "thrown: " + StringCtor(e);
        return apply(strSlice, s, [0, 300]);
    } catch {
        return "an unprintable exception";
    }
}

// Everything the harness needs from its input is read before the answer is loaded.
const calls = parseJson(readFileSync(callsPath, "utf8")).map((c) => c.map(decode));
nextStep(); // the load's
// ES module syntax is accepted: top-level `export` keywords are dropped, the function is what counts.
const source = apply(strReplace, apply(strReplace, readFileSync(candidatePath, "utf8"), [/^export\s+default\s+(?=(async\s+)?function\b|class\b)/gm, ""]), [
    /^export\s+(?=(async\s+)?function\b|const\b|let\b|var\b|class\b)/gm,
    ""
]);
let body;
try {
    body = new FunctionCtor("module", "exports", "require", source + "\n;return typeof " + fn + " !== 'undefined' ? " + fn + " : undefined;");
} catch (e) {
    say(e instanceof SyntaxErrorCtor ? '{"load":"syntax","text":' + quote(text(e)) + "}" : '{"load":' + quote(kind(e)) + ',"text":' + quote(text(e)) + "}");
    exit(0);
}
let f;
try {
    const mod = { exports: {} };
    f = body(mod, mod.exports, require);
    const ex = mod.exports;
    if (typeof f !== "function" && ex !== null && typeof ex === "object" && typeof ex[fn] === "function") f = ex[fn];
    if (typeof f !== "function" && typeof ex === "function" && ex.name === fn) f = ex;
} catch (e) {
    say('{"load":' + quote(kind(e)) + ',"text":' + quote(text(e)) + "}");
    exit(0);
}
if (typeof f !== "function") {
    say('{"load":"missing","text":' + quote("no function named " + fn + " is defined") + "}");
    exit(0);
}
if (isProxy(f)) {
    say('{"tamper":' + quote("its function is a Proxy") + "}");
    exit(0);
}
let head = "";
try {
    head = apply(fnToString, f, []);
} catch {
    head = "";
}
const params = apply(strSlice, head, [0, apply(strIndexOf, head, [")"]) + 1]);
const flexible = apply(reExec, /\.\.\.|=/, [params]) !== null || apply(reExec, /\barguments\b/, [head]) !== null;
const lengthDesc = getOwn(f, "length");
const fLength = lengthDesc !== undefined && getOwn(lengthDesc, "value") !== undefined && typeof lengthDesc.value === "number" ? lengthDesc.value : 0;
if (fLength > arity || (fLength < arity && !flexible)) {
    say('{"load":"arity","text":' + quote(fn + " takes " + fLength + " argument(s); expected " + arity) + "}");
    exit(0);
}
say('{"load":"ok"}');
for (let i = 0; i < calls.length; i++) {
    const args = calls[i];
    nextStep();
    let v;
    try {
        v = apply(f, undefined, args);
    } catch (e) {
        say('{"i":' + i + ',"err":' + quote(kind(e)) + ',"text":' + quote(text(e)) + "}");
        continue;
    }
    const hook = redefinedHook();
    if (hook !== "") {
        say('{"tamper":' + quote("a redefined " + hook) + "}");
        exit(0);
    }
    let line;
    try {
        // The arguments first: nothing of the answer's runs between its return and this record.
        const after = sendArgs ? list(args, -1) : "null";
        line = '{"i":' + i + ',"after":' + after + ',"shares":' + (shares(v, args) ? "true" : "false") + ',"v":' + encode(v, 0) + "}";
    } catch (e) {
        if (e === STOP) {
            say('{"tamper":' + quote(tampered) + "}");
            exit(0);
        }
        line = '{"i":' + i + ',"v":{"opaque":' + quote("<a value the harness cannot write: " + text(e) + ">") + '},"after":null}';
    }
    say(line);
}
nextStep();
say('{"done":true}');
exit(0);
