import { findDiscontinuities } from "../scores/discontinuities.js";
import { compareConfigurations } from "../scores/compare.js";
import { summariseConfigs, summariseGroups, summariseTemplates } from "../scores/aggregates.js";
import { scoreNeighbourhoods, type NeighbourhoodScore } from "../scores/neighbourhood.js";
import type { Outcome } from "../scores/types.js";
import { eddyVersion } from "../util/paths.js";
import type { NeighbourhoodRow, ReportData, ReportOptions, ReportRunMeta } from "./types.js";

/** Scores, aggregates, discontinuities and comparisons of `outcomes`, ready for any renderer. */
export function buildReport(outcomes: readonly Outcome[], runMeta: readonly ReportRunMeta[], opts: ReportOptions = {}): { data: ReportData; scores: NeighbourhoodScore[] } {
    const scores = scoreNeighbourhoods(outcomes, { seed: opts.seed ?? 1 });
    const metaById = new Map(runMeta.map((r) => [r.id, r]));
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
            configs: [...new Set(mine.map((s) => s.config))],
            templates: mine.map(toRow)
        };
    });
    const data: ReportData = {
        title: opts.title ?? `eddy report: ${runIds.join(", ") || "no runs"}`,
        generated: opts.generated ?? new Date().toISOString(),
        eddyVersion: eddyVersion(),
        runs,
        configs: summariseConfigs(scores),
        groups: summariseGroups(scores),
        templates: summariseTemplates(scores),
        discontinuities: findDiscontinuities(scores, outcomes),
        comparison: compareConfigurations(scores, outcomes)
    };
    return { data, scores };
}

function toRow(s: NeighbourhoodScore): NeighbourhoodRow {
    const { instances: _i, runId: _r, ...rest } = s;
    return rest;
}
