import type { Store } from "../store/Store.js";

/** What an export format is given: the store (open read-only), the run and, for one-model formats, the configuration label. */
export interface ExportInput {
    store: Store;
    runId: string;
    config?: string;
}

/** What a format writes: one text (stdout or --out), or files under the --out folder (paths relative to it). */
export type ExportOutput = { text: string; rows?: number } | { files: { path: string; body: string }[] };

/**
 * One format of `eddy export`: its id (`--format`), its help line, whether it holds one model
 * (then `--config` picks the configuration of a run with several) and whether it writes a folder.
 * A new format is one module exporting one of these, plus one line in EXPORT_FORMATS.
 */
export interface ExportFormat {
    id: string;
    help: string;
    oneConfiguration: boolean;
    /** Writes several files: needs --out <folder>. */
    folder: boolean;
    write(input: ExportInput): ExportOutput;
}
