import Table from "cli-table3";
import { MODEL_CATEGORIES } from "../judge/types.js";
import { CATEGORY_LABELS, NEIGHBOURHOOD_CATEGORIES } from "../scores/neighbourhood.js";
import type { Comparison } from "../scores/compare.js";
import { fix, interval, pct, pval, tuple } from "./format.js";
import type { ReportData } from "./types.js";

/** A titled table: header row plus body rows of cells. */
interface Section {
    title: string;
    head: string[];
    rows: string[][];
    note?: string;
}

/** The sections shared by the text and Markdown reports. */
function sections(d: ReportData): Section[] {
    const out: Section[] = [];
    out.push({
        title: "Runs",
        head: ["run", "created", "status", "backend", "configurations"],
        rows: d.runs.map((r) => [r.id, r.created ?? "", r.status ?? "", r.backend ?? "", r.configs.join("; ")])
    });
    out.push({
        title: "Configurations (means over templates)",
        head: ["config", "templates", "AS", "CPS", "CCS", "RLPR", "PSR", "gap", "AV", "pass@1", "truncated", "judge_error"],
        rows: d.configs.map((c) => [
            c.config,
            String(c.templates),
            fix(c.AS),
            fix(c.CPS),
            fix(c.CCS),
            fix(c.RLPR),
            fix(c.PSR),
            fix(c.gap),
            fix(c.AV, 4),
            fix(c.passAtK["1"]),
            String(c.harness.truncated),
            String(c.harness.judge_error)
        ]),
        note: "truncated / judge_error responses are harness outcomes: counted apart, excluded from every score."
    });
    // "No data" (every response a harness outcome) only when it occurs.
    const cats = NEIGHBOURHOOD_CATEGORIES.filter((k) => k !== "no_data" || d.configs.some((c) => c.categories.shares.no_data > 0));
    out.push({
        title: "Categories (share of templates)",
        head: ["config", ...cats.map((k) => CATEGORY_LABELS[k])],
        rows: d.configs.map((c) => [c.config, ...cats.map((k) => pct(c.categories.shares[k]))])
    });
    const verdicts = MODEL_CATEGORIES.filter((k) => d.configs.some((c) => (c.verdictShares[k] ?? 0) > 0));
    out.push({
        title: "Verdicts (share of judged responses; harness outcomes counted apart)",
        head: ["config", ...verdicts, "truncated", "judge_error"],
        rows: d.configs.map((c) => [c.config, ...verdicts.map((k) => pct(c.verdictShares[k] ?? 0)), String(c.harness.truncated), String(c.harness.judge_error)])
    });
    out.push({
        title: "Neighbourhoods",
        head: ["run", "template", "config", "M×R", "AS", "CPS", "CCS", "category", "RLPR [95% CI]", "PSR [95% CI]", "AV [95% CI]"],
        rows: d.runs.flatMap((r) =>
            r.templates.map((t) => [
                r.id,
                t.template,
                t.config,
                `${t.M}×${t.R}`,
                fix(t.AS),
                fix(t.CPS),
                fix(t.CCS),
                CATEGORY_LABELS[t.category],
                `${fix(t.RLPR)} ${interval(t.RLPR_CI, 2)}`,
                `${fix(t.PSR)} ${interval(t.PSR_CI, 2)}`,
                `${fix(t.AV, 3)} ${interval(t.AV_CI, 3)}`
            ])
        )
    });
    out.push({
        title: "Problem groups (share of configurations × templates)",
        head: ["group", "AS", ...cats.map((k) => CATEGORY_LABELS[k])],
        rows: d.groups
            .filter((g) => g.config === "all")
            .map((g) => [`${g.kind === "subgroup" ? "  ↳ " : ""}${g.name}`, fix(g.AS), ...cats.map((k) => pct(g.categories.shares[k]))])
    });
    if (d.discontinuities.length)
        out.push({
            title: "Discontinuities (instances failing inside mostly solved neighbourhoods)",
            head: ["template", "config", "instances (tuple: passed/rounds)", "patterns"],
            rows: d.discontinuities.map((x) => [
                x.template,
                x.config,
                x.instances
                    .slice(0, 8)
                    .map((i) => `${tuple(i.params)}: ${i.passed}/${i.rounds}`)
                    .join("\n") + (x.instances.length > 8 ? `\n… ${x.instances.length - 8} more` : ""),
                x.patterns.map((p) => `${p.label} ${p.failing[0]}/${p.failing[1]} vs ${p.others[0]}/${p.others[1]}`).join("\n") || "–"
            ])
        });
    out.push(...comparisonSections(d.comparison));
    return out;
}

