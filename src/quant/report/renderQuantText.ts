import path from "node:path";
import { indent, renderTable, wrap } from "../../report/terminalTable.js";
import { fix, interval, pct, pval, tuple } from "../../report/format.js";
import type { QuantFileReport, QuantReport } from "../study/types.js";
import { textScatter } from "./pareto.js";
import { safeTerminalText } from "../../util/safeText.js";

/** Bytes as MiB with one decimal, or "–". */
export function mib(bytes: number | null): string {
    return bytes == null ? "–" : `${(bytes / 1048576).toFixed(bytes < 10 * 1048576 ? 2 : 1)} MiB`;
}

const rate = (v: number | null): string => (v == null ? "–" : v.toFixed(0));
/** A divergence: fixed decimals, or 3 significant digits when tiny (Q8_0 drift is often below 1e-4). */
export function kl(v: number | null): string {
    if (v == null || Number.isNaN(v)) return "–";
    return v !== 0 && Math.abs(v) < 1e-3 ? v.toExponential(2) : fix(v, 4);
}
const signed = (v: number, digits = 3): string => (Number.isNaN(v) ? "–" : `${v >= 0 ? "+" : ""}${v.toFixed(digits)}`);

/** The label of a file in tables and charts: quantisation type, else file name. */
export function fileLabel(f: QuantFileReport): string {
    return (f.quantization && f.quantization !== "unknown" ? f.quantization : path.basename(f.file)) + (f.kv_cache ? ` · KV ${f.kv_cache}` : "");
}

/** Points for the quality-versus-cost chart: x = file size (MiB), y = a quality measure. */
export function qualityPoints(r: QuantReport, quality: (f: QuantFileReport) => number | null) {
    return r.files.map((f) => ({ id: f.file, label: fileLabel(f) + (f.reference ? " (reference)" : ""), cost: f.size_bytes / 1048576, quality: quality(f) ?? NaN }));
}

