/**
 * Code extraction from a raw model response. Only ever slices the response: lines are taken
 * as they are (a fenced block loses just the fence's own indentation, as Markdown does), so
 * the judge sees exactly what the model wrote.
 *
 * Rules, in order:
 * 1. Reasoning is dropped: closed `<think>…</think>` sections, and everything before a lone
 *    `</think>` (templates that open the section in the prompt).
 * 2. Fenced blocks (``` or ~~~, any info string; an unclosed last fence runs to the end) and
 *    `[PYTHON]…[/PYTHON]` blocks. Blocks tagged as another language (bash, json, text…) are
 *    ignored unless nothing else exists. The block chosen is the first that defines the
 *    requested function (else the first that defines any function, else the first block).
 *    When it uses a name that it does not define but another block does (a helper function,
 *    a class, a constant, an import), those blocks are prepended in response order — models
 *    often split helpers and the main function into separate blocks.
 * 3. No fences: the longest run of lines that looks like Python and starts at a `def`,
 *    `class`, `import`, `from` or decorator line.
 * Returns null when nothing code-like is found (→ no_function).
 *
 * In another language (`language`), only fenced blocks count: those tagged with one of the
 * language's names (```js, ```javascript, ```ruby…), else untagged ones; the first that mentions
 * the requested function is taken, else the first. There is no unfenced fallback.
 *
 * Model output is untrusted and can be megabytes long, and this runs on the event loop: every
 * pass here is linear in its length (explicit scans, or regexes without overlapping quantifiers
 * that could backtrack), and no pass is restarted from every position of the text: a scan that
 * could cover the same characters again for the next match (an unclosed parameter list shared
 * by many `def`s, the run after each of many `for`s) remembers where it got to instead. Each pass
 * charges what it examines to a work counter (`lastExtractionWork`), so tests can check that the
 * total stays proportional to the response's length without timing anything.
 */
import { DEFAULT_LANGUAGE, isJudgeLanguage, languageInfo, type Language } from "../languages/languages.js";

export function extractCode(response: string, functionName?: string, language: Language = DEFAULT_LANGUAGE): string | null {
    work = 0;
    charge(response.length);
    const text = dropReasoning(response.replace(/\r\n?/g, "\n"));
    const blocks = fencedBlocks(text);
    if (!isJudgeLanguage(language)) return fromForeignBlocks(blocks, language, functionName);
    if (blocks.length > 0) return fromBlocks(blocks, functionName);
    return bareRun(text);
}

function fromForeignBlocks(all: Block[], language: Language, functionName?: string): string | null {
    const names = languageInfo(language).fences;
    const tagged = all.filter((b) => names.includes(b.lang));
    const blocks = tagged.length > 0 ? tagged : all.filter((b) => b.lang === "");
    if (blocks.length === 0) return null;
    const word = functionName === undefined ? null : new RegExp("(^|[^\\w$])" + functionName + "(?![\\w$])");
    const main = (word ? blocks.find((b) => { charge(b.code.length); return word.test(b.code); }) : undefined) ?? blocks[0]!;
    return trimBlank(main.code);
}

let work = 0;

function charge(chars: number): void {
    work += chars;
}

/**
 * Characters examined by the last `extractCode` call, summed over its passes: a pass over the
 * whole response counts its length once, a pass over one line or block counts that line or
 * block. A few dozen passes at most touch each character, so this stays within a small multiple
 * of the response's length; a pass that rescanned from every position would make it grow with
 * the square of the length.
 */
export function lastExtractionWork(): number {
    return work;
}

interface Block {
    lang: string;
    code: string;
}

const NON_PYTHON = new Set([
    "bash", "sh", "shell", "console", "zsh", "powershell", "ps", "bat", "cmd",
    "text", "txt", "plaintext", "output", "json", "yaml", "yml", "toml", "ini", "xml", "html", "css",
    "js", "javascript", "ts", "typescript", "java", "c", "cpp", "c++", "go", "rust", "ruby", "sql", "diff", "markdown", "md"
]);

