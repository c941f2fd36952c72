import normalQuantile from "@stdlib/stats-base-dists-normal-quantile";
import { fewestSignificantLosses } from "./compareWithReference.js";

/**
 * Power of a paired comparison with the reference (McNemar on per-instance verdicts), by the normal
 * approximation of Connor (1987) for paired binary data:
 *
 *     n = [ z(1−α/2)·√ψ + z(power)·√(ψ − δ²) ]² / δ²
 *
 * where ψ is the discordance (the share of instances whose verdict differs between reference and file, either
 * way) and δ the drop (losses minus gains, as a share of instances). A drop needs at least as much discordance
 * as itself (ψ ≥ δ: every discordant pair a loss), so ψ is taken as max(ψ, δ). The exact McNemar test also needs
 * at least `fewestSignificantLosses(α)` discordant pairs (6 at α = 0.05), so no drop below that many instances
 * out of n can be found: both bounds apply.
 */
export interface PowerOptions {
    /** Significance level, two-sided (default 0.05). */
    alpha?: number;
    /** Power asked for (default 0.8). */
    power?: number;
}

const z = (p: number) => normalQuantile(p, 0, 1);

/** Instances needed to detect a drop `delta` (a share, 0.02 = 2 points) at discordance `psi`, by the formula above and the exact test's floor. */
export function instancesToDetect(delta: number, psi: number, opts: PowerOptions = {}): number {
    if (!(delta > 0 && delta <= 1)) throw new Error(`drop must be in (0, 1], got ${delta}`);
    const alpha = opts.alpha ?? 0.05;
    const za = z(1 - alpha / 2);
    const zb = z(opts.power ?? 0.8);
    const p = Math.min(1, Math.max(psi, delta));
    const normal = (za * Math.sqrt(p) + zb * Math.sqrt(Math.max(0, p - delta * delta))) ** 2 / (delta * delta);
    const exactFloor = fewestSignificantLosses(alpha) / delta;
    // a hair under an integer is that integer (floating noise), not the next one
    return Math.ceil(Math.max(normal, exactFloor) - 1e-9);
}

/** The smallest drop (a share) `n` instances detect with the given power at discordance `psi`; 1 when none below 100 points can be. */
export function smallestDetectableDrop(n: number, psi: number, opts: PowerOptions = {}): number {
    if (n <= 0) return 1;
    let lo = 0;
    let hi = 1;
    if (instancesToDetect(1, psi, opts) > n) return 1;
    // instancesToDetect falls as the drop grows: bisect for the smallest drop n instances reach
    for (let i = 0; i < 60; i++) {
        const mid = (lo + hi) / 2;
        if (instancesToDetect(mid, psi, opts) <= n) hi = mid;
        else lo = mid;
    }
    return hi;
}

/** What the study could see, as the recommendation states it. */
export interface PowerStatement {
    /** Instances compared (the smallest over the files). */
    instances: number;
    /** Discordance between reference and files: instances whose verdict differs, over instances compared, pooled over the files. */
    discordance: number;
    /** α (two-sided) and the power the figures are for. */
    alpha: number;
    power: number;
    /** The smallest drop in pass rate (points, 0–100) this study could have detected. */
    smallest_detectable_drop_points: number;
    /** Instances (over all templates) that would detect a drop of `target_drop_points`. */
    target_drop_points: number;
    instances_for_target: number;
    /** The statement in one sentence. */
    text: string;
}

/** The power statement for a study: from the pooled discordance of the files against the reference. */
export function powerStatement(perFile: readonly { instances: number; discordant: number }[], opts: PowerOptions & { targetPoints?: number; templates?: number } = {}): PowerStatement {
    const alpha = opts.alpha ?? 0.05;
    const power = opts.power ?? 0.8;
    const target = opts.targetPoints ?? 2;
    const n = perFile.length ? Math.min(...perFile.map((f) => f.instances)) : 0;
    const total = perFile.reduce((a, f) => a + f.instances, 0);
    const psi = total > 0 ? perFile.reduce((a, f) => a + f.discordant, 0) / total : 0;
    const mde = smallestDetectableDrop(n, psi, { alpha, power });
    const need = instancesToDetect(target / 100, psi, { alpha, power });
    const perTemplate = opts.templates && opts.templates > 1 ? ` (about ${Math.ceil(need / opts.templates)} per template: -M ${Math.ceil(need / opts.templates)})` : "";
    const mdeText = mde >= 1 ? "no drop at all (too few instances for an exact McNemar test to reach significance)" : `a drop of ${(mde * 100).toFixed(1)} points or more`;
    return {
        instances: n,
        discordance: psi,
        alpha,
        power,
        smallest_detectable_drop_points: Math.round(mde * 1000) / 10,
        target_drop_points: target,
        instances_for_target: need,
        text:
            `Power: with ${n} instances and a discordance of ${(psi * 100).toFixed(1)}% between reference and files, this study detects ${mdeText} ` +
            `(α = ${alpha}, power ${Math.round(power * 100)}%); detecting a drop of ${target} points needs about ${need} instances${perTemplate}.`
    };
}
