import { clip, displayWidth, MESSAGE_WIDTH, wrapText } from "../util/textWidth.js";
import cliProgress from "cli-progress";
import { setStderrLines } from "../util/stderrLines.js";
import type { StudyProgress } from "./runStudy.js";

/** A progress display for a study: live bars on a TTY, plain periodic lines otherwise. */
export interface ProgressDisplay {
    update(p: StudyProgress): void;
    stop(): void;
}

const fmtEta = (s: number | undefined): string =>
    s === undefined || !Number.isFinite(s) ? "?" : s >= 3600 ? `${(s / 3600).toFixed(1)}h` : s >= 60 ? `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, "0")}s` : `${Math.round(s)}s`;

/**
 * The counts a person reads: the whole run's (a resumed run counts from what was stored: 32/300, not
 * 4/272), judged answers without the harness's (truncated, judge_error: shown apart), and no token
 * rate for a backend that decodes nothing.
 */
export function progressCounts(p: StudyProgress) {
    const before = { generated: 0, judged: 0, harness: 0, ...p.before };
    // The whole run's counts when the study says what it plans (a fresh run too: no "0/1" before the first model loads).
    const whole = (p.planned ?? 0) > 0;
    const harness = (whole ? before.harness : 0) + (p.harness ?? 0);
    return {
        generated: whole ? before.generated + p.generated : p.generated,
        total: whole ? Math.max(p.planned!, before.generated + p.total) : p.total,
        judged: (whole ? before.judged : 0) + p.judged - harness,
        toJudge: (whole ? before.judged : 0) + p.toJudge,
        harness,
        rate: p.tokens > 0 || p.tokensPerS > 0 ? `${p.tokensPerS.toFixed(0)} tok/s` : ""
    };
}

/** One plain line describing a snapshot: only the stages that have work, the ETA only once there is a rate. */
export function progressLine(p: StudyProgress): string {
    const c = progressCounts(p);
    const parts: string[] = [];
    if (p.total > 0 || p.cached > 0) parts.push(`generated ${c.generated}/${c.total}${p.cached ? ` (${p.cached} cached)` : ""}${c.rate ? ` · ${c.rate}` : ""}`);
    // Judged answers (src/vocabulary.ts) of the run's planned ones, as the bars, the summary and every report count them.
    if (p.toJudge > 0) parts.push(`judged ${c.judged}/${c.total} passed ${p.passed}${c.harness ? ` (${c.harness} truncated or judge_error)` : ""} · ${p.verdictsPerS.toFixed(1)} verdicts/s`);
    if (p.final) parts.push(`done in ${fmtEta(p.elapsedS)}`);
    else if (p.etaS !== undefined && Number.isFinite(p.etaS)) parts.push(`ETA ${fmtEta(p.etaS)}`);
    if (p.errors) parts.push(`${p.errors} errors`);
    return `[${p.runId}] ${parts.length ? parts.join(" · ") : "nothing left to do"}`;
}

/** Something has happened since the study began: a response or a verdict. */
const started = (p: StudyProgress): boolean => p.generated + p.judged > 0;

/**
 * Plain progress lines for logs (stderr is not a terminal): a line only when something moved since
 * the last one and at most every `everyMs` (default 5 s); none before the first response or verdict;
 * and, when any line was printed or there was work, a last line with the final counts.
 */
export function createLineProgress(write: (line: string) => void, everyMs = 5_000, now: () => number = Date.now): ProgressDisplay {
    let last = now();
    let printed = "";
    let phase = "";
    let done = false;
    return {
        update(p) {
            if (done) return;
            const counts = `${p.generated}/${p.total}/${p.judged}/${p.toJudge}/${p.errors}`;
            if (p.final) {
                done = true;
                if (printed !== "" || started(p)) write(progressLine(p));
                return;
            }
            // While nothing moves, one line per thing the study is doing (validating oracles, loading a model).
            if (p.phase && p.phase !== phase) write(`[${p.runId}] ${p.phase}…`);
            phase = p.phase ?? "";
            if (!started(p) || counts === printed) return;
            const t = now();
            if (t - last < everyMs) return;
            last = t;
            printed = counts;
            write(progressLine(p));
        },
        stop() {
            done = true;
        }
    };
}

/** Columns of a bar (30 leaves room for the counts and rates within 100 columns). */
const BAR = 30;

/**
 * A bar's line, `stage |bar| value/total extra`, with `extra` abbreviated from the end so that the
 * whole line fits `width` (cli-progress would otherwise cut it at the terminal's edge, or let it
 * run past 100 columns on a wide terminal).
 */
