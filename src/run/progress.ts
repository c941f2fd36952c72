import cliProgress from "cli-progress";
import type { StudyProgress } from "./runStudy.js";

/** A progress display for a study: live bars on a TTY, plain periodic lines otherwise. */
export interface ProgressDisplay {
    update(p: StudyProgress): void;
    stop(): void;
}

const fmtEta = (s: number | undefined): string =>
    s === undefined || !Number.isFinite(s) ? "?" : s >= 3600 ? `${(s / 3600).toFixed(1)}h` : s >= 60 ? `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, "0")}s` : `${Math.round(s)}s`;

/** One plain line describing a snapshot. */
export function progressLine(p: StudyProgress): string {
    return (
        `[${p.runId}] generated ${p.generated}/${p.total}${p.cached ? ` (${p.cached} cached)` : ""} ` +
        `judged ${p.judged}/${p.toJudge} passed ${p.passed} · ${p.tokensPerS.toFixed(0)} tok/s · ${p.verdictsPerS.toFixed(1)} verdicts/s · ETA ${fmtEta(p.etaS)}` +
        (p.errors ? ` · ${p.errors} errors` : "")
    );
}

/**
 * Live bars (cli-progress) when stderr is a TTY; otherwise one line on stderr every
 * `everyMs`, so logs of long studies stay readable.
 */
export function createProgressDisplay(opts: { tty?: boolean; everyMs?: number } = {}): ProgressDisplay {
    const tty = opts.tty ?? process.stderr.isTTY === true;
    if (!tty) {
        let last = 0;
        const every = opts.everyMs ?? 10_000;
        return {
            update(p) {
                if (p.total + p.toJudge === 0) return; // still planning or loading the model
                const now = Date.now();
                if (now - last < every) return;
                last = now;
                process.stderr.write(progressLine(p) + "\n");
            },
            stop() {}
        };
    }
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
