import type { TopLevelSpec } from "vega-lite";
import { MODEL_CATEGORIES } from "../vocabulary.js";
import { CATEGORY_LABELS, NEIGHBOURHOOD_CATEGORIES, type NeighbourhoodScore } from "../scores/neighbourhood.js";
import type { CategoryShares, ConfigSummary } from "../scores/aggregates.js";
import { COMPARED_SCORES, type Comparison } from "../scores/compare.js";

/** Colours of the neighbourhood categories: success green to failure red. */
const CATEGORY_COLOURS = ["#2e7d32", "#f2b705", "#ef6c00", "#c62828", "#6d6f78", "#bdbdbd"];
/** Colours of verdict categories: model failures, then `passed` in green. */
const VERDICT_COLOURS = ["#6d4c41", "#8e24aa", "#5e35b1", "#3949ab", "#1e88e5", "#00897b", "#f4511e", "#e53935", "#fb8c00", "#43a047"];

// Shared look: no ARIA descriptions per mark (they would double the SVG size of large reports).
const CONFIG = {
    aria: false,
    background: "white",
    font: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
    axis: { labelFontSize: 11, titleFontSize: 12, labelLimit: 260 },
    legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: 260 },
    header: { labelFontSize: 12, titleFontSize: 12 },
    view: { stroke: "#ddd" }
};

// vega-lite's compile warnings would land on stdout; a report is better without them.
const QUIET = {
    level(): never {
        return QUIET as never;
    },
    error: (...a: unknown[]) => void console.error(...a),
    warn: () => QUIET,
    info: () => QUIET,
    debug: () => QUIET
} as unknown as NonNullable<Parameters<typeof import("vega-lite").compile>[1]>["logger"];

/** Compiles a vega-lite spec and renders it to an SVG string in Node (no DOM, no canvas). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
    // Loaded on first use: vega and vega-lite take ~0.5 s to import, which every CLI start paid.
    const [vega, { compile }] = await Promise.all([import("vega"), import("vega-lite")]);
    const compiled = compile({ ...spec, config: { ...CONFIG, ...(spec.config ?? {}) } } as TopLevelSpec, { logger: QUIET }).spec;
    const view = new vega.View(vega.parse(compiled), { renderer: "none", logLevel: vega.Warn });
    try {
        // Path coordinates to two decimals: vega prints full doubles, which triples the size of big charts.
        return (await view.toSVG()).replace(/ d="([^"]*)"/g, (_m, d: string) => ` d="${d.replace(/-?\d+\.\d{3,}/g, (x) => String(Number(Number(x).toFixed(2))))}"`);
    } finally {
        view.finalize();
    }
}

/** Box plots of AS, CPS and CCS per configuration (one box per configuration, distribution over templates). */
export function boxPlotSpec(scores: readonly NeighbourhoodScore[]): TopLevelSpec {
    const values = scores.flatMap((s) => COMPARED_SCORES.filter((k) => !Number.isNaN(s[k])).map((k) => ({ config: s.config, score: k, value: s[k], template: s.template })));
    return {
        data: { values },
        facet: { column: { field: "score", type: "nominal", title: null, sort: [...COMPARED_SCORES] } },
        spec: {
            width: 230,
            height: { step: 26 },
            encoding: {
                y: { field: "config", type: "nominal", title: null },
                x: { field: "value", type: "quantitative", title: "score over templates", scale: { domain: [0, 1] } }
            },
            layer: [
                { mark: { type: "boxplot", extent: 1.5, median: { color: "black" }, size: 16, outliers: false }, encoding: { color: { field: "config", type: "nominal", legend: null } } },
                // Every template as a tick, so a handful of templates or a degenerate box still shows its data.
                { mark: { type: "tick", color: "#1d2330", opacity: 0.45, thickness: 1, size: 12 } }
            ]
        }
    } as TopLevelSpec;
}

/** Stacked bars: share of neighbourhoods per category for each row (a configuration, a problem group…). */
export function categoryBarsSpec(rows: readonly { label: string; categories: CategoryShares }[], title = "share of templates"): TopLevelSpec {
    const values = rows.flatMap((c) =>
        NEIGHBOURHOOD_CATEGORIES.filter((k) => c.categories.shares[k] > 0).map((k) => ({
            row: c.label,
            category: CATEGORY_LABELS[k],
            order: NEIGHBOURHOOD_CATEGORIES.indexOf(k),
            share: c.categories.shares[k]
        }))
    );
    return {
        data: { values },
        width: 520,
        height: { step: 22 },
        mark: { type: "bar" },
        encoding: {
            y: { field: "row", type: "nominal", title: null, sort: rows.map((r) => r.label) },
            x: { field: "share", type: "quantitative", title, axis: { format: "%" }, scale: { domain: [0, 1] } },
            color: {
                field: "category",
                type: "nominal",
                title: "category",
                scale: { domain: NEIGHBOURHOOD_CATEGORIES.map((k) => CATEGORY_LABELS[k]), range: CATEGORY_COLOURS }
            },
            order: { field: "order", type: "quantitative" }
        }
    } as TopLevelSpec;
}

