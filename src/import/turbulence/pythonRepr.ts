/**
 * A reader for Python literals and printed objects (`repr`/`str` of SDK response objects, parameter
 * tuples), written by hand because no maintained JavaScript library reads Python's literal syntax
 * and nothing here may `eval` it: the text is data published by others. It reads:
 *
 * - strings in every quoting Python prints or accepts: '…', "…", '''…''', """…""", with r/b/u/f
 *   prefixes, the escapes \\ \' \" \n \t \r \a \b \f \v \0-\777 \xNN \uNNNN \UNNNNNNNN and
 *   backslash-newline, and implicit concatenation of adjacent literals ('a' "b" is 'ab');
 * - numbers (ints, floats, exponents, underscores), True/False/None and other names;
 * - lists, tuples, dicts and sets; calls `Name(arg, key=value)` as printed objects;
 * - `<… object at 0x…>` as an opaque token;
 * - at top level, pydantic's `key=value key=value …` (the str() of a pydantic model).
 *
 * Every step advances through the text, so reading is linear in its length.
 */
import type { ParamValue } from "../../vocabulary.js";

/** A printed object: `Name(args…, key=value…)`, or pydantic's bare `key=value …` (name ""). */
export interface PyCall {
    kind: "call";
    name: string;
    args: PyValue[];
    kwargs: Record<string, PyValue>;
}

/** A bare name other than True/False/None (an enum member, `inf`, …), or an opaque `<…>` token. */
export interface PyName {
    kind: "name";
    name: string;
}

export interface PyDict {
    kind: "dict";
    entries: [PyValue, PyValue][];
}

export type PyValue = string | number | boolean | null | PyValue[] | PyCall | PyName | PyDict;

/** Why a text could not be read, with the position (0-based) where reading stopped. */
export class PyReprError extends Error {
    constructor(
        message: string,
        readonly at: number
    ) {
        super(`${message} at character ${at + 1}`);
    }
}

