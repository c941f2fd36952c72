import { fix } from "../../report/format.js";
import { html, SafeHtml, type HtmlValue } from "../../report/safeHtml.js";
import { scoresIn } from "../../report/scoreTable.js";
import { judged } from "../../report/text.js";
import { CATEGORY_LABELS } from "../../scores/neighbourhood.js";
import type { Store } from "../../store/Store.js";
import { EddyError } from "../../util/errors.js";
import type { PageContext, PageResult } from "../context.js";
import { CATEGORY_MEANING, num, scoreDefinitions, sortHeader, table, td, viewerPage, type Cell, type Head } from "../layout.js";
import {
    BOOTSTRAP_MIN_TEMPLATES,
    comparePair,
    matchBenchmarks,
    PAIRED_MIN_SHARE,
    rankEntries,
    runBoard,
    TIE_ALPHA,
    type BenchmarkScore,
    type BoardEntry,
    type PairedData,
    type PairVerdict,
    type Rank,
    type RankedScore,
    type RunBoard
} from "../leaderboard.js";
import type { RunDataCache } from "../runData.js";
import { answersUrl, leaderboardUrl, runsUrl, runUrl } from "../urls.js";

/**
 * `/`: the leaderboard. Every configuration in the store with AS, CPS, CCS, pass@1, its four categories, 95%
 * intervals and judged counts, ranked with statistical ties shown as ties, and where the same model was also
 * run on imported HumanEval+/MBPP+ problems, its pass@1 there and the difference. Sorted and filtered by links
 * and a GET form: the server draws the page again (no script).
 */

/** The columns the board sorts by, each with the value it sorts on and its first direction. */
const SORTS: Record<string, { value: (e: BoardEntry, bench: BenchmarkScore | undefined) => number | string; first: "asc" | "desc" }> = {
    model: { value: (e) => e.model.toLowerCase(), first: "asc" },
    quant: { value: (e) => e.quantization ?? "", first: "asc" },
    t: { value: (e) => e.temperature, first: "asc" },
    wrapper: { value: (e) => e.wrapper, first: "asc" },
    kv: { value: (e) => e.kvCache ?? "", first: "asc" },
    backend: { value: (e) => e.backend, first: "asc" },
    AS: { value: (e) => e.AS, first: "desc" },
    CPS: { value: (e) => e.CPS, first: "desc" },
    CCS: { value: (e) => e.CCS, first: "desc" },
    pass1: { value: (e) => e.pass1, first: "desc" },
    PS: { value: (e) => share(e, "perfect_success"), first: "desc" },
    SF: { value: (e) => share(e, "stochastic_failure"), first: "desc" },
    IG: { value: (e) => share(e, "inconsistent_generalisation"), first: "desc" },
    PF: { value: (e) => share(e, "perfect_failure"), first: "desc" },
    judged: { value: (e) => e.judged, first: "desc" },
    bench: { value: (_, b) => b?.pass1 ?? NaN, first: "desc" },
    diff: { value: (e, b) => (b ? e.pass1 - b.pass1 : NaN), first: "asc" }
};
export const LEADERBOARD_SORTS = Object.keys(SORTS);

const share = (e: BoardEntry, k: keyof BoardEntry["categories"]): number => (e.templates ? e.categories[k] / e.templates : NaN);

/** The filters, each naming what of a configuration it matches. */
const FILTERS: Record<string, { label: string; of: (e: BoardEntry) => string }> = {
    model: { label: "model", of: (e) => e.model },
    quant: { label: "quantisation", of: (e) => e.quantization ?? "none" },
    t: { label: "temperature", of: (e) => String(e.temperature) },
    wrapper: { label: "wrapper", of: (e) => e.wrapper },
    kv: { label: "KV cache", of: (e) => e.kvCache ?? "default" },
    backend: { label: "backend", of: (e) => e.backend },
    run: { label: "run", of: (e) => e.runId }
};

/** The longest filter value taken (a name, a number). */
const MAX_VALUE_CHARS = 200;

/** What the URL asks of the board: its sort and direction, its filters and search text. A value it does not take is a 400 page saying which. */
export interface BoardState {
    sort: string;
    dir: "asc" | "desc";
    filters: Record<string, string>;
    q: string | undefined;
}

