import { writeFileSync } from "node:fs";
import type { Template } from "../../templates/types.js";
import { sampleInstances } from "../../templates/instances.js";
import { deriveSeed } from "../../util/seeds.js";
import type { SolutionSource } from "../reference/ReferenceBackend.js";

/** Share of rounds answered with the chosen mutant, per template; cycling through them gives every category a chance. */
const FLAW_RATES = [0, 0.25, 0.5, 1];

/**
 * Writes the answers of a simulated flawed model as a replay file (one JSON line per template,
 * instance and round, the format `--backend replay` reads). Each template gets one of its oracle's
 * mutants and a flaw rate; each round answers with the mutant at that rate and with the model
 * solution otherwise. A mutant is often wrong only on some tuples (equal bounds, zero…), so the
 * scores show the neighbourhood categories and discontinuities a real model can show, on a machine
 * with no model that writes code. Every choice derives from `seed`: the same seed writes the same file.
 * Returns the number of answers written.
 */
export async function writeSimulatedAnswers(
    judge: SolutionSource & { mutants(t: Template): Promise<string[]> },
    templates: Template[],
    opts: { instances: number; rounds: number; seed: number; file: string }
): Promise<number> {
    const lines: string[] = [];
    for (const [ti, t] of templates.entries()) {
        const mutants = await judge.mutants(t);
        const mutant = mutants[deriveSeed(opts.seed, "simulated-mutant", t.id) % Math.max(mutants.length, 1)];
        const rate = FLAW_RATES[ti % FLAW_RATES.length]!;
        for (const inst of sampleInstances(t, opts.instances, opts.seed))
            for (let round = 0; round < opts.rounds; round++) {
                const flawed = mutant !== undefined && deriveSeed(opts.seed, "simulated-flaw", t.id, inst.index, round) / 2 ** 32 < rate;
                const src = await judge.answerSource(t, inst.bindings, flawed ? mutant : "solution");
                const response = "```python\n" + src.trimEnd() + "\n```\n";
                lines.push(JSON.stringify({ template: t.id, instance: inst.index, round, response }));
            }
    }
    writeFileSync(opts.file, lines.join("\n") + "\n");
    return lines.length;
}
