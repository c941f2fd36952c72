import type { StudyResult } from "./study/types.js";
import { answersPhrase, runState } from "../vocabulary.js";

/** A short end-of-run summary: the run's state and answers in the words every command uses (src/vocabulary.ts), then per-stage throughput. */
export function summarize(r: StudyResult): string {
    const g = r.stats.generation;
    const j = r.stats.judging;
    const st = r.stats.store;
    // A backend that decodes nothing (reference, replay) has no token rate to show.
    const rate = g.tokens > 0 ? `${g.tokens} tokens in ${(g.wallMs / 1000).toFixed(1)}s — ${g.tokensPerS.toFixed(0)} tok/s, ` : `${(g.wallMs / 1000).toFixed(1)}s — `;
    return [
        `run ${r.runId}: ${runState(r.status, r.answers.missing)} in ${(r.stats.wallMs / 1000).toFixed(1)}s`,
        `  answers:  ${answersPhrase(r.answers)}`,
        `  generate: ${g.responses} responses (${g.cached} cached${g.missing ? `, ${g.missing} missing` : ""}${g.errors ? `, ${g.errors} errors` : ""}), ${rate}${g.responsesPerS.toFixed(1)} responses/s`,
        `  judge:    ${j.verdicts} verdicts (${j.cached} cached) in ${(j.wallMs / 1000).toFixed(1)}s — ${j.verdictsPerS.toFixed(1)} verdicts/s`,
        `  store:    ${st.rows} rows in ${st.transactions} transactions, ${st.ms.toFixed(0)} ms — ${st.rowsPerS.toFixed(0)} rows/s`
    ].join("\n");
}