export function boardState(q: URLSearchParams): BoardState {
    const sort = q.get("sort") || "AS";
    if (!Object.hasOwn(SORTS, sort)) throw new EddyError(`'sort' must be one of ${LEADERBOARD_SORTS.join(", ")}, not '${sort.slice(0, 40)}'`, 400);
    const dir = q.get("dir") || SORTS[sort]!.first;
    if (dir !== "asc" && dir !== "desc") throw new EddyError(`'dir' must be asc or desc, not '${dir.slice(0, 40)}'`, 400);
    const filters: Record<string, string> = {};
    for (const k of [...Object.keys(FILTERS), "q"]) {
        const v = q.get(k);
        if (v === null || v === "") continue;
        if (v.length > MAX_VALUE_CHARS) throw new EddyError(`'${k}' is ${v.length} characters long; at most ${MAX_VALUE_CHARS} are taken`, 400);
        if (k === "t" && !/^-?\d+(\.\d+)?$/.test(v.trim())) throw new EddyError(`'t' must be a temperature such as 0.7, not '${v.slice(0, 40)}'`, 400);
        if (k !== "q") filters[k] = k === "t" ? String(Number(v)) : v;
    }
    const text = q.get("q");
    return { sort, dir, filters, q: text ? text : undefined };
}

/** The state as URL values (defaults left out), for links that keep it. */
function stateQuery(s: BoardState, change: Partial<Pick<BoardState, "sort" | "dir">> = {}): Record<string, string | undefined> {
    const sort = change.sort ?? s.sort;
    const dir = change.dir ?? s.dir;
    return { ...s.filters, q: s.q, sort: sort === "AS" ? undefined : sort, dir: dir === SORTS[sort]!.first ? undefined : dir };
}

/** The rows of every run of the store, each run's kept until it changes (RunDataCache.derived); runs that cannot be scored are named. */
export function boardOf(store: Store, runs: RunDataCache): { entries: BoardEntry[]; paired: Map<number, PairedData>; unreadable: string[]; runCount: number } {
    const entries: BoardEntry[] = [];
    const paired = new Map<number, PairedData>();
    const unreadable: string[] = [];
    for (const run of store.listRuns()) {
        let board: RunBoard;
        try {
            board = runs.derived(run.id, "leaderboard", (d) => runBoard(d, store.view.configurations(run.id), { backend: run.backend, status: run.status, config: d.info.config }));
        } catch {
            unreadable.push(run.id);
            continue;
        }
        entries.push(...board.entries);
        for (const [id, p] of board.paired) paired.set(id, p);
    }
    return { entries, paired, unreadable, runCount: store.listRuns().length };
}

/** Pair verdicts already found, per entry object (an entry is replaced when its run changes, and its verdicts with it). */
const verdicts = new WeakMap<BoardEntry, WeakMap<BoardEntry, Partial<Record<RankedScore, PairVerdict>>>>();

function verdictOf(a: BoardEntry, b: BoardEntry, paired: Map<number, PairedData>, score: RankedScore): PairVerdict {
    let inner = verdicts.get(a);
    if (!inner) verdicts.set(a, (inner = new WeakMap()));
    let known = inner.get(b);
    if (!known) inner.set(b, (known = {}));
    return (known[score] ??= comparePair(a, b, paired.get(a.configId), paired.get(b.configId), score));
}

/** The score ranks are by: the sorted score (pass@1 as AS, which it equals), else AS. */
function rankScore(sort: string): RankedScore {
    return sort === "CPS" || sort === "CCS" ? sort : "AS";
}

const SHORT_CATEGORIES: [key: "perfect_success" | "stochastic_failure" | "inconsistent_generalisation" | "perfect_failure", sort: string, short: string][] = [
    ["perfect_success", "PS", "PS"],
    ["stochastic_failure", "SF", "SF"],
    ["inconsistent_generalisation", "IG", "IG"],
    ["perfect_failure", "PF", "PF"]
];

const LEADERBOARD_CSS = `
#board{width:100%}#board th,#board td{padding:4px 6px}
#board td.config{max-width:330px}#board td.config .settings{display:block;color:var(--muted);font-size:11.5px}
#board td.n small,#board td small{display:block;color:var(--muted);font-size:11px;white-space:nowrap}
#board td.rank{font-weight:700;white-space:nowrap}#board td.rank.tie{color:#8a5a00}
#board td.bench{white-space:nowrap}
`;

