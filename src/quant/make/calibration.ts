import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { renderMessages, type PromptWrapper } from "../../prompts/index.js";
import { sampleInstances } from "../../templates/instances.js";
import { pythonLiteral } from "../../templates/render.js";
import type { Instance, Template } from "../../templates/types.js";

/** What an importance matrix was computed on, as the manifest records it. */
export interface CalibrationSource {
    /** Template ids, in order. */
    templates: string[];
    /** Instances per template (the study's -M). */
    instances: number;
    /** The study seed the instances were sampled with. */
    seed: number;
    /** The prompt wrapper the questions were put in. */
    wrapper: string;
    /** Questions written (prompt and solution each). */
    questions: number;
    /** Characters of calibration text. */
    characters: number;
    /** sha256 of the calibration text. */
    sha256: string;
}

/**
 * The oracle's reference solution as the function the question asks for: `def solution(values, *, start, step)`
 * becomes `def every_kth(values, *, start=2, step=3)`, the instance's parameters bound as defaults, so the text
 * is the code a correct answer would be. Null when the oracle has no top-level `solution`.
 */
export function solutionSource(oracle: string, t: Template, inst: Instance): string | null {
    const lines = oracle.split("\n");
    const start = lines.findIndex((l) => /^def solution\s*\(/.test(l));
    if (start < 0) return null;
    let end = start + 1;
    while (end < lines.length && (lines[end]!.trim() === "" || /^\s/.test(lines[end]!))) end++;
    while (end > start + 1 && lines[end - 1]!.trim() === "") end--;
    let code = lines.slice(start, end).join("\n").replace(/^def solution\b/, `def ${t.function}`);
    const header = code.slice(0, code.indexOf(":\n") >= 0 ? code.indexOf(":\n") : code.length);
    let bound = header;
    for (const [name, value] of Object.entries(inst.bindings)) bound = bound.replace(new RegExp(`\\b${name}\\b(?=\\s*[,)])`), `${name}=${pythonLiteral(value)}`);
    code = bound + code.slice(header.length);
    return code;
}

/**
 * Calibration text for llama-imatrix from the study's own material: for each template and instance (the
 * neighbourhood the study samples), the question as the wrapper puts it, then the oracle's solution as a
 * fenced Python block. Code and the questions that ask for it, not prose. Same inputs, same bytes.
 */
export function calibrationText(templates: readonly Template[], instances: number, seed: number, wrapper: PromptWrapper): { text: string; source: CalibrationSource } {
    const parts: string[] = [];
    let questions = 0;
    for (const t of templates) {
        const oracle = readFileSync(t.oracleFile, "utf8");
        for (const inst of sampleInstances(t, instances, seed)) {
            const messages = renderMessages(wrapper, inst.question);
            const prompt = messages.map((m) => m.content).join("\n\n");
            const code = solutionSource(oracle, t, inst);
            parts.push(code ? `${prompt}\n\n\`\`\`python\n${code}\n\`\`\`\n` : `${prompt}\n`);
            questions++;
        }
    }
    const text = parts.join("\n");
    return {
        text,
        source: {
            templates: templates.map((t) => t.id),
            instances,
            seed,
            wrapper: wrapper.id,
            questions,
            characters: text.length,
            sha256: createHash("sha256").update(text).digest("hex")
        }
    };
}