function dropReasoning(text: string): string {
    // Closed sections, first opening to the next closing; an opening never closed is kept. Each
    // search starts where the last one ended, and the search for a closing tag runs once to the
    // end at most (then the loop stops): two passes.
    charge(2 * text.length);
    const open = /<think(?:ing)?>/gi;
    const close = /<\/think(?:ing)?>/gi;
    let out = "";
    let pos = 0;
    for (;;) {
        open.lastIndex = pos;
        const o = open.exec(text);
        if (!o) break;
        close.lastIndex = o.index + o[0].length;
        const c = close.exec(text);
        if (!c) break;
        out += text.slice(pos, o.index);
        pos = c.index + c[0].length;
    }
    out += text.slice(pos);
    const lone = out.search(/<\/think(?:ing)?>/i);
    if (lone >= 0) out = out.slice(out.indexOf(">", lone) + 1);
    return out;
}

/** An opening fence: up to 3 spaces, 3+ backticks or tildes, an info string without backticks. */
function openingFence(line: string): { indent: number; fence: string; lang: string } | null {
    let i = 0;
    while (i < 3 && line[i] === " ") i++;
    const ch = line[i];
    if (ch !== "`" && ch !== "~") return null;
    let j = i;
    while (line[j] === ch) j++;
    if (j - i < 3) return null;
    const rest = line.slice(j);
    if (rest.includes("`")) return null;
    const lang = rest.trimStart().split(/\s/, 1)[0] ?? "";
    return { indent: i, fence: line.slice(i, j), lang };
}

/**
 * One pass over the lines: each line is looked at once, as a possible opening or as a body line
 * (its closing test and indentation strip), and each body line belongs to one block.
 */
function fencedBlocks(text: string): Block[] {
    const lines = text.split("\n");
    charge(text.length);
    const blocks: Block[] = [];
    for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        charge(line.length + 1);
        const bracket = /^\s*\[PYTHON\]\s*$/i.exec(line);
        if (bracket) {
            const body: string[] = [];
            for (i++; i < lines.length && !/^\s*\[\/PYTHON\]\s*$/i.test(lines[i]!); i++) {
                charge(lines[i]!.length + 1);
                body.push(lines[i]!);
            }
            blocks.push({ lang: "python", code: body.join("\n") });
            continue;
        }
        const open = openingFence(line);
        if (!open) continue;
        const { indent, fence } = open;
        const lang = open.lang.toLowerCase().replace(/^\{?\.?/, "").replace(/\}$/, "");
        const body: string[] = [];
        for (i++; i < lines.length; i++) {
            charge(lines[i]!.length + 1);
            const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(lines[i]!);
            if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length) break;
            // CommonMark: content loses at most the opening fence's indentation.
            let l = lines[i]!;
            let k = 0;
            while (k < indent && l.startsWith(" ")) {
                l = l.slice(1);
                k++;
            }
            body.push(l);
        }
        blocks.push({ lang, code: body.join("\n") });
    }
    charge(text.length);
    return blocks.filter((b) => b.code.trim() !== "");
}

