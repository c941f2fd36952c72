import cliProgress from "cli-progress";
import type { StudyProgress } from "./runStudy.js";

/** A progress display for a study: live bars on a TTY, plain periodic lines otherwise. */
export interface ProgressDisplay {
    update(p: StudyProgress): void;
    stop(): void;
}

const fmtEta = (s: number | undefined): string =>
    s === undefined || !Number.isFinite(s) ? "?" : s >= 3600 ? `${(s / 3600).toFixed(1)}h` : s >= 60 ? `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, "0")}s` : `${Math.round(s)}s`;

/** One plain line describing a snapshot: only the stages that have work, the ETA only once there is a rate. */
export function progressLine(p: StudyProgress): string {
    const parts: string[] = [];
    if (p.total > 0 || p.cached > 0) parts.push(`generated ${p.generated}/${p.total}${p.cached ? ` (${p.cached} cached)` : ""} · ${p.tokensPerS.toFixed(0)} tok/s`);
    if (p.toJudge > 0) parts.push(`judged ${p.judged}/${p.toJudge} passed ${p.passed} · ${p.verdictsPerS.toFixed(1)} verdicts/s`);
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

/**
 * Live bars (cli-progress) when stderr is a TTY; otherwise plain lines (see {@link createLineProgress}),
 * so logs of long studies stay readable.
 */
export function createProgressDisplay(opts: { tty?: boolean; everyMs?: number } = {}): ProgressDisplay {
    const tty = opts.tty ?? process.stderr.isTTY === true;
    if (!tty) return createLineProgress((line) => process.stderr.write(line + "\n"), opts.everyMs);
    const multi = new cliProgress.MultiBar(
        {
            stream: process.stderr,
            clearOnComplete: false,
            hideCursor: true,
            format: "{stage} |{bar}| {value}/{total} {extra}",
            barsize: 30
        },
        cliProgress.Presets.shades_classic
    );
    const gen = multi.create(1, 0, { stage: "generate", extra: "" });
    const judge = multi.create(1, 0, { stage: "judge   ", extra: "" });
    return {
        update(p) {
            gen.setTotal(Math.max(1, p.total));
            gen.update(p.generated, { stage: "generate", extra: `${p.tokensPerS.toFixed(0)} tok/s${p.cached ? ` · ${p.cached} cached` : ""} · ${p.model} · ETA ${fmtEta(p.etaS)}` });
            judge.setTotal(Math.max(1, p.toJudge));
            judge.update(p.judged, { stage: "judge   ", extra: `${p.verdictsPerS.toFixed(1)} verdicts/s · ${p.passed} passed${p.errors ? ` · ${p.errors} errors` : ""}` });
        },
        stop() {
            multi.stop();
        }
    };
}
