import type { StudyProgress, StudyStats } from "./types.js";

/** The running counts of one study session, and the progress and stats derived from them. */
export class StudyCounters {
    total = 0;
    generated = 0;
    cached = 0;
    toJudge = 0;
    judged = 0;
    passed = 0;
    tokens = 0;
    errors = 0;
    missing = 0;
    /** Stored responses generated again with their lockstep group (on resume), and those that came out different. */
    regenerated = 0;
    mismatched = 0;
    judgeCached = 0;
    judgeMs = 0;
    genStart = 0;
    genWall = 0;
    judgeStart = 0;
    judgeEnd = 0;
    model = "";
    /** What the study is doing while no bar moves (validating oracles, loading a model), or "". */
    phase = "";
    /** Harness verdicts (truncated, judge_error) among `judged`: not judgements of the model. */
    harness = 0;
    /** The whole study: planned queries, and responses and verdicts stored before this session (a resume counts from them). */
    planned = 0;
    before = { generated: 0, judged: 0, harness: 0 };

    constructor(
        private readonly wallStart: number,
        private readonly judging: boolean
    ) {}

    /** Generation time so far, ms (including the stretch now running). */
    private genMs(): number {
        return this.genWall + (this.genStart ? performance.now() - this.genStart : 0);
    }

    snapshot(runId: string, final = false): StudyProgress {
        const elapsedS = (performance.now() - this.wallStart) / 1000;
        const genS = this.genMs() / 1000;
        const judgeS = this.judgeStart ? ((this.judgeEnd || performance.now()) - this.judgeStart) / 1000 : 0;
        const genRate = genS > 0 ? this.generated / genS : 0;
        const judgeRate = judgeS > 0 ? this.judged / judgeS : 0;
        const genLeft = this.total - this.generated;
        const judgeLeft = this.toJudge - this.judged;
        const eta =
            (genLeft > 0 && genRate === 0) || (this.judging && judgeLeft > 0 && judgeRate === 0)
                ? undefined
                : Math.max(genLeft > 0 ? genLeft / genRate : 0, this.judging && judgeLeft > 0 ? judgeLeft / judgeRate : 0);
        return {
            runId, total: this.total, generated: this.generated, cached: this.cached, toJudge: this.toJudge, judged: this.judged, passed: this.passed,
            tokens: this.tokens, errors: this.errors, tokensPerS: genS > 0 ? this.tokens / genS : 0, verdictsPerS: judgeRate, etaS: eta, elapsedS, model: this.model,
            phase: this.phase, harness: this.harness, planned: this.planned, before: { ...this.before },
            ...(final ? { final: true } : {})
        };
    }

    stats(store: { rows: number; transactions: number; ms: number }): StudyStats {
        const judgeWall = this.judgeStart ? this.judgeEnd - this.judgeStart : 0;
        return {
            wallMs: performance.now() - this.wallStart,
            generation: {
                responses: this.generated - this.missing, cached: this.cached, missing: this.missing, errors: this.errors, regenerated: this.regenerated, mismatched: this.mismatched,
                tokens: this.tokens, wallMs: this.genWall,
                tokensPerS: this.genWall > 0 ? (this.tokens * 1000) / this.genWall : 0,
                responsesPerS: this.genWall > 0 ? ((this.generated - this.cached) * 1000) / this.genWall : 0
            },
            judging: { verdicts: this.judged, cached: this.judgeCached, wallMs: judgeWall, judgeMs: this.judgeMs, verdictsPerS: judgeWall > 0 ? (this.judged * 1000) / judgeWall : 0 },
            store: { ...store, rowsPerS: store.ms > 0 ? (store.rows * 1000) / store.ms : 0 }
        };
    }
}
