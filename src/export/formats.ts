import { EddyError } from "../util/errors.js";
import { EEE_FORMAT } from "./eee.js";
import { EVALPLUS_FORMAT } from "./evalplus.js";
import { INSPECT_FORMAT } from "./inspect.js";
import { CSV_FORMAT, JSONL_FORMAT } from "./rows.js";
import type { ExportFormat } from "./types.js";

/** Every format of `eddy export`, in the order help lists them: the one place a format is named. */
export const EXPORT_FORMATS: readonly ExportFormat[] = [JSONL_FORMAT, CSV_FORMAT, EVALPLUS_FORMAT, INSPECT_FORMAT, EEE_FORMAT];

/** The format with this id, or one line naming the known ones. */
export function exportFormat(id: string): ExportFormat {
    const f = EXPORT_FORMATS.find((x) => x.id === id);
    if (!f) throw new EddyError(`unknown export format '${id}' (use ${EXPORT_FORMATS.map((x) => x.id).join(", ")})`);
    return f;
}