/** Terminal rendering of a quantisation study: quality table, drift and cost table, Pareto plots, flips. */
export function renderQuantText(r: QuantReport, opts: { flipsPerFile?: number } = {}): string {
    const out: string[] = [];
    const ref = r.files.find((f) => f.reference);
    out.push(wrap(`Quantisation study — run ${r.runId} (${r.db})`, 100));
    out.push(
        wrap(
            `${r.files.length} files, reference ${ref ? fileLabel(ref) : "?"}; ${r.study.templates.length} templates × ${r.study.instances} instances × ${r.study.rounds} rounds, ` +
                `seed ${r.study.seed}, t=${r.study.temperature}, wrapper ${r.study.wrapper}, max ${r.study.maxTokens} tokens`,
            100
        )
    );
    // 100 columns: quality, then flips and tests, then cost, then drift, each its own table.
    const name = (f: QuantFileReport): string => fileLabel(f) + (f.reference ? " (ref)" : "");
    const quality = r.files.map((f) => {
        const s = f.scores;
        return [
            name(f),
            `${pct(f.pass_at_1.value)} ${interval(f.pass_at_1.ci)}`,
            pct(s.AS.candidate),
            f.reference ? "–" : `${signed(s.AS.delta)} ${interval(s.AS.ci)}`,
            pct(s.CCS.candidate),
            f.reference ? "–" : `${signed(s.CCS.delta)} ${interval(s.CCS.ci)}`,
            f.not_worse === null ? "n/a" : f.not_worse ? "yes" : "NO"
        ];
    });
    out.push("", "Quality against the reference (same instances, rounds and seeds)", renderTable(["file", "pass@1 [95% CI]", "AS", "ΔAS [95% CI]", "CCS", "ΔCCS [95% CI]", "not worse"], quality));
    const flips = r.files.map((f) => [
        name(f),
        f.instances,
        // No p where nothing was compared: p = 1 would read as evidence.
        f.reference || f.instances === 0 ? "–" : `${pval(f.mcnemar.instance.p)} / ${pval(f.mcnemar.response.p)}`,
        `${f.flip_counts.responses.lost}/${f.flip_counts.responses.gained}`,
        `${f.flip_counts.instances.lost}/${f.flip_counts.instances.gained}`
    ]);
    out.push("", renderTable(["file", "compared", "McNemar p inst / resp", "lost/gained resp", "lost/gained inst"], flips));
    out.push("n/a: undecided (nothing compared, or too few reference passes for a loss to be significant).");
    const harnessOnly = r.files.find((f) => !f.reference && f.instances === 0);
    if (harnessOnly)
        out.push(
            wrap(
                `Note: no instance of ${fileLabel(harnessOnly)} could be compared — every response pair had a truncated or judge_error verdict on one side ` +
                    `(${harnessOnly.categories.truncated} truncated, ${harnessOnly.categories.judge_error} judge errors); raise --max-tokens or --context-size.`,
                100
            )
        );
    const cost = r.files.map((f) => [name(f), f.bits_per_weight == null ? "–" : f.bits_per_weight.toFixed(2), mib(f.size_bytes), mib(f.memory_bytes), rate(f.prompt_tokens_per_s), rate(f.generation_tokens_per_s)]);
    out.push("", "Cost", renderTable(["file", "bits/weight", "size", "memory", "prompt tok/s", "gen tok/s"], cost));
    out.push(
        wrap(
            "tok/s: measured during this study on this machine; anything else it ran at the time changes them (two runs of one file on a shared machine can differ many times over), so the verdict uses file size, never speed.",
            100
        )
    );
    const drift = r.files.map((f) => [name(f), f.top1_agreement == null ? "–" : pct(f.top1_agreement), kl(f.kl_mean), kl(f.kl_p50), kl(f.kl_p90), kl(f.kl_p99), kl(f.kl_max)]);
    out.push(
        "",
        wrap(`Token drift (teacher forcing on ${r.drift.texts} ${r.drift.source}, ${ref?.drift_positions ?? 0} positions; KL(reference ‖ file) in nats)`, 100),
        renderTable(["file", "top-1 agree", "KL mean", "KL p50", "KL p90", "KL p99", "KL max"], drift)
    );
    const used = Object.keys(r.files[0]?.categories ?? {}).filter((c) => r.files.some((f) => (f.categories as Record<string, number>)[c]! > 0));
    if (used.length > 0) {
        const cats = r.files.map((f) => [fileLabel(f) + (f.reference ? " (ref)" : ""), ...used.map((c) => String((f.categories as Record<string, number>)[c] ?? 0))]);
        out.push("", wrap("Verdict categories (truncated and judge_error are not the model's fault and are left out of the comparison)", 100), renderTable(["file", ...used], cats));
    }
    out.push("", wrap(r.verdict.text, 100));
    if (r.power) out.push(wrap(r.power.text, 100));
    out.push("", "Quality versus cost", textScatter(qualityPoints(r, (f) => f.scores.AS.candidate), { xLabel: "size MiB", yLabel: "AS", formatY: (v) => v.toFixed(2) }));
    if (r.files.some((f) => f.top1_agreement != null))
        out.push("", textScatter(qualityPoints(r, (f) => f.top1_agreement), { xLabel: "size MiB", yLabel: "top-1 agreement", formatY: (v) => v.toFixed(3) }));
    const limit = opts.flipsPerFile ?? 5;
    for (const f of r.files) {
        if (f.reference || f.instance_flips.length + f.response_flips.length === 0) continue;
        out.push("", wrap(`Flips of ${fileLabel(f)} (instances: ${f.flip_counts.instances.lost} lost, ${f.flip_counts.instances.gained} gained; responses: ${f.flip_counts.responses.lost} lost, ${f.flip_counts.responses.gained} gained)`, 100));
        for (const x of f.response_flips.slice(0, limit))
            out.push(indent(wrap(`${x.direction === "lost" ? "−" : "+"} ${x.template}#${x.instance} ${tuple(x.params)} round ${x.round}: ${x.reference.category} → ${x.candidate.category}${x.candidate.detail ? ` (${x.candidate.detail.slice(0, 100)})` : ""}`, 98)));
        if (f.response_flips.length > limit) out.push(`  … ${f.response_flips.length - limit} more (--json or --out report.html for all)`);
    }
    // Verdict details and labels come from candidates and files: escaped before they reach a terminal.
    return safeTerminalText(out.join("\n"));
}
