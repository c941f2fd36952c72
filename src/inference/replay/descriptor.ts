import path from "node:path";
import { strField } from "../../util/settings.js";
import type { BackendDescriptor } from "../descriptor.js";
import { ReplayBackend } from "./ReplayBackend.js";
import { writeSimulatedAnswers } from "./simulatedAnswers.js";

/** Answers read from a JSONL file of responses produced elsewhere. */
export const replayDescriptor = {
    name: "replay",
    summary: "answers from a JSONL file of responses produced elsewhere (--replay <file.jsonl>)",
    models: "none",
    runsModel: false,
    needsSolutions: false,
    engine: "eddy replay",
    records: ["the replay file's sha256 (an edited file is another set of answers)"],
    settings: {
        /** JSONL of responses: what answers, so part of the run's identity. */
        identity: {
            replay: strField.optional(),
            /** The model whose answers these are, exactly as named (e.g. org/name); default: the replay file's name. */
            replayModel: strField.optional()
        },
        operational: {}
    },
    options: [
        { key: "replay", flags: "--replay <file>", description: "JSONL of responses for --backend replay (template, instance, round, response per line)", path: true },
        { key: "replayModel", flags: "--replay-model <name>", description: "the model whose answers the replay file holds, as named (default: the file's name)" }
    ],
    scheduling: () => "none",
    parallelSetting: () => undefined,
    resolveModel: (m, baseDir) => path.resolve(baseDir, m),
    missing: (s) =>
        !s.replay ? "--backend replay needs --replay <file.jsonl>" : s.replayModel !== undefined && !/^[^\s]+$/.test(s.replayModel) ? `--replay-model '${s.replayModel}': a model's name has no spaces` : undefined,
    checkSources: () => {},
    sourceGone: () => undefined,
    // Read and validated before anything is stored; its sha256 stands for the model's.
    readSources(settings) {
        const file = String(settings.replay);
        const replay = new ReplayBackend(file);
        return { parts: { prepared: replay }, identity: { sha256: replay.sha256, what: `replay file ${file}` } };
    },
    // The model's label: as named where given (an imported model's org/name stays whole), else the file's name.
    modelSources: (s) => [{ label: s.replayModel ?? path.basename(s.replay ?? "replay").replace(/\.gguf$/i, "").replace(/\.jsonl?$/i, ""), ...(s.replay ? { source: s.replay } : {}) }],
    // The file's sha256 stands for the model's: an edited file is another set of answers.
    identity: (backend) => (backend instanceof ReplayBackend ? backend.sha256 : null),
    // A simulated flawed model (oracle mutants at per-template rates), replayed: what the scores look like for a model that is sometimes wrong.
    replaysFile: (file, model) => ({ backend: "replay", replay: file, ...(model !== undefined ? { replayModel: model } : {}) }),
    async demo(ctx) {
        const file = path.join(ctx.dir, "demo-simulated-answers.jsonl");
        await writeSimulatedAnswers(await ctx.judge(), ctx.templates, { instances: ctx.instances, rounds: ctx.rounds, seed: ctx.seed, file });
        return {
            settings: { backend: "replay", replay: file },
            explains: `The replay row judges a simulated flawed model (${path.basename(file)}): each template's answers are its model solution or, at a per-template rate (0, 25, 50, 100%), one of its oracle's mutants.`
        };
    },
    describe: (meta) => `replayed answers${meta.model?.name ? ` from ${meta.model.name}` : ""}`,
    cacheIdentity: () => undefined,
    async open(settings, _model, parts) {
        if (parts.prepared instanceof ReplayBackend) return parts.prepared;
        return new ReplayBackend(String(settings.replay));
    }
} as const satisfies BackendDescriptor;
