import type { Command } from "commander";
import { renderTable, terminalWidth } from "../../../../report/terminalTable.js";
import { loadAllTemplates } from "../../../../templates/loadTemplates.js";
import { PROBLEM_GROUPS } from "../../../../templates/taxonomy.js";
import { EddyError } from "../../../../util/errors.js";
import { domainText, templateSummary } from "../describe.js";
import { templateLibrary } from "../../../templateLibrary.js";

/** `eddy templates list`: every template with its taxonomy and signature. */
export function registerListCommand(parent: Command): void {
    parent
        .command("list")
        .description("List the question templates (id, function, arity, problem group, subgroups, parameters)")
        .option("--json", "print a JSON array on stdout and nothing else")
        .option("--group <group>", "only templates of this problem group (list, string, set, searching, copying, math)")
        .option("--wide", "every value in full (the table is otherwise fitted to the terminal, or 100 columns)")
        .addHelpText("after", "\nExamples:\n  $ eddy templates list\n  $ eddy templates list --group string\n  $ eddy templates list --json")
        .action((opts: { json?: boolean; group?: string; wide?: boolean }) => {
            if (opts.group !== undefined && !(PROBLEM_GROUPS as readonly string[]).includes(opts.group))
                throw new EddyError(`unknown group '${opts.group}' (one of: ${PROBLEM_GROUPS.join(", ")})`);
            const templates = loadAllTemplates(templateLibrary()).filter((t) => !opts.group || t.group === opts.group);
            if (opts.json) {
                process.stdout.write(JSON.stringify(templates.map(templateSummary), null, 2) + "\n");
                return;
            }
            // Ids are copied into commands: never shortened; the other columns give way from their ends.
            const rows = templates.map((t) => [t.id, t.group, t.subgroups.join("\n"), `${t.function}/${t.arity}`, t.params.map((p) => `${p.name}: ${domainText(p.domain)}`).join("\n")]);
            const head = [{ head: "id", fixed: true }, { head: "group", fixed: true }, { head: "subgroups", min: 12, wrap: true }, { head: "function", min: 12, wrap: true }, { head: "params", min: 16, wrap: true }];
            process.stdout.write(renderTable(head, rows, { width: terminalWidth(), ...(opts.wide ? { wide: true } : {}) }) + `\n${templates.length} template(s)\n`);
        });
}