/** `/`: the leaderboard. */
export function leaderboardPage(ctx: PageContext): PageResult {
    const state = boardState(ctx.url.searchParams);
    const { entries: all, paired, unreadable, runCount } = boardOf(ctx.store, ctx.runs);
    const benchOf = matchBenchmarks(all);
    const neighbourhood = all.filter((e) => !e.benchmark);
    const matches = (e: BoardEntry) =>
        Object.entries(state.filters).every(([k, v]) => FILTERS[k]!.of(e) === v) &&
        (state.q === undefined || `${e.label} ${e.model} ${e.quantization ?? ""} ${e.runId}`.toLowerCase().includes(state.q.toLowerCase()));
    const shown = neighbourhood.filter(matches);
    const score = rankScore(state.sort);
    const ranks = rankEntries(shown, score, (a, b) => verdictOf(a, b, paired, score));
    const firstBench = (e: BoardEntry) => benchOf.get(e.configId)?.[0];
    const key = SORTS[state.sort]!;
    const sign = state.dir === "asc" ? 1 : -1;
    const sorted = [...shown].sort((a, b) => {
        const x = key.value(a, firstBench(a));
        const y = key.value(b, firstBench(b));
        // Nothing to sort on (no judged answer, no benchmark run) goes last either way.
        const nx = typeof x === "number" && Number.isNaN(x);
        const ny = typeof y === "number" && Number.isNaN(y);
        if (nx || ny) return nx === ny ? 0 : nx ? 1 : -1;
        const c = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
        return sign * c || (ranks.get(a.configId)?.lo ?? Infinity) - (ranks.get(b.configId)?.lo ?? Infinity) || a.configId - b.configId;
    });
    const labelOf = new Map(all.map((e) => [e.configId, e]));

    const href = (sort: string, dir: "asc" | "desc") => leaderboardUrl(stateQuery(state, { sort, dir }));
    const sortable = (label: HtmlValue, k: string, title?: string): Head => sortHeader(label, k, state, href, SORTS[k]!.first, title);
    const scoreCols = scoresIn("scores");
    const anyBench = shown.some((e) => benchOf.has(e.configId));
    const head: Head[] = [
        html`<abbr title="Rank by ${score}; a range (2–4) is a statistical tie: the configurations it spans are not told apart by the data">rank (${score})</abbr>`,
        sortable("configuration", "model", "model · quantisation · temperature · wrapper · KV cache · backend · run"),
        ...scoreCols.map((k) => sortable(k.label, k.name, `${k.description} (${k.read}); below: its 95% interval`)),
        sortable("pass@1", "pass1", "Unbiased pass@1, mean over judged instances (= AS)"),
        ...SHORT_CATEGORIES.map(([k, s, short]) => sortable(short, s, `${CATEGORY_LABELS[k]}: templates where ${CATEGORY_MEANING[k]}`)),
        sortable("judged", "judged", "instances with a judged answer, of those planned; below: responses judged"),
        ...(anyBench ? [sortable("benchmark pass@1 (Δ)", "bench", "pass@1 of the same model on imported HumanEval+/MBPP+; Δ = its neighbourhood pass@1 minus that")] : [])
    ];
    const rows = sorted.map((e) => row(e, ranks.get(e.configId), labelOf, anyBench ? (benchOf.get(e.configId) ?? []) : undefined));

    const filterForm = form(neighbourhood, state);
    const board =
        neighbourhood.length === 0
            ? html`<p class="muted" id="no-configurations">${all.length === 0 ? "No configurations in this database yet: start a study with 'eddy run', then reload." : "No neighbourhood configurations: only imported benchmark runs (below)."}</p>`
            : shown.length === 0
              ? html`${filterForm}<p class="muted" id="no-configurations">No configuration matches these filters. <a href="${leaderboardUrl()}">Show all</a>.</p>`
              : html`${filterForm}${table(head, rows, { id: "board" })}`;
    const benchmarks = all.filter((e) => e.benchmark && matches(e));
    const body = html`<section id="leaderboard"><h2>Leaderboard <small>${shown.length} of ${neighbourhood.length} configuration${neighbourhood.length === 1 ? "" : "s"}</small></h2><p class="note">Every model configuration in ${ctx.store.path}, scored over its question neighbourhoods as 'eddy report' scores them (means over templates; judged answers only: truncated and judge_error answers are left out). Click a column's name to sort by it, again to reverse; filter with the form. Read-only: reload to see answers written since.</p>${board}${
        shown.length ? notes(score) : ""
    }${unreadable.length ? html`<p class="note bad">Runs that could not be scored: ${unreadable.join(", ")}.</p>` : ""}</section>
${benchmarks.length ? benchmarkSection(benchmarks, neighbourhood, benchOf) : ""}
<section id="definitions-section"><h2>What the columns mean</h2>${scoreDefinitions([...scoreCols, ...scoresIn("passAtK")])}</section>
<section id="runs-link"><h2>Runs</h2><p>${runCount} run${runCount === 1 ? "" : "s"} in this database: <a href="${runsUrl()}">the list of runs</a>, each with its configurations, templates and every answer.</p></section>`;
    return { html: viewerPage("Leaderboard", [["leaderboard"]], body, LEADERBOARD_CSS) };
}

