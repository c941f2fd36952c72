import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The documentation as files: README.md is a short guide, docs/ the reference (one page per topic,
 * all listed by docs/README.md), docs/design/ dated notes of development. Every page wraps at 100
 * columns, every link between them resolves (files and headings), and the user's pages carry no
 * development history: no issue numbers, no "passes". Their examples run in the examples files.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const read = (file: string): string => readFileSync(path.join(ROOT, file), "utf8");

const DESIGN = "docs/design";
const pages = (): string[] => readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`);
const notes = (): string[] => readdirSync(path.join(ROOT, DESIGN)).filter((f) => f.endsWith(".md")).map((f) => `${DESIGN}/${f}`);
/** Every Markdown file of the documentation. */
const ALL = (): string[] => ["README.md", ...pages(), ...notes()];
/** The user's documentation: README.md and docs/ outside docs/design/. */
const USER = (): string[] => ["README.md", ...pages()];

/** Lines of Markdown outside fenced code blocks, with their numbers (1-based). */
function proseLines(text: string): [number, string][] {
    let fence: string | undefined;
    const out: [number, string][] = [];
    text.split("\n").forEach((line, i) => {
        const m = /^\s*(`{3,}|~{3,})/.exec(line);
        if (fence) {
            if (m && m[1]!.startsWith(fence)) fence = undefined;
        } else if (m) fence = m[1];
        else out.push([i + 1, line]);
    });
    return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens (duplicates numbered). */
function anchors(text: string): Set<string> {
    const seen = new Map<string, number>();
    const out = new Set<string>();
    for (const [, line] of proseLines(text)) {
        const m = /^#{1,6}\s+(.*?)\s*#*$/.exec(line);
        if (!m) continue;
        const base = m[1]!
            .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
            .toLowerCase()
            .replace(/[^\p{L}\p{N}\s_-]/gu, "")
            .replace(/\s/g, "-");
        const n = seen.get(base) ?? 0;
        seen.set(base, n + 1);
        out.add(n === 0 ? base : `${base}-${n}`);
    }
    return out;
}

/** Relative links of a Markdown file (outside code): [text](target), target without a scheme. */
function links(text: string): [number, string][] {
    return proseLines(text).flatMap(([n, line]) =>
        [...line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)].map((m): [number, string] => [n, m[1]!]).filter(([, t]) => !/^[a-z]+:/.test(t))
    );
}

/** Words of development history that a user's page must not carry. */
const HISTORY: [RegExp, string][] = [
    [/(^|[\s(,;])#\d+\b/, "an issue number"],
    [/\bissues? #?\d+\b/i, "an issue number"],
    [/\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(st|nd|rd|th)|this|last|previous|next) pass\b/i, "a development pass"],
    [/\bpass(es)? on issue\b/i, "a development pass"]
];

describe("the documentation", () => {
    it("README.md is a guide of at most 600 lines, starting with the two commands a fresh machine needs", () => {
        const readme = read("README.md");
        expect(readme.split("\n").length).toBeLessThanOrEqual(600);
        expect(/```bash\n([^\n]*)\n([^\n]*)/.exec(readme)?.slice(1, 3).map((l) => l.replace(/\s+#\s.*$/, "").trim())).toEqual(["scripts/setup.sh && npm start", "npm test"]);
    });

    it("every line wraps at 100 columns (tables, and a line that is one unbreakable word, excepted)", () => {
        const wide = ALL().flatMap((file) =>
            read(file)
                .split("\n")
                .map((line, i): [number, string] => [i + 1, line])
                .filter(([, line]) => [...line].length > 100 && !line.trimStart().startsWith("|") && /\s/.test(line.trim().replace(/^([-*+]|\d+\.)\s+/, "")))
                .map(([n, line]) => `${file}:${n}: ${[...line].length} columns`)
        );
        expect(wide).toEqual([]);
    });

    it("no user's page carries development history: issue numbers and development passes live in docs/design/", () => {
        const found = USER().flatMap((file) =>
            proseLines(read(file)).flatMap(([n, line]) => HISTORY.filter(([re]) => re.test(line)).map(([, what]) => `${file}:${n}: ${what}: ${line.trim().slice(0, 120)}`))
        );
        expect(found).toEqual([]);
    });

    it("the scanner finds what it must", () => {
        const hit = (line: string): boolean => HISTORY.some(([re]) => re.test(line));
        expect(["since the fifth pass on issue #36", "(issue #43: a lab imports…)", "it ran there before #43", "see issue 47", "this pass changed"].filter((l) => !hit(l))).toEqual([]);
        expect(["`<template>#3 round 1`", "a sample passes on every input", "pass@k", "SPEC §7", "[x](#the-judge)"].filter(hit)).toEqual([]);
        expect([...anchors("# The judge's Python\n## Served models: `--backend server`\n## A\n## A\n```\n# not a heading\n```\n")]).toEqual([
            "the-judges-python",
            "served-models---backend-server",
            "a",
            "a-1"
        ]);
    });

    it("docs/README.md lists every page and every design note, and design notes are dated", () => {
        const index = read("docs/README.md");
        const listed = new Set(links(index).map(([, t]) => path.normalize(`docs/${t.split("#")[0]}`)));
        expect([...pages(), ...notes()].filter((f) => f !== "docs/README.md" && !listed.has(f))).toEqual([]);
        for (const note of notes()) {
            const date = /^(\d{4}-\d{2}-\d{2})-[\w-]+\.md$/.exec(path.basename(note))?.[1];
            expect(date, `${note} is named YYYY-MM-DD-topic.md`).toBeDefined();
            expect(read(note), `${note} says its date`).toMatch(new RegExp(`^\\*Design note, ${date}\\.\\*`, "m"));
        }
    });

    it("docs/development.md's Layout names every folder and file of src/", () => {
        const layout = /## Layout\n[\s\S]*?```text\n([\s\S]*?)```/.exec(read("docs/development.md"))?.[1] ?? "";
        const named = new Set([...layout.matchAll(/\bsrc\/([\w.]+)/g)].map((m) => m[1]!));
        expect(readdirSync(path.join(ROOT, "src")).filter((e) => !named.has(e))).toEqual([]);
    });

    it("every relative link resolves to a file, and every #anchor to a heading there", () => {
        const broken = ALL().flatMap((file) =>
            links(read(file)).flatMap(([n, target]) => {
                const [rel, anchor] = target.split("#") as [string, string | undefined];
                const to = rel === "" ? file : path.normalize(path.join(path.dirname(file), rel));
                if (!existsSync(path.join(ROOT, to))) return [`${file}:${n}: ${target}: no such file`];
                if (anchor === undefined || !to.endsWith(".md")) return [];
                return anchors(read(to)).has(anchor) ? [] : [`${file}:${n}: ${target}: no such heading in ${to}`];
            })
        );
        expect(broken).toEqual([]);
    });
});
