import { createHash } from "node:crypto";
import path from "node:path";
import type { z } from "zod";
import { backendDescriptor } from "../inference/backends.js";
import { DEFAULT_LANGUAGE, type Language } from "../languages/languages.js";
import {
    completeStudyConfig,
    field,
    identityOf,
    int,
    OPERATIONAL_KEYS,
    parseSettings,
    str,
    STUDY_SETTING_KEYS,
    studyHash,
    studySettingsSchema,
    type StudyConfig,
    type StudySettings
} from "../run/config.js";
import { EddyError } from "../util/errors.js";
import { parseChain } from "./translate.js";

/**
 * The settings of an EvaLOOP study: the study's schema (every decoding, backend and operational
 * setting `eddy run` takes, with the same names and bounds) extended with what only a loop has.
 */
export const loopSettingsSchema = studySettingsSchema
    .extend({
        /** M: loops at most. */
        maxLoops: int("loops", 1).optional(),
        /** A second GGUF that writes the summaries (a model backend; default: the model itself). */
        summariser: str.optional(),
        /** Embedding model folder: similarity of successive prompts (ASL's s at the failure boundary) and drift. */
        embedModel: str.optional(),
        /** A translation loop over this chain of languages instead of the summary loop (src/loop/translate.ts). */
        translate: field(parseChain).optional()
    })
    .strict();

/** The keys only a loop has (beside the study's). */
const LOOP_ONLY_KEYS = Object.keys(loopSettingsSchema.shape).filter((k) => !(STUDY_SETTING_KEYS as readonly string[]).includes(k));

/** Flag spellings of the loop's own settings (the study's are known to the parser). */
const LOOP_ALIASES: Record<string, string> = { loops: "maxLoops", "max-loops": "maxLoops", "embed-model": "embedModel" };

export type LoopSettings = z.output<typeof loopSettingsSchema>;

/** An EvaLOOP study of one model: a study of one model, temperature and wrapper, asked once per turn, plus the loop's own settings. */
export type LoopConfig = StudyConfig & {
    maxLoops: number;
    summariser?: string | undefined;
    embedModel?: string | undefined;
    translate?: Language[] | undefined;
};

/** Defaults: the paper's 10 loops, 5 instances per template, greedy decoding (the study's other defaults). */
export const LOOP_DEFAULTS = { maxLoops: 10, instances: 5 } as const;

/** Parse loop settings (flags, a config file, a stored loop run's settings) with the one parser; one line per problem. */
export function parseLoopSettings(raw: Record<string, unknown>): LoopSettings {
    return parseSettings(loopSettingsSchema, raw, LOOP_ALIASES);
}

/**
 * Validate and complete settings into a LoopConfig (paths made absolute against `baseDir`). A
 * resumed run (`resume` set) takes its stored settings: only the operational ones are kept here.
 */
export function normalizeLoopConfig(raw: Record<string, unknown>, baseDir = process.cwd()): LoopConfig {
    const s = parseLoopSettings(raw);
    if (s.resume !== undefined) {
        const ops: Record<string, unknown> = {};
        for (const k of OPERATIONAL_KEYS) if (s[k] !== undefined) ops[k] = k === "db" ? path.resolve(baseDir, String(s[k])) : s[k];
        return { ...ops, resume: s.resume } as LoopConfig;
    }
    const { maxLoops, summariser, embedModel, translate, ...study } = s;
    // One question per turn: a loop's turns are its rounds.
    if (study.rounds !== undefined && study.rounds !== 1) throw new EddyError(`a loop asks each question once (rounds must be 1, got ${study.rounds}); loops are set with --loops`);
    if (study.language !== undefined && study.language !== DEFAULT_LANGUAGE) throw new EddyError("--language applies to eddy run; a loop's languages are its --translate chain");
    const c = completeStudyConfig({ instances: LOOP_DEFAULTS.instances, ...study, rounds: 1 } satisfies StudySettings, baseDir);
    if (c.models.length > 1) throw new EddyError(`a loop run is of one model (got ${c.models.length}); eddy loop run starts one per --model`);
    if (c.temperatures.length !== 1) throw new EddyError(`a loop decodes at one temperature (got ${c.temperatures.join(", ")})`);
    if (c.wrappers.length !== 1) throw new EddyError(`a loop asks through one prompt wrapper (got ${c.wrappers.join(", ")})`);
    if (summariser && !backendDescriptor(c.backend).runsModel) throw new EddyError(`--summariser needs a backend that runs a model (${c.backend} answers summaries itself)`);
    if (translate && (summariser || embedModel)) throw new EddyError("--translate runs the translation loop (s = 1): --summariser and --embed-model apply to the summary loop");
    return {
        ...c,
        maxLoops: maxLoops ?? LOOP_DEFAULTS.maxLoops,
        ...(summariser ? { summariser: path.resolve(baseDir, summariser) } : {}),
        ...(embedModel ? { embedModel: path.resolve(baseDir, embedModel) } : {}),
        ...(translate ? { translate } : {})
    };
}

/**
 * A stored loop run's settings as a LoopConfig. Loop runs stored before the loop shared the study's
 * schema decoded each request in a context of its own (no lockstep groups): they keep G = 1.
 */
export function storedLoopConfig(stored: Record<string, unknown>): LoopConfig {
    const raw: Record<string, unknown> = { ...stored };
    delete raw.studyHash;
    if (raw.mode === undefined && backendDescriptor(String(raw.backend)).scheduling("reproducible") === "lockstep") raw.groupSize = 1;
    return normalizeLoopConfig(raw);
}

/** The study part of a loop's settings (what `eddy run` would compute per turn). */
export function studyPartOf(c: LoopConfig): StudyConfig {
    const out: Record<string, unknown> = { ...c };
    for (const k of LOOP_ONLY_KEYS) delete out[k];
    return out as StudyConfig;
}

/**
 * Identity of a loop study, from the one identity hash: its study part hashes as `eddy run` hashes a
 * run with the same settings (`studyHash`), and the loop's own settings are hashed with it. The same
 * settings continue the same loop run.
 */
export function loopIdentity(c: LoopConfig, templateIds: string[]): { hash: string; studyHash: string; settings: Record<string, unknown> } {
    const sh = studyHash(studyPartOf(c), templateIds);
    const own: Record<string, unknown> = {};
    for (const k of LOOP_ONLY_KEYS) if ((c as Record<string, unknown>)[k] !== undefined) own[k] = (c as Record<string, unknown>)[k];
    const hash = createHash("sha256").update(JSON.stringify({ study: sh, ...own }, ["study", ...Object.keys(own).sort()])).digest("hex");
    return { hash, studyHash: sh, settings: { ...identityOf(c), studyHash: sh } };
}
