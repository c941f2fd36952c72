import type { Command } from "commander";
import { warn } from "../../../messages.js";
import { MESSAGE_WIDTH, wrapText } from "../../../../util/textWidth.js";
import { safeTerminalText } from "../../../../util/safeText.js";
import { loadTemplate } from "../../../../templates/loadTemplates.js";
import { sampleInstances } from "../../../../templates/instances.js";
import { domainText, parseCount, parseSeed, templateSummary } from "../describe.js";
import { templateLibrary } from "../../../templateLibrary.js";

/** `eddy templates show <id>`: the template and the first N instances of its seeded neighbourhood. */
export function registerShowCommand(parent: Command): void {
    parent
        .command("show")
        .description("Show one template and the questions of its neighbourhood (edge tuples first, then seeded random tuples)")
        .argument("<id>", "template id (see 'eddy templates list')")
        .option("-n, --instances <n>", "how many instances to render", parseCount, 5)
        .option("--seed <seed>", "neighbourhood seed (same seed, same tuples on every machine)", parseSeed, 0)
        .option("--json", "print {template, instances: [{index, params, bindings, question}]} on stdout and nothing else")
        .addHelpText("after", "\nExamples:\n  $ eddy templates show list_rotate_right\n  $ eddy templates show set_add_range --instances 20 --seed 7\n  $ eddy templates show string_remove_first_k --json")
        .action((id: string, opts: { instances: number; seed: number; json?: boolean }) => {
            const t = loadTemplate(templateLibrary(), id);
            for (const w of t.warnings ?? []) warn(`${t.id}: ${w}`);
            const instances = sampleInstances(t, opts.instances, opts.seed);
            if (opts.json) {
                const out = { template: templateSummary(t), seed: opts.seed, instances: instances.map((i) => ({ index: i.index, params: i.params, bindings: i.bindings, question: i.question })) };
                process.stdout.write(JSON.stringify(out, null, 2) + "\n");
                return;
            }
            const lines = [
                `${t.id}  (${t.group}: ${t.subgroups.join(", ")})`,
                `function   ${t.function}, ${t.arity} argument(s), returns ${t.returns ?? "(not stated)"}`,
                ...t.params.map((p) => `param      ${p.name}: ${domainText(p.domain)}`),
                `constraint ${t.constraint ?? "(none)"}`,
                `comparator ${t.comparator}; ${t.randomInputs} random inputs; budget ${t.budget.timeMs} ms, ${t.budget.memoryMb} MB`,
                `edge       ${t.edge.length} tuple(s); seed ${opts.seed}${t.edges?.length ? `; named edges: ${t.edges.join(", ")}` : ""}`,
                `ambiguity  ${t.ambiguity ?? "(no note)"}`,
                ""
            ];
            for (const i of instances) {
                const tuple = t.params.map((p, j) => `${p.name}=${JSON.stringify(i.params[j])}`).join(", ");
                lines.push(`#${i.index}${i.index < t.edge.length ? " (edge)" : ""}  ${tuple}`, `  ${i.question.replace(/\n/g, "\n  ")}`, "");
            }
            // 100 columns: labelled lines continue under their value, questions under their indent.
            process.stdout.write(lines.map((l) => wrapText(safeTerminalText(l), MESSAGE_WIDTH, /^[a-z]+ +/.test(l) ? " ".repeat(11) : undefined)).join("\n"));
        });
}
