import type { Command } from "commander";
import { loadStudy } from "../../report/loadStudy.js";
import { comparisonSections, renderSectionsText } from "../../report/text.js";
import { compareConfigurations } from "../../scores/compare.js";
import { scoreNeighbourhoods } from "../../scores/neighbourhood.js";
import { EddyError } from "../../util/errors.js";
import { defaultDbPath } from "../../util/paths.js";

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
        .option("--json", "print JSON on stdout")
        .addHelpText("after", "\nExamples:\n  $ eddy compare 20261122-3fa9c1\n  $ eddy compare runQ8 runQ4 --json\n  $ eddy compare runA runB --alpha 0.01")
        .action((runs: string[], o: { db?: string; alpha: string; json?: boolean }) => {
            const alpha = Number(o.alpha);
            if (!(alpha > 0 && alpha < 1)) throw new EddyError(`--alpha must be between 0 and 1, got '${o.alpha}'`);
            const { outcomes, runs: infos } = loadStudy(o.db ?? defaultDbPath(), runs);
            const scores = scoreNeighbourhoods(outcomes);
            const cmp = compareConfigurations(scores, outcomes, { alpha });
            if (o.json) {
                process.stdout.write(JSON.stringify(cmp, null, 2) + "\n");
                return;
            }
            const title = `eddy compare: ${infos.map((r) => r.id).join(", ")} (${cmp.configs.length} configurations)`;
            if (cmp.configs.length < 2) {
                process.stdout.write(`${title}\nonly one configuration (${cmp.configs[0] ?? "none"}): nothing to compare; name more runs or run more models/temperatures\n`);
                return;
            }
            process.stdout.write(renderSectionsText(title, comparisonSections(cmp)));
        });
}
