import type { Command } from "commander";
import { MESSAGE_WIDTH, wrapText } from "../../../../util/textWidth.js";
import { renderTable } from "../../../../report/terminalTable.js";
import { templateCoverage, type Coverage } from "../../../../templates/coverage.js";
import { loadAllTemplates } from "../../../../templates/loadTemplates.js";
import { templateLibrary } from "../../../templateLibrary.js";

const counts = (c: Record<string, number>) =>
    Object.entries(c)
        .map(([k, n]) => `${k}: ${n}`)
        .join(", ");
const arities = (c: Record<string, number>) =>
    Object.entries(c)
        .map(([k, n]) => `${k} arg${k === "1" ? "" : "s"}: ${n}`)
        .join(", ");

/** A cell's list wrapped into lines of `width` columns (100 columns in all: the lists wrap, nothing is cut). */
function cell(text: string, width: number): string {
    const lines: string[] = [];
    for (const entry of text.split(", ")) {
        const last = lines.length - 1;
        if (last >= 0 && lines[last]!.length + 2 + entry.length <= width) lines[last] += `, ${entry}`;
        else lines.push(entry);
    }
    return lines.join(",\n");
}

function coverageText(c: Coverage): string {
    // The taxonomy's problem groups (not a backend's lockstep groups).
    const { groups } = c;
    const rows = groups.flatMap((g) => [
        [`${g.group} (${g.templates})`, "", "", cell(counts(g.returns), 29), cell(arities(g.arity), 19)],
        ...g.subgroups.map((s) => ["", s.name, s.templates === 0 ? "0  (empty)" : String(s.templates), cell(counts(s.returns), 29), cell(arities(s.arity), 19)])
    ]);
    const table = renderTable(["group", "subgroup", "templates", "answer types", "arity"], rows, { wide: true });
    const gaps = c.gaps;
    const lines = [
        table,
        `${c.templates} template(s); answer types: ${counts(c.returns)}; arity: ${arities(c.arity)}`,
        `empty subgroups (${gaps.emptySubgroups.length}): ${gaps.emptySubgroups.join(", ") || "none"}`,
        `subgroups with fewer than ${c.minPerSubgroup} templates (${gaps.thinSubgroups.length}): ${gaps.thinSubgroups.join(", ") || "none"}`,
        `answer types no template returns: ${gaps.unusedReturnTypes.join(", ") || "none"}`
    ];
    if (gaps.noReturns.length) lines.push(`templates without 'returns:' (${gaps.noReturns.length}): ${gaps.noReturns.join(", ")}`);
    return lines.map((l, i) => (i === 0 ? l : wrapText(l, MESSAGE_WIDTH, "  "))).join("\n") + "\n";
}

/** `eddy templates coverage`: how the templates cover the taxonomy, answer types and arities, and the gaps. */
export function registerCoverageCommand(parent: Command): void {
    parent
        .command("coverage")
        .description("How the templates cover the problem groups and subgroups, answer types (returns:) and arities; lists the gaps")
        .option("--json", "print {templates, groups, returns, arity, gaps, minPerSubgroup} on stdout and nothing else")
        .addHelpText("after", "\nA template counts once in each of its subgroups, as in the paper's Table I.\n\nExamples:\n  $ eddy templates coverage\n  $ eddy templates coverage --json")
        .action((opts: { json?: boolean }) => {
            const c = templateCoverage(loadAllTemplates(templateLibrary()));
            process.stdout.write(opts.json ? JSON.stringify(c, null, 2) + "\n" : coverageText(c));
        });
}