/** Tables of a comparison: normality, pairwise tests, temperature effects, McNemar. */
export function comparisonSections(c: Comparison): Section[] {
    const out: Section[] = [];
    if (c.configs.length < 2) return out;
    out.push({
        title: "Normality (Shapiro–Wilk over templates)",
        head: ["score", "config", "n", "W", "p"],
        rows: c.normality.map((r) => [r.score, r.config, String(r.n), fix(r.w), pval(r.p)])
    });
    out.push({
        title: `Pairwise: Mann–Whitney U (two-sided) and Cliff's δ (δ > 0: A higher; * p < ${c.alpha})`,
        head: ["score", "A", "B", "U", "p", "δ", "magnitude"],
        rows: c.pairwise.map((r) => [r.score, r.a, r.b, fix(r.u, 1), pval(r.p) + (r.significant ? " *" : ""), fix(r.delta), magnitude(r)])
    });
    if (c.temperature.length)
        out.push({
            title: "Temperature effect (t = 0 against the other temperature; δ > 0: t = 0 higher)",
            head: ["model", "other t", "score", "significant?", "p", "δ", "magnitude"],
            rows: c.temperature.map((r) => [r.model + (r.quantization ? ` ${r.quantization}` : ""), String(r.temperature), r.score, Number.isNaN(r.p) ? "–" : r.significant ? "yes" : "no", pval(r.p), fix(r.delta), magnitude(r)])
        });
    if (c.paired.length)
        out.push({
            title: "Paired (exact McNemar on shared instances; A→B lost / gained)",
            head: ["A", "B", "instances", "all-R passed: lost/gained, p", "per response: lost/gained, p", "lost in B (first)", "gained in B (first)"],
            rows: c.paired.map((p) => [
                p.a,
                p.b,
                String(p.instances),
                `${p.allPassed.b}/${p.allPassed.c}, p=${pval(p.allPassed.p)}`,
                `${p.perResponse.b}/${p.perResponse.c}, p=${pval(p.perResponse.p)}`,
                p.lostInB.slice(0, 4).map((i) => `${i.template}#${i.instance} ${tuple(i.params)}`).join("\n") || "–",
                p.gainedInB.slice(0, 4).map((i) => `${i.template}#${i.instance} ${tuple(i.params)}`).join("\n") || "–"
            ])
        });
    return out;
}

/** Magnitude label, "–" when δ is undefined (a configuration without scored templates). */
export function magnitude(r: { delta: number; magnitude: string }): string {
    return Number.isNaN(r.delta) ? "–" : r.magnitude;
}

/** Terminal tables (cli-table3), no colours so they paste cleanly. */
export function renderSectionsText(title: string, list: Section[]): string {
    const parts = [title, "=".repeat(Math.min(80, title.length)), ""];
    for (const s of list) {
        const t = new Table({ head: s.head, style: { head: [], border: [] } });
        for (const r of s.rows) t.push(r);
        parts.push(s.title, t.toString());
        if (s.note) parts.push(s.note);
        parts.push("");
    }
    return parts.join("\n");
}

/** Markdown tables. */
export function renderSectionsMarkdown(title: string, list: Section[]): string {
    const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, "<br>");
    const parts = [`# ${title}`, ""];
    for (const s of list) {
        parts.push(`## ${s.title}`, "", `| ${s.head.map(cell).join(" | ")} |`, `|${s.head.map(() => " --- ").join("|")}|`);
        for (const r of s.rows) parts.push(`| ${r.map(cell).join(" | ")} |`);
        if (s.note) parts.push("", `_${s.note}_`);
        parts.push("");
    }
    return parts.join("\n");
}

/** The report as terminal tables. */
export function renderText(d: ReportData): string {
    return renderSectionsText(d.title, sections(d));
}

/** The report as Markdown. */
export function renderMarkdown(d: ReportData): string {
    return renderSectionsMarkdown(d.title, sections(d));
}