function row(e: BoardEntry, rank: Rank | undefined, byId: Map<number, BoardEntry>, bench: BenchmarkScore[] | undefined): Cell[] {
    const tied = rank ? rank.ties.map((t) => `${byId.get(t.configId)?.label ?? t.configId} (${t.how})`) : [];
    const rankCell = rank
        ? html`<td class="rank${rank.lo !== rank.hi ? " tie" : ""}" data-rank-lo="${rank.lo}" data-rank-hi="${rank.hi}" title="${tied.length ? `tied with: ${tied.slice(0, 8).join("; ")}${tied.length > 8 ? `; and ${tied.length - 8} more` : ""}` : "told apart from every other configuration shown"}">${rank.lo === rank.hi ? String(rank.lo) : `${rank.lo}–${rank.hi}`}${rank.ties.length ? html`<small>tied with ${rank.ties.length}</small>` : ""}</td>`
        : html`<td class="rank" title="no judged answer">–</td>`;
    const settings = [e.quantization ?? "no quantisation", `t=${fix(e.temperature, 2).replace(/\.?0+$/, "") || "0"}`, e.wrapper, `KV ${e.kvCache ?? "default"}`, e.backend, `run ${e.runId}`, ...(e.runStatus !== "complete" ? [e.runStatus] : [])];
    const withInterval = (k: RankedScore) => {
        const i = e.intervals[k];
        return html`<td class="n" data-score="${k}" title="95% interval: ${e.intervalMethod}">${fix(e[k])}${Number.isNaN(i.lo) ? "" : html`<small>${fix(i.lo, 2)}–${fix(i.hi, 2)}</small>`}</td>`;
    };
    const harness = e.harness.truncated + e.harness.judge_error + e.harness.missing;
    return [
        rankCell,
        html`<td class="config" data-config="${e.configId}"><a href="${runUrl(e.runId)}"><b>${e.model}</b></a><span class="settings">${settings.join(" · ")}</span></td>`,
        withInterval("AS"),
        withInterval("CPS"),
        withInterval("CCS"),
        num(fix(e.pass1)),
        ...SHORT_CATEGORIES.map(([k]) => html`<td class="n" title="${CATEGORY_LABELS[k]}: ${e.categories[k]} of ${e.templates} templates">${e.categories[k]}</td>`),
        html`<td class="n">${judged(e.judged, e.total)}<small><a href="${answersUrl({ config: e.configId })}">${e.responses} responses</a>${harness ? `, ${harness} left out` : ""}</small></td>`,
        ...(bench === undefined
            ? []
            : [
                  bench.length
                      ? html`<td class="bench n">${bench.map(
                            (b) =>
                                html`<div data-benchmark="${b.dataset}" title="${b.label} in run ${b.runId}: ${b.problems} problems judged${b.importedFrom ? `, answers imported from ${b.importedFrom}` : ""}">${b.dataset} ${fix(b.pass1)} <b class="diff">Δ ${signed(e.pass1 - b.pass1)}</b>${otherSettings(e, b) ? html`<small>${otherSettings(e, b)}</small>` : ""}</div>`
                        )}</td>`
                      : html`<td class="bench muted" title="no run of this model on imported HumanEval+/MBPP+ problems">–</td>`
              ])
    ].map((c) => (c instanceof SafeHtml ? td(c) : c));
}

/** Where a benchmark run's settings differ from the row's: "at Q8_0, t=0" (empty when they do not). */
function otherSettings(e: BoardEntry, b: BenchmarkScore): string {
    const parts = [
        ...(b.quantization !== null && (b.quantization ?? "").toLowerCase() !== (e.quantization ?? "").toLowerCase() ? [b.quantization] : []),
        ...(b.temperature !== e.temperature ? [`t=${b.temperature}`] : [])
    ];
    return parts.length ? `at ${parts.join(", ")}` : "";
}

