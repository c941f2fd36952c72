import type { Command } from "commander";
import { renderTable } from "../../../../report/terminalTable.js";
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
        .addHelpText("after", "\nExamples:\n  $ eddy templates list\n  $ eddy templates list --group string\n  $ eddy templates list --json")
        .action((opts: { json?: boolean; group?: string }) => {
            if (opts.group !== undefined && !(PROBLEM_GROUPS as readonly string[]).includes(opts.group))
                throw new EddyError(`unknown group '${opts.group}' (one of: ${PROBLEM_GROUPS.join(", ")})`);
            const templates = loadAllTemplates(templateLibrary()).filter((t) => !opts.group || t.group === opts.group);
            if (opts.json) {
                process.stdout.write(JSON.stringify(templates.map(templateSummary), null, 2) + "\n");
                return;
            }
            const rows = templates.map((t) => [t.id, t.group, t.subgroups.join(", "), `${t.function}/${t.arity}`, t.params.map((p) => `${p.name}: ${domainText(p.domain)}`).join("\n")]);
            process.stdout.write(renderTable(["id", "group", "subgroups", "function", "params"], rows, { wide: true }) + `\n${templates.length} template(s)\n`);
        });
}
