import type { Command } from "commander";
import { loadStudy } from "../../report/loadStudy.js";
import { comparisonSections, renderSectionsText } from "../../report/text.js";
import { compareConfigurations } from "../../scores/compare.js";
import { scoreNeighbourhoods } from "../../scores/neighbourhood.js";
import { EddyError } from "../../util/errors.js";
import { defaultDbPath } from "../../util/paths.js";
import { safeJsonStringify, safeTerminalText } from "../../util/safeText.js";

/** `eddy compare <run...>`: normality, pairwise U and Cliff's δ, temperature effects and McNemar over the runs' configurations. */
export function registerCompareCommand(program: Command): void {
    program
        .command("compare")
        .description(
            "Compare configurations over templates: Shapiro–Wilk per configuration, pairwise Mann–Whitney U and Cliff's δ, the temperature effect per model, and exact McNemar with the flipped instances for configurations sharing instances"
        )
        .argument("<run...>", "run ids (or unique prefixes); every configuration in them is compared")
        .option("--db <file>", `database file (default ${defaultDbPath()})`)
        .option("--alpha <p>", "significance level", "0.05")
        .option("--json", "print JSON on stdout (every value in full)")
        .option("--wide", "every value in full (tables are otherwise fitted to the terminal, or 100 columns)")
        .addHelpText("after", "\nExamples:\n  $ eddy compare latest                # configurations inside the newest run\n  $ eddy compare latest latest~1 --json   # two runs, e.g. Q8_0 and Q4_0 of one model\n  $ eddy compare latest latest~1 --alpha 0.01\n  $ eddy compare latest --wide")
        .action((runs: string[], o: { db?: string; alpha: string; json?: boolean; wide?: boolean }) => {
            const alpha = Number(o.alpha);
            if (!(alpha > 0 && alpha < 1)) throw new EddyError(`--alpha must be between 0 and 1, got '${o.alpha}'`);
            const { outcomes, runs: infos, planned } = loadStudy(o.db ?? defaultDbPath(), runs);
            const scores = scoreNeighbourhoods(outcomes, { planned });
            const cmp = compareConfigurations(scores, outcomes, { alpha });
            if (o.json) {
                process.stdout.write(safeJsonStringify(cmp, 2) + "\n");
                return;
            }
            const title = `eddy compare: ${infos.map((r) => r.id).join(", ")} (${cmp.configs.length} configurations)`;
            if (cmp.configs.length < 2) {
                process.stdout.write(safeTerminalText(`${title}\nonly one configuration (${cmp.configs[0] ?? "none"}): nothing to compare; name more runs or run more models/temperatures\n`));
                return;
            }
            process.stdout.write(renderSectionsText(title, comparisonSections(cmp, { full: o.wide === true }), o.wide ? { wide: true } : {}));
        });
}