export function barExtra(stage: string, value: number, total: number, extra: string, width: number): string {
    const fixed = displayWidth(`${stage} |${"x".repeat(BAR)}| ${value}/${total} `);
    return clip(extra, width - fixed);
}

/**
 * Live bars (cli-progress) when stderr is a TTY; otherwise plain lines (see {@link createLineProgress}),
 * so logs of long studies stay readable. Bars fit 100 columns (or a narrower terminal), count the
 * whole run (a resumed one from what was stored), and say what is happening before the first answer.
 */
export function createProgressDisplay(opts: { tty?: boolean; everyMs?: number } = {}): ProgressDisplay {
    const tty = opts.tty ?? process.stderr.isTTY === true;
    // Logs are read at 100 columns: a long line (many stages, big rates) continues indented.
    if (!tty) return createLineProgress((line) => process.stderr.write(wrapText(line, MESSAGE_WIDTH, "    ") + "\n"), opts.everyMs);
    const width = Math.min(MESSAGE_WIDTH, process.stderr.columns && process.stderr.columns > 40 ? process.stderr.columns : MESSAGE_WIDTH);
    // Bars are made on the first snapshot (a frame drawn before it showed "0/1 … ETA 0s" above the real bars).
    let multi: cliProgress.MultiBar | undefined;
    let gen: cliProgress.SingleBar | undefined;
    let judge: cliProgress.SingleBar | undefined;
    let stopped = false;
    let last: StudyProgress | undefined;
    /**
     * cli-progress draws a bar only when its text changed; after a note is printed above the bars (which moves
     * them) or the terminal echoed "^C" over one, every bar is drawn again, changed or not.
     */
    const redraw = (): void => {
        for (const b of [gen, judge]) if (b) (b as unknown as { lastDrawnString: string | null }).lastDrawnString = null;
    };
    return {
        update(p) {
            if (stopped) return;
            last = p;
            const c = progressCounts(p);
            // Every answer is judged: the judge bar's total is the run's, not the few handed over so far (no "0/1").
            const total = Math.max(1, c.total);
            const judgeTotal = Math.max(total, c.toJudge);
            const judged = Math.max(0, c.judged);
            // Before anything moves, a word of what is happening (validating oracles, loading a model).
            // After loading, until the first answer of this session: what it is doing, not "ETA ?".
            const waiting = p.phase ? `${p.phase}…` : p.generated === 0 && p.total > 0 && !p.final ? ["generating…", p.model].filter(Boolean).join(" · ") : "";
            // The final frame has no ETA: a run that ends with answers left (Ctrl-C) says it stopped.
            const eta = p.final ? (c.generated < total ? "stopped" : "") : `ETA ${fmtEta(p.etaS)}`;
            const genExtra = barExtra("generate", c.generated, total, waiting || [c.rate, p.cached ? `${p.cached} cached` : "", eta, p.model].filter(Boolean).join(" · "), width);
            const judgeExtra = barExtra(
                "judge   ",
                judged,
                judgeTotal,
                [`${p.passed} passed`, c.harness ? `${c.harness} truncated or judge_error` : "", p.errors ? `${p.errors} errors` : "", `${p.verdictsPerS.toFixed(1)} verdicts/s`].filter(Boolean).join(" · "),
                width
            );
            if (!multi) {
                multi = new cliProgress.MultiBar(
                    { stream: process.stderr, clearOnComplete: false, hideCursor: true, format: "{stage} |{bar}| {value}/{total} {extra}", barsize: BAR },
                    cliProgress.Presets.shades_classic
                );
                gen = multi.create(total, c.generated, { stage: "generate", extra: genExtra });
                judge = multi.create(judgeTotal, judged, { stage: "judge   ", extra: judgeExtra });
                // Notes and warnings from now on are printed above the bars, and the bars drawn again below them.
                const bars = multi;
                setStderrLines((text) => {
                    bars.log(text.endsWith("\n") ? text : text + "\n");
                    redraw();
                    bars.update();
                });
                return;
            }
            gen!.setTotal(total);
            gen!.update(c.generated, { stage: "generate", extra: genExtra });
            judge!.setTotal(judgeTotal);
            judge!.update(judged, { stage: "judge   ", extra: judgeExtra });
        },
        stop() {
            // Once: the final frame (what the last snapshot said, never a stale "loading…") stays on the screen, once.
            if (stopped) return;
            stopped = true;
            setStderrLines(undefined);
            if (!multi) return;
            if (last && (last.phase || !last.final)) {
                stopped = false;
                this.update({ ...last, phase: undefined, final: true });
                stopped = true;
            }
            // Drawn whole again: a line written over a bar (a note, the terminal's own "^C") must not stay in the last frame.
            redraw();
            multi.stop();
        }
    };
}
