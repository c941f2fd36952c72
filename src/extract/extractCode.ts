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
    let out = text.replace(/<think(?:ing)?>[\s\S]*?<\/think(?:ing)?>/gi, "");
    const lone = out.search(/<\/think(?:ing)?>/i);
    if (lone >= 0) out = out.slice(out.indexOf(">", lone) + 1);
    return out;
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
        const open = /^( {0,3})(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/.exec(line);
        if (!open) continue;
        const indent = open[1]!.length;
        const fence = open[2]!;
        const lang = open[3]!.toLowerCase().replace(/^\{?\.?/, "").replace(/\}$/, "");
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
    for (const m of code.matchAll(/\bdef[ \t]+\w+[ \t]*\(([^)]*)\)/g)) add(m[1]!.replace(/[:=][^,]*/g, ""));
    // Plain names and bare tuples of them only: `memo[k] = v`, `self.x = v` and a call's
    // `f(a, key=v)` bind nothing new.
    for (const m of code.matchAll(/^[ \t]*([A-Za-z_][\w, \t]*?)[ \t]*(?::[^=\n]*)?(?:[-+*/%&|^@]|\/\/|\*\*|<<|>>)?=(?!=)/gm))
        if (!/^(?:if|elif|else|while|for|with|try|except|finally|return|lambda|assert|del|not)\b/.test(m[1]!)) add(m[1]!);
    for (const m of code.matchAll(/\bfor[ \t]+([\w, \t()]+?)[ \t]+in\b/g)) add(m[1]!);
    for (const m of code.matchAll(/\bas[ \t]+([A-Za-z_]\w*)/g)) names.add(m[1]!);
    return names;
}

function usedNames(code: string): Set<string> {
    // Comments and strings may mention names without using them; strip them roughly first.
    const stripped = code.replace(/#[^\n]*/g, "").replace(/("""|''')[\s\S]*?\1|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g, "\"\"");
    return new Set(stripped.match(/\b[A-Za-z_]\w*\b/g) ?? []);
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
function trimBlank(code: string): string {
    return code.replace(/^(?:[ \t]*\n)+/, "").replace(/(?:\n[ \t]*)+$/, "") + "\n";
}
