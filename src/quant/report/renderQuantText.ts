import { indent, renderTable, wrap } from "../../report/terminalTable.js";
import { pct, tuple } from "../../report/format.js";
import type { QuantFileReport, QuantReport } from "../study/types.js";
import { textScatter } from "./pareto.js";
import { safeTerminalText } from "../../util/safeText.js";
import { fileLabel, kl, mib, qualityPoints } from "./labels.js";
import { recommendationTable, recommendationText } from "./recommendationTable.js";

export { fileLabel, kl, mib, qualityPoints } from "./labels.js";

const rate = (v: number | null): string => (v == null ? "–" : v.toFixed(0));

/** Terminal rendering of a quantisation study: the recommendation table, the verdict and power, details, Pareto plots, flips. */
export function renderQuantText(r: QuantReport, opts: { flipsPerFile?: number } = {}): string {
    const out: string[] = [];
    const ref = r.files.find((f) => f.reference);
    out.push(wrap(`Quantisation study — run ${r.runId} (${r.db})`, 100));
    const kvs = new Set(r.files.map((f) => f.kv_cache));
    out.push(
        wrap(
            `${r.files.length} ${kvs.size > 1 ? `configurations (${new Set(r.files.map((f) => f.file)).size} files × ${kvs.size} KV-cache types)` : "files"}, reference ${ref ? fileLabel(ref) : "?"}; ` +
                `${r.study.templates.length} templates × ${r.study.instances} instances × ${r.study.rounds} rounds, seed ${r.study.seed}, t=${r.study.temperature}, wrapper ${r.study.wrapper}, max ${r.study.maxTokens} tokens`,
            100
        )
    );
    // The recommendation: one table built for every renderer (recommendationTable.ts), three groups of 100 columns here.
    out.push(recommendationText(recommendationTable(r), 100));
    const harnessOnly = r.files.find((f) => !f.reference && f.instances === 0);
    if (harnessOnly)
        out.push(
            wrap(
                `Note: no instance of ${fileLabel(harnessOnly)} could be compared — every response pair had a truncated or judge_error verdict on one side ` +
                    `(${harnessOnly.categories.truncated} truncated, ${harnessOnly.categories.judge_error} judge errors); raise --max-tokens or --context-size.`,
                100
            )
        );
    out.push("", wrap(r.verdict.text, 100));
    if (r.power) out.push(wrap(r.power.text, 100));
    const name = (f: QuantFileReport): string => fileLabel(f) + (f.reference ? " (ref)" : "");
    const cost = r.files.map((f) => [name(f), mib(f.memory_bytes), rate(f.prompt_tokens_per_s), rate(f.generation_tokens_per_s)]);
    out.push("", "Memory and speed", renderTable(["configuration", "memory", "prompt tok/s", "gen tok/s"], cost));
    out.push(
        wrap(
            "tok/s and tok/CPU-s: measured during this study on this machine; anything else it ran at the time changes them (two runs of one file on a shared machine can differ many times over), so the verdict uses file size, never speed.",
            100
        )
    );
    const drift = r.files.map((f) => [name(f), f.top1_agreement == null ? "–" : pct(f.top1_agreement), kl(f.kl_mean), kl(f.kl_p50), kl(f.kl_p90), kl(f.kl_p99), kl(f.kl_max)]);
    out.push(
        "",
        wrap(`Token drift (teacher forcing on ${r.drift.texts} ${r.drift.source}, ${ref?.drift_positions ?? 0} positions; KL(reference ‖ configuration) in nats)`, 100),
        renderTable(["configuration", "top-1 agree", "KL mean", "KL p50", "KL p90", "KL p99", "KL max"], drift)
    );
    const used = Object.keys(r.files[0]?.categories ?? {}).filter((c) => r.files.some((f) => (f.categories as Record<string, number>)[c]! > 0));
    if (used.length > 0) {
        const cats = r.files.map((f) => [name(f), ...used.map((c) => String((f.categories as Record<string, number>)[c] ?? 0))]);
        out.push("", wrap("Verdict categories (truncated and judge_error are not the model's fault and are left out of the comparison)", 100), renderTable(["configuration", ...used], cats));
    }
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