const SIMPLE_ESCAPES: Record<string, string> = { "\\": "\\", "'": "'", '"': '"', n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", f: "\f", v: "\v" };
const MAX_DEPTH = 200;

class Reader {
    pos = 0;
    private depth = 0;

    constructor(private readonly s: string) {}

    fail(message: string): never {
        throw new PyReprError(message, this.pos);
    }

    skipSpace(): void {
        while (this.pos < this.s.length && /\s/.test(this.s[this.pos]!)) this.pos++;
    }

    atEnd(): boolean {
        this.skipSpace();
        return this.pos >= this.s.length;
    }

    peek(): string {
        return this.s[this.pos] ?? "";
    }

    /** A string literal starts here (after an optional prefix of up to two letters). */
    atString(): boolean {
        const m = /^[rRbBuUfF]{0,2}['"]/.exec(this.s.slice(this.pos, this.pos + 3));
        return m !== null;
    }

    /** One or more adjacent string literals, concatenated. */
    strings(): string {
        let out = this.string();
        for (;;) {
            const save = this.pos;
            this.skipSpace();
            if (!this.atString()) {
                this.pos = save;
                return out;
            }
            out += this.string();
        }
    }

    string(): string {
        let raw = false;
        while (/[rRbBuUfF]/.test(this.peek())) {
            if (/[rR]/.test(this.peek())) raw = true;
            this.pos++;
        }
        const q = this.peek();
        if (q !== "'" && q !== '"') this.fail("expected a string literal");
        const triple = this.s.startsWith(q.repeat(3), this.pos);
        const close = triple ? q.repeat(3) : q;
        this.pos += close.length;
        let out = "";
        for (;;) {
            if (this.pos >= this.s.length) this.fail("unterminated string literal");
            const c = this.s[this.pos]!;
            if (this.s.startsWith(close, this.pos)) {
                this.pos += close.length;
                return out;
            }
            if (c === "\n" && !triple) this.fail("end of line inside a string literal");
            if (c !== "\\") {
                out += c;
                this.pos++;
                continue;
            }
            const e = this.s[this.pos + 1];
            if (e === undefined) this.fail("unterminated string literal");
            if (raw) {
                // A raw string keeps the backslash; it still cannot end the literal with the quote it escapes.
                out += c + e;
                this.pos += 2;
                continue;
            }
            out += this.escape(e);
        }
    }

    /** The character(s) of the escape at pos (pos on the backslash); advances past it. */
    private escape(e: string): string {
        const start = this.pos;
        this.pos += 2;
        if (e in SIMPLE_ESCAPES) return SIMPLE_ESCAPES[e]!;
        if (e === "\n") return "";
        if (/[0-7]/.test(e)) {
            let digits = e;
            while (digits.length < 3 && /[0-7]/.test(this.peek())) digits += this.s[this.pos++];
            return String.fromCodePoint(parseInt(digits, 8));
        }
        const hexLength = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
        if (hexLength) {
            const hex = this.s.slice(this.pos, this.pos + hexLength);
            if (!new RegExp(`^[0-9a-fA-F]{${hexLength}}$`).test(hex)) {
                this.pos = start;
                this.fail(`\\${e} needs ${hexLength} hex digits`);
            }
            this.pos += hexLength;
            const cp = parseInt(hex, 16);
            if (cp > 0x10ffff) {
                this.pos = start;
                this.fail(`\\${e}${hex} is not a Unicode code point`);
            }
            return String.fromCodePoint(cp);
        }
        if (e === "N") {
            this.pos = start;
            this.fail("\\N{…} escapes (Unicode names) are not supported");
        }
        // Python keeps an unknown escape as written.
        return "\\" + e;
    }

    value(): PyValue {
        this.skipSpace();
        if (++this.depth > MAX_DEPTH) this.fail("nested too deeply");
        try {
            return this.valueInner();
        } finally {
            this.depth--;
        }
    }

    private valueInner(): PyValue {
        const c = this.peek();
        if (c === "") this.fail("unexpected end of text");
        if (this.atString()) return this.strings();
        if (/[-+.\d]/.test(c)) return this.number();
        if (c === "[") return this.sequence("[", "]");
        if (c === "(") return this.sequence("(", ")");
        if (c === "{") return this.braces();
        if (c === "<") return this.opaque();
        if (/[A-Za-z_]/.test(c)) {
            const name = this.name();
            this.skipSpace();
            if (this.peek() === "(") return this.call(name);
            if (name === "True") return true;
            if (name === "False") return false;
            if (name === "None") return null;
            return { kind: "name", name };
        }
        this.fail(`unexpected '${c}'`);
    }

    name(): string {
        const m = /^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*/.exec(this.s.slice(this.pos, this.pos + 512));
        if (!m) this.fail("expected a name");
        this.pos += m[0].length;
        return m[0];
    }

    private number(): number | PyName {
        const m = /^[-+]?(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][-+]?\d+)?j?/.exec(this.s.slice(this.pos, this.pos + 512));
        if (!m) {
            // -inf, +nan
            const sign = this.s[this.pos];
            if (sign === "-" || sign === "+") {
                this.pos++;
                const n = this.name();
                if (n === "inf") return sign === "-" ? -Infinity : Infinity;
                if (n === "nan") return NaN;
                return { kind: "name", name: sign + n };
            }
            this.fail("expected a number");
        }
        this.pos += m[0].length;
        if (m[0].endsWith("j")) return { kind: "name", name: m[0] };
        return Number(m[0].replace(/_/g, ""));
    }

    private sequence(open: string, close: string): PyValue[] {
        this.pos++;
        const out: PyValue[] = [];
        for (;;) {
            this.skipSpace();
            if (this.peek() === close) {
                this.pos++;
                return out;
            }
            out.push(this.value());
            this.skipSpace();
            if (this.peek() === ",") this.pos++;
            else if (this.peek() !== close) this.fail(`expected ',' or '${close}'`);
        }
    }

    private braces(): PyDict | PyValue[] {
        this.pos++;
        const entries: [PyValue, PyValue][] = [];
        const items: PyValue[] = [];
        for (;;) {
            this.skipSpace();
            if (this.peek() === "}") {
                this.pos++;
                return items.length ? items : { kind: "dict", entries };
            }
            const k = this.value();
            this.skipSpace();
            if (this.peek() === ":") {
                if (items.length) this.fail("a set cannot hold key: value pairs");
                this.pos++;
                entries.push([k, this.value()]);
            } else {
                if (entries.length) this.fail("expected ':'");
                items.push(k);
            }
            this.skipSpace();
            if (this.peek() === ",") this.pos++;
            else if (this.peek() !== "}") this.fail("expected ',' or '}'");
        }
    }

    private opaque(): PyName {
        const end = this.s.indexOf(">", this.pos);
        if (end < 0) this.fail("unterminated '<…>'");
        const name = this.s.slice(this.pos, end + 1);
        this.pos = end + 1;
        return { kind: "name", name };
    }

    private call(name: string): PyCall {
        this.pos++;
        const out: PyCall = { kind: "call", name, args: [], kwargs: {} };
        for (;;) {
            this.skipSpace();
            if (this.peek() === ")") {
                this.pos++;
                return out;
            }
            const kw = /^([A-Za-z_]\w*)\s*=(?!=)/.exec(this.s.slice(this.pos, this.pos + 512));
            if (kw) {
                this.pos += kw[0].length;
                out.kwargs[kw[1]!] = this.value();
            } else out.args.push(this.value());
            this.skipSpace();
            if (this.peek() === ",") this.pos++;
            else if (this.peek() !== ")") this.fail("expected ',' or ')'");
        }
    }

    /** pydantic's str(): `key=value key=value …` up to the end. */
    fields(): PyCall {
        const out: PyCall = { kind: "call", name: "", args: [], kwargs: {} };
        while (!this.atEnd()) {
            const kw = /^([A-Za-z_]\w*)=(?!=)/.exec(this.s.slice(this.pos, this.pos + 512));
            if (!kw) this.fail("expected key=value");
            this.pos += kw[0].length;
            out.kwargs[kw[1]!] = this.value();
        }
        return out;
    }
}

/** One Python literal or printed object, the whole text; pydantic's `key=value …` form reads as a call named "". */
export function parsePythonRepr(text: string): PyValue {
    const r = new Reader(text);
    r.skipSpace();
    if (/^[A-Za-z_]\w*=(?!=)/.test(text.slice(r.pos, r.pos + 512))) return r.fields();
    const v = r.value();
    if (!r.atEnd()) r.fail("unexpected text after the value");
    return v;
}

/** The string literal(s) at `at` (adjacent literals concatenated) and where they end. */
export function readPythonString(text: string, at = 0): { value: string; end: number } {
    const r = new Reader(text);
    r.pos = at;
    const value = r.strings();
    return { value, end: r.pos };
}

const isPlain = (x: PyValue): x is ParamValue =>
    typeof x === "string" || typeof x === "boolean" || (typeof x === "number" && Number.isFinite(x)) || (Array.isArray(x) && x.every(isPlain));

/** One Python literal as an eddy parameter value (a number, string, boolean or list of them), or undefined. */
export function parsePythonValue(text: string): ParamValue | undefined {
    try {
        const v = parsePythonRepr(text);
        return isPlain(v) ? v : undefined;
    } catch {
        return undefined;
    }
}

/**
 * A parameter tuple as Turbulence's files print it (`(3, 'a', True)`, `[14, 64]`, `7`): its values
 * as eddy parameter values, or undefined when it is not one (a name, a dict, a printed object).
 */
export function parsePythonTuple(text: string): ParamValue[] | undefined {
    const v = parsePythonValue(text);
    return v === undefined ? undefined : Array.isArray(v) ? v : [v];
}