const signed = (x: number): string => (Number.isNaN(x) ? "–" : `${x >= 0 ? "+" : "−"}${fix(Math.abs(x))}`);

function form(entries: readonly BoardEntry[], state: BoardState): SafeHtml {
    const select = (k: string) => {
        const values = [...new Set(entries.map((e) => FILTERS[k]!.of(e)))].sort((a, b) => (k === "t" ? Number(a) - Number(b) : a.localeCompare(b)));
        const current = state.filters[k] ?? "";
        return html`<label>${FILTERS[k]!.label}<select name="${k}"><option value="">any</option>${values.map((v) => html`<option value="${v}"${v === current ? html` selected` : ""}>${v}</option>`)}</select></label>`;
    };
    const keep = stateQuery(state);
    return html`<form class="filters" method="get" action="${leaderboardUrl()}">${keep.sort ? html`<input type="hidden" name="sort" value="${keep.sort}">` : ""}${keep.dir ? html`<input type="hidden" name="dir" value="${keep.dir}">` : ""}${Object.keys(FILTERS).map(select)}<label>search<input type="search" name="q" value="${state.q ?? ""}" placeholder="model or run"></label><button type="submit">filter</button> <a href="${leaderboardUrl()}">clear</a></form>`;
}

function notes(score: RankedScore): SafeHtml {
    return html`<p class="note" id="ties"><b>Ranks and ties.</b> Ranked by ${score}. A configuration's rank is 1 + the configurations significantly better than it; a range such as 2–4 means the data do not tell it apart from those it spans (a statistical tie), and it is listed on hover. Two configurations that share at least ${Math.round(PAIRED_MIN_SHARE * 100)}% of each one's judged instances (same template, index and parameters) are compared by an exact McNemar test on them (AS: per response; CPS: solved at least once; CCS: solved in every round; p &lt; ${TIE_ALPHA}); others by their 95% intervals (apart, or overlapping). <b>Intervals</b> (under each score): with ${BOOTSTRAP_MIN_TEMPLATES} or more templates, a seeded percentile bootstrap of the mean over templates; with fewer, Wilson over the judged instances. <b>PS, SF, IG, PF</b>: templates in each category (Perfect Success, Stochastic Failure, Inconsistent Generalisation, Perfect Failure); templates under 90% judged have none. <b>benchmark pass@1</b>: the same model (matched by name, without an org/ prefix, its quantisation suffix or case) on imported HumanEval+/MBPP+ problems, and Δ = its pass@1 on these neighbourhoods minus that: how much of the benchmark score survives when the question moves.</p>`;
}

function benchmarkSection(benchmarks: readonly BoardEntry[], neighbourhood: readonly BoardEntry[], benchOf: Map<number, BenchmarkScore[]>): SafeHtml {
    const usedBy = (id: number) => neighbourhood.filter((e) => benchOf.get(e.configId)?.some((b) => b.configId === id)).length;
    return html`<section id="benchmarks"><h2>Imported benchmark runs <small>HumanEval+ / MBPP+</small></h2><p class="note">Configurations whose every template is an imported HumanEval+ or MBPP+ problem ('eddy import humaneval', then a run or 'eddy import evalplus-samples'): one instance per problem, so no neighbourhood scores; their pass@1 sits beside the same model's neighbourhood scores above.</p>${table(
        ["model", "quantisation", "t", "benchmark", "pass@1", "problems judged", "answers from", "run", "shown beside"],
        benchmarks.flatMap((e) =>
            e.benchmark!.map((b) => [
                e.model,
                e.quantization ?? "–",
                num(fix(e.temperature, 2)),
                b.dataset,
                num(fix(b.pass1)),
                num(b.problems),
                b.importedFrom ? `${b.importedFrom} (imported, judged by eddy)` : "eddy",
                html`<a href="${runUrl(e.runId)}">${e.runId}</a>`,
                num(usedBy(e.configId))
            ])
        ),
        { id: "benchmark-runs" }
    )}</section>`;
}

/** Draws the leaderboard once ahead of the first look (the viewer's start, after its newest run): every run's rows and their ranks. */
export function warmLeaderboard(store: Store, runs: RunDataCache): void {
    leaderboardPage({ store, runs, url: new URL("http://127.0.0.1/"), params: [] });
}
