import { findDiscontinuities } from "../scores/discontinuities.js";
import { compareConfigurations } from "../scores/compare.js";
import { answersOf, summariseConfigs, summariseGroups, summariseTemplates } from "../scores/aggregates.js";
import { groupByNeighbourhood, scoreNeighbourhoods, type NeighbourhoodScore, type ScoreOptions } from "../scores/neighbourhood.js";
import type { Outcome } from "../vocabulary.js";
import { mixedNodesNote } from "../inference/nodeSettings.js";
import { eddyVersion } from "../util/paths.js";
import { recordedEnvironment } from "../judge/environment.js";
import { recordedLanguage } from "../languages/languages.js";
import { noTampering, tamperingByConfig } from "./tampering.js";
import { determinismKey, type DecodingMode, type DeterminismSummary, type NeighbourhoodRow, type ReportData, type ReportOptions, type ReportRunMeta } from "./types.js";

/** Scores, aggregates, discontinuities and comparisons of `outcomes`, ready for any renderer. */
export function buildReport(outcomes: readonly Outcome[], runMeta: readonly ReportRunMeta[], opts: ReportOptions = {}): { data: ReportData; scores: NeighbourhoodScore[] } {
    const scores = opts.scores ? [...opts.scores] : scoreNeighbourhoods(outcomes, scoreOptions(opts));
    const metaById = new Map(runMeta.map((r) => [r.id, r]));
    const mode = (runId: string, config: string) => decodingMode(metaById.get(runId), config);
    const tampering = tamperingByConfig(outcomes);
    const parts = opts.parts ?? groupByNeighbourhood(outcomes);
    const runIds = [...new Set([...runMeta.map((r) => r.id), ...scores.map((s) => s.runId)])];
    const runs = runIds.map((id) => {
        const m = metaById.get(id);
        const mine = scores.filter((s) => s.runId === id);
        return {
            id,
            created: m?.created,
            status: m?.status,
            backend: m?.backend,
            seed: m?.seed,
            eddyVersion: m?.eddyVersion,
            isolationLevel: m?.isolationLevel,
            judgePython: recordedEnvironment(m?.isolation) ?? null,
            language: recordedLanguage(m?.config?.language),
            configs: [...new Set(mine.map((s) => s.config))],
            // The store's count when the caller read it (a configuration with no outcome yet still plans answers), else the scores'.
            answers: m?.answers ?? answersOf(mine),
            missing: (m?.answers ?? answersOf(mine)).missing,
            templates: mine.map((s) => toRow(s, mode(s.runId, s.config)))
        };
    });
    const data: ReportData = {
        title: opts.title ?? `eddy report: ${runIds.join(", ") || "no runs"}`,
        generated: opts.generated ?? new Date().toISOString(),
        eddyVersion: eddyVersion(),
        runs,
        configs: summariseConfigs(scores).map((c) => ({
            ...c,
            mode: mode(c.runId, c.config),
            determinism: audit(metaById.get(c.runId), c.config, mode(c.runId, c.config), opts.determinism),
            tampering: tampering.get(c.config) ?? noTampering(),
            nodes: mixedNodesNote(configurationOf(metaById.get(c.runId), c.config)?.metadata)
        })),
        groups: summariseGroups(scores),
        templates: summariseTemplates(scores),
        discontinuities: findDiscontinuities(scores, outcomes, { parts }),
        comparison: compareConfigurations(scores, outcomes, { parts }),
        ...(opts.agreement ? { agreement: opts.agreement } : {})
    };
    return { data, scores };
}

/** The scoring options a report's neighbourhoods are scored with (the viewer scores changed ones with the same). */
export function scoreOptions(opts: Pick<ReportOptions, "seed" | "planned">): ScoreOptions {
    return { seed: opts.seed ?? 1, ...(opts.planned ? { planned: opts.planned } : {}) };
}

function toRow(s: NeighbourhoodScore, mode: DecodingMode): NeighbourhoodRow {
    const { instances: _i, runId: _r, ...rest } = s;
    return { ...rest, mode };
}

/**
 * The decoding mode of one configuration of a run: the backend's record of it (configuration
 * metadata `mode`), else the run's settings (`mode`, or `fast: true`), else "reproducible" (the
 * default; runs stored before the mode was recorded count as such).
 */
export function decodingMode(run: ReportRunMeta | undefined, config: string): DecodingMode {
    const valid = (v: unknown): v is DecodingMode => v === "reproducible" || v === "fast";
    const c = configurationOf(run, config);
    if (valid(c?.metadata?.mode)) return c.metadata.mode;
    if (valid(run?.config?.mode)) return run.config.mode;
    if (run?.config?.fast === true) return "fast";
    return "reproducible";
}

/** A run's stored configuration behind a report's config label. */
function configurationOf(run: ReportRunMeta | undefined, config: string): NonNullable<ReportRunMeta["configurations"]>[number] | undefined {
    return run?.configurations?.find((x) => x.label === config || `${x.label} @${run.id}` === config);
}

/** The latest determinism audit of a configuration's model file in its mode, in words. */
function audit(run: ReportRunMeta | undefined, config: string, mode: DecodingMode, audits: ReadonlyMap<string, DeterminismSummary> | undefined): string {
    const c = configurationOf(run, config);
    const g = c?.metadata?.groupSize ?? run?.config?.groupSize;
    const a = c?.modelSha256 ? audits?.get(determinismKey(c.modelSha256, mode, typeof g === "number" ? g : undefined)) : undefined;
    if (!a) return c?.modelSha256 ? "not audited" : "–";
    return a.identical ? `identical (${a.created.slice(0, 10)})` : `differs in ${(100 * a.differingShare).toFixed(1)}% of responses (${a.created.slice(0, 10)})`;
}
