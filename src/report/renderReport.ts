import { safeJsonStringify } from "../util/safeText.js";
import type { Outcome } from "../vocabulary.js";
import { EddyError } from "../util/errors.js";
import { buildReport } from "./buildReport.js";
import { renderCsv } from "./csv.js";
import { renderHtml } from "./html.js";
import { renderMarkdown, renderText } from "./text.js";
import { REPORT_FORMATS, type ReportFormat, type ReportOptions, type ReportRunMeta } from "./types.js";

/** Renders a report of `outcomes` (one or more runs) in `format`; HTML is one self-contained file. */
export async function renderReport(outcomes: readonly Outcome[], runMeta: readonly ReportRunMeta[], format: ReportFormat, opts: ReportOptions = {}): Promise<string> {
    if (!REPORT_FORMATS.includes(format)) throw new EddyError(`unknown report format '${format}' (one of ${REPORT_FORMATS.join(", ")})`);
    return REPORT_RENDERERS[format]({ ...buildReport(outcomes, runMeta, opts), outcomes, opts });
}

/** What a renderer of `eddy report` is given: the built report, its scores and outcomes, the options. */
interface RenderInput extends ReturnType<typeof buildReport> {
    outcomes: readonly Outcome[];
    opts: ReportOptions;
}

/** The report's formats, each with its renderer. */
export const REPORT_RENDERERS: Record<ReportFormat, (x: RenderInput) => string | Promise<string>> = {
    json: ({ data }) => safeJsonStringify(data, 2) + "\n",
    csv: ({ data }) => renderCsv(data),
    md: ({ data }) => renderMarkdown(data),
    text: ({ data, opts }) => renderText(data, { ...(opts.width ? { width: opts.width } : {}), ...(opts.wide ? { wide: true } : {}) }),
    html: ({ data, scores, outcomes, opts }) => renderHtml(data, scores, outcomes, opts.drilldownPerTemplate ?? 12, opts.viewer)
};
