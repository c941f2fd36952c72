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
 * Model output is untrusted and can be megabytes long: every pass here is linear in its length
 * (explicit scans, or regexes without overlapping quantifiers that could backtrack).
 */
export function extractCode(response: string, functionName?: string): string | null {
    const text = dropReasoning(response.replace(/\r\n?/g, "\n"));
    const blocks = fencedBlocks(text);
    if (blocks.length > 0) return fromBlocks(blocks, functionName);
    return bareRun(text);
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
    // Closed sections, first opening to the next closing; an opening never closed is kept.
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

function fencedBlocks(text: string): Block[] {
    const lines = text.split("\n");
    const blocks: Block[] = [];
    for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        const bracket = /^\s*\[PYTHON\]\s*$/i.exec(line);
        if (bracket) {
            const body: string[] = [];
            for (i++; i < lines.length && !/^\s*\[\/PYTHON\]\s*$/i.test(lines[i]!); i++) body.push(lines[i]!);
            blocks.push({ lang: "python", code: body.join("\n") });
            continue;
        }
        const open = openingFence(line);
        if (!open) continue;
        const { indent, fence } = open;
        const lang = open.lang.toLowerCase().replace(/^\{?\.?/, "").replace(/\}$/, "");
        const body: string[] = [];
        for (i++; i < lines.length; i++) {
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
    return blocks.filter((b) => b.code.trim() !== "");
}

function definesFunction(code: string, name?: string): boolean {
    const re = name === undefined ? /^[ \t]*(?:async[ \t]+)?def[ \t]+\w+[ \t]*\(/m : new RegExp(`^(?:async[ \\t]+)?def[ \\t]+${escapeRegex(name)}[ \\t]*\\(`, "m");
    return re.test(code);
}

function escapeRegex(s: string): string {
    return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Top-level names a block binds: functions, classes, imports, simple assignments. */
function boundNames(code: string): Set<string> {
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

/**
 * Names a block binds inside its functions: parameters, assignment and loop targets, `as` names.
 * A usage block that assigns `result = sum_range(...)` must not be joined just because the
 * function has a local `result`.
 */
function localNames(code: string): Set<string> {
    const names = new Set<string>();
    const add = (list: string) => {
        for (const m of list.matchAll(/(?:^|[,(\s*])\**([A-Za-z_]\w*)/g)) names.add(m[1]!);
    };
    // Parameter lists: `def f(` up to the next `)`, which may be lines further on.
    let nextClose = -1;
    for (const m of code.matchAll(/\bdef[ \t]+\w+[ \t]*\(/g)) {
        const from = m.index + m[0].length;
        if (nextClose < from) nextClose = code.indexOf(")", from);
        if (nextClose < 0) break;
        add(code.slice(from, nextClose).replace(/[:=][^,]*/g, ""));
    }
    // Plain names and bare tuples of them only: `memo[k] = v`, `self.x = v` and a call's
    // `f(a, key=v)` bind nothing new.
    for (const line of code.split("\n")) {
        const target = assignmentTarget(line);
        if (target !== null && !/^(?:if|elif|else|while|for|with|try|except|finally|return|lambda|assert|del|not)\b/.test(target)) add(target);
    }
    for (const m of code.matchAll(/\bfor[ \t]+/g)) {
        const span = /[\w, \t()]*/y;
        span.lastIndex = m.index + m[0].length;
        const s = span.exec(code)![0];
        // The shortest target followed by blanks and `in`: find a blank just before `in`,
        // then walk back over the blank run (a fixed-length pattern: no backtracking).
        const inAt = /[ \t]in\b/g;
        inAt.lastIndex = 0;
        for (let hit = inAt.exec(s); hit; hit = inAt.exec(s)) {
            let k = hit.index;
            while (k > 0 && (s[k - 1] === " " || s[k - 1] === "\t")) k--;
            if (k >= 1) {
                add(s.slice(0, k));
                break;
            }
        }
    }
    for (const m of code.matchAll(/\bas[ \t]+([A-Za-z_]\w*)/g)) names.add(m[1]!);
    return names;
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
    const names = new Set<string>();
    const n = code.length;
    let i = 0;
    while (i < n) {
        const c = code[i]!;
        if (c === "#") {
            const eol = code.indexOf("\n", i);
            i = eol < 0 ? n : eol;
        } else if (c === '"' || c === "'") {
            if (code.startsWith(c + c + c, i)) {
                const end = code.indexOf(c + c + c, i + 3);
                i = end < 0 ? n : end + 3;
            } else {
                let j = i + 1;
                while (j < n && code[j] !== c && code[j] !== "\n") j += code[j] === "\\" ? 2 : 1;
                i = j + 1;
            }
        } else if (/[A-Za-z_]/.test(c)) {
            let j = i + 1;
            while (j < n && /\w/.test(code[j]!)) j++;
            names.add(code.slice(i, j));
            i = j;
        } else if (/\w/.test(c)) {
            // digits: skip the whole literal (e.g. 1e5, 0x1f) so its letters are no name
            let j = i + 1;
            while (j < n && /\w/.test(code[j]!)) j++;
            i = j;
        } else i++;
    }
    return names;
}

function fromBlocks(all: Block[], functionName?: string): string {
    const python = all.filter((b) => !NON_PYTHON.has(b.lang));
    const blocks = python.length > 0 ? python : all;
    const main =
        (functionName !== undefined ? blocks.find((b) => definesFunction(b.code, functionName)) : undefined) ??
        blocks.find((b) => definesFunction(b.code)) ??
        blocks[0]!;
    const own = boundNames(main.code);
    const local = localNames(main.code);
    const needed = [...usedNames(main.code)].filter((n) => !own.has(n) && !local.has(n));
    const helpers = blocks.filter((b) => {
        if (b === main) return false;
        if (functionName !== undefined && definesFunction(b.code, functionName)) return false;
        const names = boundNames(b.code);
        return needed.some((n) => names.has(n));
    });
    if (helpers.length === 0) return trimBlank(main.code);
    const ordered = blocks.filter((b) => b === main || helpers.includes(b));
    return ordered.map((b) => trimBlank(b.code)).join("\n");
}

const START = /^(?:(?:async[ \t]+)?def[ \t]+\w+[ \t]*\(|class[ \t]+\w+|import[ \t]+\w|from[ \t]+[\w.]+[ \t]+import[ \t]|@\w)/;
const CODE_LINE =
    /^(?:(?:async[ \t]+)?def\b|class\b|import\b|from\b|@|#|if\b|elif\b|else\b|for\b|while\b|try\b|except\b|finally\b|with\b|return\b|print\(|assert\b|raise\b|pass\b|global\b|nonlocal\b|[A-Za-z_][\w.]*(?:\[[^\]]*\])?[ \t]*(?:=|\(|\+=|-=|\*=|\/=)|[A-Za-z_]\w*[ \t]*$|[)\]}])/;

function bareRun(text: string): string | null {
    const lines = text.split("\n");
    let best: [number, number] | null = null;
    for (let i = 0; i < lines.length; i++) {
        if (!START.test(lines[i]!)) continue;
        let end = i + 1;
        let lastCode = i;
        for (; end < lines.length; end++) {
            const l = lines[end]!;
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