/** Stacked bars: share of counted responses per verdict category for each configuration (harness outcomes excluded). */
export function verdictBarsSpec(configs: readonly ConfigSummary[]): TopLevelSpec {
    const values = configs.flatMap((c) =>
        MODEL_CATEGORIES.filter((k) => (c.verdictShares[k] ?? 0) > 0).map((k) => ({ config: c.config, verdict: k, order: MODEL_CATEGORIES.indexOf(k), share: c.verdictShares[k]! }))
    );
    return {
        data: { values },
        width: 520,
        height: { step: 26 },
        mark: { type: "bar" },
        encoding: {
            y: { field: "config", type: "nominal", title: null },
            x: { field: "share", type: "quantitative", title: "share of judged responses", axis: { format: "%" }, scale: { domain: [0, 1] } },
            color: { field: "verdict", type: "nominal", title: "verdict", scale: { domain: [...MODEL_CATEGORIES], range: VERDICT_COLOURS } },
            order: { field: "order", type: "quantitative" }
        }
    } as TopLevelSpec;
}

/** Heat maps of Cliff's δ (row configuration against column configuration), one per score; `*` marks p < α. */
export function deltaHeatmapSpec(cmp: Comparison): TopLevelSpec {
    const values: { score: string; a: string; b: string; delta: number; label: string }[] = [];
    for (const r of cmp.pairwise) {
        if (Number.isNaN(r.delta)) continue; // a configuration without scored templates: leave the cell empty
        const mark = r.significant ? "*" : "";
        values.push({ score: r.score, a: r.a, b: r.b, delta: r.delta, label: `${r.delta.toFixed(2)}${mark}` });
        values.push({ score: r.score, a: r.b, b: r.a, delta: -r.delta, label: `${(-r.delta).toFixed(2)}${mark}` });
    }
    for (const score of COMPARED_SCORES) for (const c of cmp.configs) values.push({ score, a: c, b: c, delta: 0, label: "·" });
    const size = Math.max(36, Math.min(60, 300 / Math.max(1, cmp.configs.length)));
    return {
        data: { values },
        facet: { column: { field: "score", type: "nominal", title: null, sort: [...COMPARED_SCORES] } },
        spec: {
            width: { step: size },
            height: { step: size },
            encoding: {
                y: { field: "a", type: "nominal", title: "row config", sort: cmp.configs },
                x: { field: "b", type: "nominal", title: "column config", sort: cmp.configs, axis: { labelAngle: -40 } }
            },
            layer: [
                {
                    mark: { type: "rect" },
                    encoding: {
                        color: { field: "delta", type: "quantitative", title: "Cliff's δ", scale: { scheme: "redblue", domain: [-1, 1] } }
                    }
                },
                {
                    mark: { type: "text", fontSize: 11 },
                    encoding: {
                        text: { field: "label", type: "nominal" },
                        color: { condition: { test: "abs(datum.delta) > 0.6", value: "white" }, value: "black" }
                    }
                }
            ]
        }
    } as TopLevelSpec;
}

/**
 * Parameter strip of one template: a cell per instance and configuration, coloured by rounds failed.
 * Only cells with a failure are drawn, over a light-green view background ("no round failed"), so that
 * large studies stay small: a mostly solved neighbourhood costs a few marks, not M × configurations.
 */
export function stripSpec(scores: readonly NeighbourhoodScore[]): TopLevelSpec {
    const R = Math.max(1, ...scores.map((s) => s.R));
    const instances = [...new Set(scores.flatMap((s) => s.instances.filter((i) => i.n > 0).map((i) => i.instance)))].sort((a, b) => a - b);
    const configs = [...new Set(scores.map((s) => s.config))];
    const values = scores.flatMap((s) => s.instances.filter((i) => i.n > 0 && i.c < i.n).map((i) => ({ config: s.config, instance: i.instance, failed: i.n - i.c })));
    const colours = failColours(R);
    // A transparent zero-cell keeps the legend's "0" entry even when nothing failed.
    if (values.length === 0 && instances.length) values.push({ config: configs[0]!, instance: instances[0]!, failed: 0 });
    return {
        data: { values },
        // Integer steps without padding keep every cell's coordinates integral (short SVG paths).
        width: { step: Math.max(2, Math.min(16, Math.floor(900 / Math.max(1, instances.length)))) },
        height: { step: 18 },
        view: { fill: colours[0], stroke: "#ddd" },
        mark: { type: "rect" },
        encoding: {
            x: {
                field: "instance",
                type: "ordinal",
                title: "instance (neighbourhood order: edge tuples first)",
                scale: { domain: instances, paddingInner: 0, paddingOuter: 0 },
                axis: { labelOverlap: true, labelAngle: 0, values: instances.filter((_, k) => k % Math.max(1, Math.ceil(instances.length / 20)) === 0) }
            },
            y: { field: "config", type: "nominal", title: null, scale: { domain: configs, paddingInner: 0, paddingOuter: 0 } },
            color: {
                field: "failed",
                type: "ordinal",
                title: "rounds failed",
                scale: { domain: Array.from({ length: R + 1 }, (_, k) => k), range: colours },
                legend: { orient: "bottom", direction: "horizontal" }
            }
        }
    } as TopLevelSpec;
}

/** Light green for "no round failed", then light to dark red up to R rounds failed. */
function failColours(R: number): string[] {
    const reds = ["#fdd49e", "#fdbb84", "#fc8d59", "#ef6548", "#d7301f", "#b30000", "#7f0000"];
    const out = ["#c8e6c9"];
    for (let k = 1; k <= R; k++) out.push(reds[Math.round(((k - 1) / Math.max(1, R - 1)) * (reds.length - 1))]!);
    return out;
}
