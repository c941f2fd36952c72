/**
 * What every import that re-judges published answers in a replay run takes (Turbulence results,
 * EvalPlus samples): where the imported questions are, the store, and the run's labels.
 */
export interface ReplayImportOptions {
    /** The folder the question import wrote (its templates/ and oracles/). */
    templates: string;
    db?: string;
    /** Which model's answers, and the run's model label (default: read from the files). */
    model?: string;
    /** The temperature the answers were drawn at (default: read from the files, else 0). */
    temperature?: number;
    /** Where the replay files go (default: `imports/` beside the database). */
    replayDir?: string;
    judgeWorkers?: number;
    onLog?: (line: string) => void;
}
