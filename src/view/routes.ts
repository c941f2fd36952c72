import type { PageContext, PageResult } from "./context.js";
import { answersPage } from "./pages/answers.js";
import { comparePage } from "./pages/compare.js";
import { instancePage } from "./pages/instance.js";
import { quantPage, quantStudiesPage } from "./pages/quant.js";
import { leaderboardPage } from "./pages/leaderboard.js";
import { runPage } from "./pages/run.js";
import { runsPage } from "./pages/runs.js";
import { agreementPage, auditsPage, loopPage, loopsPage, mutatePage, reportPage } from "./pages/studies.js";
import { templatePage } from "./pages/template.js";

type Page = (ctx: PageContext) => PageResult | Promise<PageResult>;

/** A path segment: anything but a slash (decoded before the page sees it). */
const S = "([^/]+)";

/**
 * Every view, as a path pattern and its page, first match wins. Written out (a dozen lines) rather than
 * taken from a routing package: node:http has none, and these routes need nothing but captured segments.
 * Keep in step with urls.ts, which builds the links.
 */
export const ROUTES: [pattern: RegExp, page: Page][] = [
    [/^\/$/, leaderboardPage],
    [/^\/runs$/, runsPage],
    [new RegExp(`^/run/${S}$`), runPage],
    [new RegExp(`^/run/${S}/template/${S}$`), templatePage],
    [new RegExp(`^/run/${S}/config/${S}/template/${S}/instance/${S}$`), instancePage],
    [new RegExp(`^/run/${S}/report$`), reportPage],
    [new RegExp(`^/run/${S}/agreement$`), agreementPage],
    [new RegExp(`^/run/${S}/mutate$`), mutatePage],
    [new RegExp(`^/run/${S}/quant$`), quantPage],
    [/^\/quant$/, quantStudiesPage],
    [/^\/answers$/, answersPage],
    [/^\/compare$/, comparePage],
    [/^\/loops$/, loopsPage],
    [new RegExp(`^/loop/${S}$`), loopPage],
    [/^\/audits$/, auditsPage]
];

/** The page for a path and its decoded captures, or undefined (404). */
export function route(pathname: string): { page: Page; params: string[] } | undefined {
    for (const [pattern, page] of ROUTES) {
        const m = pattern.exec(pathname);
        if (!m) continue;
        try {
            return { page, params: m.slice(1).map((s) => decodeURIComponent(s)) };
        } catch {
            return undefined; // a malformed %-escape names nothing
        }
    }
    return undefined;
}
