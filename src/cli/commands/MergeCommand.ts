import { heldSignal, holdSignals, onUnansweredSignal, signalAnswered } from "../heldSignals.js";
import { note, print } from "../messages.js";
import type { Command } from "commander";
import { describeConflict } from "../../merge/describeConflict.js";
import { MergeConflictError, mergeStores } from "../../store/merge.js";
import { EddyError, isEddyError, oneLine } from "../../util/errors.js";
import { safeJsonStringify, safeTerminalLine } from "../../util/safeText.js";
import { writePrivateFile } from "../../util/privateFiles.js";

/** How many conflicts the terminal shows; `--report` writes them all. */
const SHOWN = 20;

/** `eddy merge`: fold the stores of nodes that cannot see each other into one. */
export function registerMergeCommand(program: Command): void {
    program
        .command("merge <db...>")
        .description("Merge the databases of several nodes into one (idempotent; refuses conflicting rows; keeps which node produced what)")
        .requiredOption("--into <db>", "the database to merge into (created when missing)")
        .option("--report <file>", "write every conflict as JSON to this file when the merge is refused")
        .addHelpText("after", "\nExamples:\n  $ eddy merge node1/eddy.db node2/eddy.db --into lab.db\n  $ eddy merge usb/*.db --into lab.db --report conflicts.json")
        .action(async (dbs: string[], o: { into: string; report?: string }) => {
            // The merge is one synchronous transaction: a Ctrl-C (or TERM) is heard only once it has ended, so the
            // exit says what happened: a merge that completed exits 0 and says it was interrupted after the fact.
            // Held from the process's start (bin.ts; here too when called another way): a signal before the merge
            // began is said as such, one after its last look is said at exit. None ends the process in silence.
            holdSignals();
            // A signal sent during the merge is heard on the next turn of the loop; the handlers stay to the exit, so a late one cannot end the process by signal (130) after the merge completed.
            const heard = async (): Promise<string | undefined> => {
                await new Promise((r) => setTimeout(r, 50)); // past the loop's next poll, where a pending signal is read
                const sig = heldSignal();
                if (sig) signalAnswered();
                return sig;
            };
            const early = await heard();
            if (early) throw new EddyError(`${early} came before the merge began: nothing was merged, ${o.into} is as it was`, 130);
            onUnansweredSignal((sig) => `${sig} came after the merge was done and reported: ${o.into} holds what it said`);
            try {
                const r = mergeStores(dbs, o.into);
                for (const s of r.sources) {
                    const fmt = (m: Record<string, number>): string => Object.entries(m).map(([t, n]) => `${t} ${n}`).join(", ") || "nothing";
                    const renamed = Object.entries(s.runs).filter(([a, b]) => a !== b).map(([a, b]) => `${a} → ${b} (same config hash)`);
                    print(`${s.path} (node ${s.nodeId}): new ${fmt(s.inserted)}; already there ${fmt(s.same)}`);
                    for (const line of renamed) print(`  run ${line}`);
                }
                print(`merged into ${r.into} (node ${r.nodeId})`);
                const sig = await heard();
                if (sig) note(`${sig} came while merging; the merge had already completed: ${r.into} holds everything merged`);
            } catch (err) {
                const sig = await heard();
                if (sig && !(err instanceof MergeConflictError)) throw new EddyError(`${sig} came while merging, and the merge did not complete: ${oneLine(err)}`, isEddyError(err) ? err.exitCode : 1);
                if (!(err instanceof MergeConflictError)) throw err;
                for (const c of err.conflicts.slice(0, SHOWN)) process.stderr.write(`conflict: ${safeTerminalLine(describeConflict(c))}\n`);
                if (err.conflicts.length > SHOWN) process.stderr.write(`… and ${err.conflicts.length - SHOWN} more${o.report ? "" : " (--report <file> lists them all)"}\n`);
                if (o.report) {
                    try {
                        writePrivateFile(o.report, safeJsonStringify(err.conflicts, 2) + "\n"); // 0600: conflicts quote rows' content
                    } catch (e) {
                        throw new EddyError(`${err.message}; and the report could not be written to ${o.report}: ${oneLine(e)}`, err.exitCode);
                    }
                }
                throw err;
            }
        });
}