/** A test for `def name(` at the start of a line (any `def` when no name is given). */
function definitionTest(name?: string): (code: string) => boolean {
    const re = name === undefined ? /^[ \t]*(?:async[ \t]+)?def[ \t]+\w+[ \t]*\(/m : new RegExp(`^(?:async[ \\t]+)?def[ \\t]+${escapeRegex(name)}[ \\t]*\\(`, "m");
    return (code) => {
        charge(code.length);
        return re.test(code);
    };
}

function escapeRegex(s: string): string {
    return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Top-level names a block binds: functions, classes, imports, simple assignments. */
function boundNames(code: string): Set<string> {
    // Four line-anchored regexes over the block, then each import list once more.
    charge(5 * code.length);
    const names = new Set<string>();
    for (const m of code.matchAll(/^(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)/gm)) names.add(m[1]!);
    // `import a.b as c, d` binds c and d; `from m import (x as y, z)` binds y and z.
    const imported = [...code.matchAll(/^import[ \t]+(.+)$/gm), ...code.matchAll(/^from[ \t]+\S+[ \t]+import[ \t]+\(?([^)\n]+)\)?$/gm)];
    for (const m of imported)
        for (const part of m[1]!.split(",")) {
            const bound = /\bas[ \t]+([A-Za-z_]\w*)/.exec(part) ?? /^\s*([A-Za-z_]\w*)/.exec(part);
            if (bound) names.add(bound[1]!);
        }
    for (const m of code.matchAll(/^([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)/gm)) names.add(m[1]!);
    return names;
}

// Character classes by UTF-16 code unit, exactly as the regexes this code replaced read them:
// `\w` is ASCII only, `\s` is Unicode white space and line terminators.
const isWordStart = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
const isWord = (c: number) => isWordStart(c) || (c >= 48 && c <= 57);
const isBlank = (c: number) => c === 32 || c === 9;
const isSpace = (c: number) =>
    c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
/** `[,(\s*]`: what may stand before a name in a parameter or target list. */
const beforeName = (c: number) => c === 44 || c === 40 || c === 42 || isSpace(c);
/** `[\w, \t()]`: what a `for` target list may be made of. */
const inForTarget = (c: number) => isWord(c) || c === 44 || c === 32 || c === 9 || c === 40 || c === 41;

/**
 * Adds the names in `s[from, to)` read as a list: every identifier (`[A-Za-z_]\w*`) that starts
 * the range or follows one of `,(*` or a blank, stars skipped (`*args`, `**kw`). One scan of the
 * range: the same set as matching `(?:^|[,(\s*])\**([A-Za-z_]\w*)` over the slice, without that
 * regex's retries over a long run of stars.
 */
function addNames(s: string, from: number, to: number, names: Set<string>): void {
    charge(to - from);
    let i = from;
    while (i < to) {
        if (!isWord(s.charCodeAt(i))) {
            i++;
            continue;
        }
        let j = i + 1;
        while (j < to && isWord(s.charCodeAt(j))) j++;
        if (isWordStart(s.charCodeAt(i)) && (i === from || beforeName(s.charCodeAt(i - 1)))) names.add(s.slice(i, j));
        i = j;
    }
}

/**
 * Names a block binds inside its functions: parameters, assignment and loop targets, `as` names.
 * A usage block that assigns `result = sum_range(...)` must not be joined just because the
 * function has a local `result`.
 */
function localNames(code: string): Set<string> {
    const names = new Set<string>();
    const n = code.length;
    // Parameter lists: `def f(` up to the next `)`, which may be lines further on, defaults and
    // annotations (`:` or `=` up to the next `,`) removed. Every `def` whose `(` comes before that
    // same `)` reads a suffix of the first one's list: rescanning each suffix is what made many
    // `def f(` lines with one `)` at the end quadratic. The first list is read whole, once. A
    // later suffix only adds names in its first stretch, up to the first `:`, `=`, `,` or `)`:
    // from the next `,` on it reads exactly as the first list does (a removal never crosses a
    // `,`), and within the stretch nothing is removed. Suffixes whose stretch ends at the same
    // place add nothing beyond the longest of them (each starts right after a `(`, so its first
    // name is one in the longer stretch too): each stretch is read once.
    charge(n);
    let close = -1; // the `)` closing the current list (the first after its `(`)
    let stretchEnd = -1; // the end of the stretch read last
    for (const m of code.matchAll(/\bdef[ \t]+\w+[ \t]*\(/g)) {
        const from = m.index + m[0].length;
        if (close < from) {
            close = code.indexOf(")", from);
            if (close < 0) break;
            charge(2 * (close - from));
            const list = code.slice(from, close).replace(/[:=][^,]*/g, "");
            addNames(list, 0, list.length, names);
            stretchEnd = stretchEndFrom(code, from, close);
        } else if (stretchEnd < from) {
            stretchEnd = stretchEndFrom(code, from, close);
            addNames(code, from, stretchEnd, names);
        }
    }
    // Plain names and bare tuples of them only: `memo[k] = v`, `self.x = v` and a call's
    // `f(a, key=v)` bind nothing new.
    for (const line of code.split("\n")) {
        charge(line.length + 1);
        const target = assignmentTarget(line);
        if (target !== null && !/^(?:if|elif|else|while|for|with|try|except|finally|return|lambda|assert|del|not)\b/.test(target)) addNames(target, 0, target.length, names);
    }
    // Loop targets: after `for` and blanks, the run of `[\w, \t()]` characters up to its first
    // blank + `in` + word boundary, blanks before it dropped. Many `for`s on one long line share
    // that run and that `in`: the run's end and the next `in` are found once and reused while
    // they still lie ahead, and targets ending at the same `in` add nothing beyond the first
    // (longest) one (each later one starts after a blank, so its names are names of the first).
    // Each character is scanned a bounded number of times.
    charge(n);
    const inAt = /[ \t]in\b/g;
    let runEnd = -1; // end of the `[\w, \t()]` run holding the current target's start
    let nextIn = -1; // the first blank + `in` at or after the last place searched; n if none
    let lastEnd = -1; // end of the last target added
    for (const m of code.matchAll(/\bfor[ \t]+/g)) {
        const start = m.index + m[0].length; // never a blank: the match took them all
        if (start >= runEnd) {
            runEnd = start;
            while (runEnd < n && inForTarget(code.charCodeAt(runEnd))) runEnd++;
            charge(runEnd - start);
        }
        if (nextIn < start) {
            inAt.lastIndex = start;
            const hit = inAt.exec(code);
            nextIn = hit ? hit.index : n;
            charge((hit ? inAt.lastIndex : n) - start);
        }
        // The `in` must lie inside the run (its three characters belong to the class, so it
        // does if it starts there). `start` is no blank, so the target is never empty.
        if (nextIn >= runEnd) continue;
        let end = nextIn;
        while (end > start && isBlank(code.charCodeAt(end - 1))) end--;
        charge(nextIn - end);
        if (end === lastEnd) continue;
        lastEnd = end;
        addNames(code, start, end, names);
    }
    charge(n);
    for (const m of code.matchAll(/\bas[ \t]+([A-Za-z_]\w*)/g)) names.add(m[1]!);
    return names;
}

/** The first `:`, `=`, `,` or `)` at or after `from`; `close` (a `)`) bounds the search. */
function stretchEndFrom(code: string, from: number, close: number): number {
    let i = from;
    for (; i < close; i++) {
        const c = code.charCodeAt(i);
        if (c === 58 || c === 61 || c === 44) break;
    }
    charge(i - from);
    return i;
}

/** The target of `name[, name…] [: annotation] [op]= value` on one line, or null. */
function assignmentTarget(line: string): string | null {
    const s = line.replace(/^[ \t]+/, "");
    const m = /^[A-Za-z_][\w, \t]*/.exec(s);
    if (!m) return null;
    let rest = s.slice(m[0].length);
    if (rest.startsWith(":")) {
        const eq = rest.indexOf("=");
        if (eq < 0) return null;
        rest = rest.slice(eq);
    } else if (/^(?:\/\/|\*\*|<<|>>)/.test(rest)) rest = rest.slice(2);
    else if (rest !== "" && "-+*/%&|^@".includes(rest[0]!)) rest = rest.slice(1);
    if (rest[0] !== "=" || rest[1] === "=") return null;
    return m[0].replace(/[ \t]+$/, "");
}

/** Identifiers outside comments and string literals, found in one pass. */
function usedNames(code: string): Set<string> {
    charge(code.length);
    const names = new Set<string>();
    const n = code.length;
    let i = 0;
    while (i < n) {
        const c = code.charCodeAt(i);
        if (c === 35 /* # */) {
            const eol = code.indexOf("\n", i);
            i = eol < 0 ? n : eol;
        } else if (c === 34 /* " */ || c === 39 /* ' */) {
            const q = code[i]!;
            if (code.startsWith(q + q + q, i)) {
                const end = code.indexOf(q + q + q, i + 3);
                i = end < 0 ? n : end + 3;
            } else {
                let j = i + 1;
                while (j < n && code[j] !== q && code[j] !== "\n") j += code[j] === "\\" ? 2 : 1;
                i = j + 1;
            }
        } else if (isWord(c)) {
            // A name, or a number: the whole literal is skipped (e.g. 1e5, 0x1f) so its letters
            // are no name.
            let j = i + 1;
            while (j < n && isWord(code.charCodeAt(j))) j++;
            if (isWordStart(c)) names.add(code.slice(i, j));
            i = j;
        } else i++;
    }
    return names;
}

function fromBlocks(all: Block[], functionName?: string): string {
    const python = all.filter((b) => !NON_PYTHON.has(b.lang));
    const blocks = python.length > 0 ? python : all;
    const definesRequested = functionName !== undefined ? definitionTest(functionName) : undefined;
    const definesAny = definitionTest();
    const main = (definesRequested ? blocks.find((b) => definesRequested(b.code)) : undefined) ?? blocks.find((b) => definesAny(b.code)) ?? blocks[0]!;
    const own = boundNames(main.code);
    const local = localNames(main.code);
    const needed = new Set([...usedNames(main.code)].filter((n) => !own.has(n) && !local.has(n)));
    // A block is a helper when it binds a needed name: look its own names up in `needed` (one
    // lookup per name it binds), never `needed` against each block (names × blocks).
    const helpers = new Set<Block>();
    for (const b of blocks) {
        if (b === main) continue;
        if (definesRequested?.(b.code)) continue;
        for (const name of boundNames(b.code)) {
            charge(1);
            if (needed.has(name)) {
                helpers.add(b);
                break;
            }
        }
    }
    if (helpers.size === 0) return trimBlank(main.code);
    const ordered = blocks.filter((b) => b === main || helpers.has(b));
    return ordered.map((b) => trimBlank(b.code)).join("\n");
}

const START = /^(?:(?:async[ \t]+)?def[ \t]+\w+[ \t]*\(|class[ \t]+\w+|import[ \t]+\w|from[ \t]+[\w.]+[ \t]+import[ \t]|@\w)/;
const CODE_LINE =
    /^(?:(?:async[ \t]+)?def\b|class\b|import\b|from\b|@|#|if\b|elif\b|else\b|for\b|while\b|try\b|except\b|finally\b|with\b|return\b|print\(|assert\b|raise\b|pass\b|global\b|nonlocal\b|[A-Za-z_][\w.]*(?:\[[^\]]*\])?[ \t]*(?:=|\(|\+=|-=|\*=|\/=)|[A-Za-z_]\w*[ \t]*$|[)\]}])/;

/**
 * Each line is tested once as a start, and once more at most as part of the run after a start:
 * the next start is looked for after the run (a start line is a code line, so a run never stops
 * before one).
 */
function bareRun(text: string): string | null {
    const lines = text.split("\n");
    charge(text.length);
    let best: [number, number] | null = null;
    for (let i = 0; i < lines.length; i++) {
        charge(lines[i]!.length + 1);
        if (!START.test(lines[i]!)) continue;
        let end = i + 1;
        let lastCode = i;
        for (; end < lines.length; end++) {
            const l = lines[end]!;
            charge(l.length + 1);
            if (l.trim() === "") continue;
            if (/^[ \t]/.test(l) || CODE_LINE.test(l)) {
                lastCode = end;
                continue;
            }
            break;
        }
        const span: [number, number] = [i, lastCode + 1];
        if (!best || span[1] - span[0] > best[1] - best[0]) best = span;
        i = lastCode;
    }
    if (!best) return null;
    return trimBlank(lines.slice(best[0], best[1]).join("\n"));
}

/** Drops leading and trailing blank lines only; never touches the code's own characters. */
export function trimBlank(code: string): string {
    // Leading: whole lines of spaces and tabs. Trailing: from the first line break of the final
    // run of blanks and line breaks. Explicit scans: linear whatever the input.
    let start = 0;
    for (;;) {
        let j = start;
        while (code[j] === " " || code[j] === "\t") j++;
        if (code[j] !== "\n") break;
        start = j + 1;
    }
    let end = code.length;
    while (end > start && (code[end - 1] === " " || code[end - 1] === "\t" || code[end - 1] === "\n")) end--;
    const cut = code.indexOf("\n", end);
    return code.slice(start, cut < 0 ? code.length : cut) + "\n";
}
