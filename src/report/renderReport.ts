import { safeJsonStringify } from "../util/safeText.js";
import type { Outcome } from "../scores/types.js";
import { EddyError } from "../util/errors.js";
import { buildReport } from "./buildReport.js";
import { renderCsv } from "./csv.js";
import { renderHtml } from "./html.js";
import { renderMarkdown, renderText } from "./text.js";
import { REPORT_FORMATS, type ReportFormat, type ReportOptions, type ReportRunMeta } from "./types.js";

/** Renders a report of `outcomes` (one or more runs) in `format`; HTML is one self-contained file. */
export async function renderReport(outcomes: readonly Outcome[], runMeta: readonly ReportRunMeta[], format: ReportFormat, opts: ReportOptions = {}): Promise<string> {
    if (!REPORT_FORMATS.includes(format)) throw new EddyError(`unknown report format '${format}' (one of ${REPORT_FORMATS.join(", ")})`);
    const { data, scores } = buildReport(outcomes, runMeta, opts);
    switch (format) {
        case "json":
            return safeJsonStringify(data, 2) + "\n";
        case "csv":
            return renderCsv(data);
        case "md":
            return renderMarkdown(data);
        case "text":
            return renderText(data, { ...(opts.width ? { width: opts.width } : {}), ...(opts.wide ? { wide: true } : {}) });
        case "html":
            return renderHtml(data, scores, outcomes, opts.drilldownPerTemplate ?? 12);
    }
}
