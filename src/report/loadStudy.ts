import { openStore } from "../store/Store.js";
import { loadOutcomes, runInfo, type RunInfo } from "../store/outcomes.js";
import type { Outcome } from "../scores/types.js";
import { EddyError } from "../util/errors.js";

/** Judged outcomes and run metadata of `runIds` (ids or unique prefixes) from the database at `dbPath`. */
export function loadStudy(dbPath: string, runIds: readonly string[]): { outcomes: Outcome[]; runs: RunInfo[] } {
    if (runIds.length === 0) throw new EddyError("name at least one run (see 'eddy runs list')");
    const store = openStore(dbPath, { readonly: true });
    try {
        const runs = runIds.map((id) => runInfo(store, id));
        const outcomes = loadOutcomes(
            store,
            runs.map((r) => r.id)
        );
        if (outcomes.length === 0) throw new EddyError(`no judged responses in run(s) ${runs.map((r) => r.id).join(", ")} yet`);
        return { outcomes, runs };
    } finally {
        store.close();
    }
}
