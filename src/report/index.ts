export { renderReport } from "./renderReport.js";
export { buildReport } from "./buildReport.js";
export { renderText, renderMarkdown, comparisonSections, renderSectionsText, renderSectionsMarkdown } from "./text.js";
export { renderCsv } from "./csv.js";
export { renderHtml } from "./html.js";
export { renderSvg } from "./charts.js";
export { REPORT_FORMATS, type ReportFormat, type ReportRunMeta, type ReportData, type ReportOptions, type ReportRun, type NeighbourhoodRow } from "./types.js";
