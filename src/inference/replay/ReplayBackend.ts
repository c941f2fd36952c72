import { readFileSync } from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import { EddyError } from "../../util/errors.js";
import type { Backend, BackendMetadata, GenerationRequest, GenerationResult, StopReason } from "../types.js";

/** The `error` text of a result for which the replay file has no answer; the run records it as missing. */
export const REPLAY_MISSING = "missing: no answer in the replay file";

/** One line of a replay file. */
export interface ReplayLine {
    template: string;
    instance: number;
    round: number;
    response: string;
    /** Optional: how the generation stopped, e.g. "max_tokens" (default "eos"). */
    stop_reason?: StopReason;
    prompt_tokens?: number;
    generated_tokens?: number;
}

const STOP_REASONS = new Set(["eos", "max_tokens", "stop_trigger", "context_full"]);

/**
 * Answers from a JSONL file of responses produced elsewhere (a hosted model, another tool), so
 * eddy can judge and score them. Lines need `template`, `instance` (index in the neighbourhood),
 * `round` and `response`. A question without a line is answered with an error marked
 * {@link REPLAY_MISSING}: reported and recorded, never invented.
 */
export class ReplayBackend implements Backend {
    /** Backend name recorded with runs. */
    readonly name = "replay";
    private readonly answers = new Map<string, ReplayLine>();
    /** sha256 of the file, recorded as the "model" identity. */
    readonly sha256: string;

    constructor(readonly file: string) {
        let text: string;
        try {
            text = readFileSync(file, "utf8");
        } catch {
            throw new EddyError(`cannot read replay file ${file}`);
        }
        this.sha256 = createHash("sha256").update(text).digest("hex");
        text.split(/\r?\n/).forEach((line, n) => {
            if (!line.trim()) return;
            let o: Record<string, unknown>;
            try {
                o = JSON.parse(line);
            } catch {
                throw new EddyError(`${path.basename(file)} line ${n + 1}: not valid JSON`);
            }
            if (typeof o.template !== "string" || !Number.isInteger(o.instance) || !Number.isInteger(o.round) || typeof o.response !== "string")
                throw new EddyError(`${path.basename(file)} line ${n + 1}: needs string 'template', integer 'instance' and 'round', string 'response'`);
            for (const k of ["prompt_tokens", "generated_tokens"])
                if (o[k] !== undefined && !(Number.isInteger(o[k]) && (o[k] as number) >= 0))
                    throw new EddyError(`${path.basename(file)} line ${n + 1}: '${k}' must be a non-negative integer`);
            if (o.stop_reason !== undefined && !STOP_REASONS.has(String(o.stop_reason)))
                throw new EddyError(`${path.basename(file)} line ${n + 1}: unknown stop_reason '${String(o.stop_reason)}'`);
            const key = `${o.template}|${o.instance}|${o.round}`;
            if (this.answers.has(key)) throw new EddyError(`${path.basename(file)} line ${n + 1}: a second answer for ${o.template} instance ${o.instance} round ${o.round}`);
            this.answers.set(key, o as unknown as ReplayLine);
        });
    }

    /** The file stands in for the model. */
    async metadata(): Promise<BackendMetadata> {
        return { backend: "replay", replayFile: this.file, replaySha256: this.sha256, promptFormat: "none", mode: "reproducible" };
    }

    /** The recorded answer of each request, or a missing-answer error. */
    async *generate(requests: AsyncIterable<GenerationRequest> | Iterable<GenerationRequest>): AsyncIterable<GenerationResult> {
        for await (const req of requests) {
            const base = { id: req.id, ttftMs: 0, genMs: 0 };
            const key = req.task ? `${req.task.templateId}|${req.task.instance}|${req.task.round}` : "";
            const line = this.answers.get(key);
            if (!line) {
                yield { ...base, text: "", stopReason: "error", promptTokens: 0, generatedTokens: 0, error: REPLAY_MISSING, missing: true };
                continue;
            }
            yield {
                ...base,
                text: line.response,
                stopReason: line.stop_reason ?? "eos",
                promptTokens: line.prompt_tokens ?? 0,
                generatedTokens: line.generated_tokens ?? 0
            };
        }
    }

    /** Nothing to release. */
    async close(): Promise<void> {}
}
