/** A file placed by cost (lower is better) and quality (higher is better). */
export interface ParetoPoint {
    /** Identifier of the point (a file path). */
    id: string;
    /** Cost: lower is better (file size). */
    cost: number;
    /** Quality: higher is better. */
    quality: number;
}

/**
 * The ids on the Pareto front: no other point is at most as costly and at least as good
 * while strictly better on one of the two. Points with a NaN coordinate are never on it.
 */
export function paretoFront(points: readonly ParetoPoint[]): Set<string> {
    const ok = points.filter((p) => Number.isFinite(p.cost) && Number.isFinite(p.quality));
    const front = new Set<string>();
    for (const p of ok) {
        const dominated = ok.some((q) => q !== p && q.cost <= p.cost && q.quality >= p.quality && (q.cost < p.cost || q.quality > p.quality));
        if (!dominated) front.add(p.id);
    }
    return front;
}

/** Options of {@link textScatter}. */
export interface TextScatterOptions {
    /** Name of the x axis (cost). */
    xLabel: string;
    /** Name of the y axis (quality). */
    yLabel: string;
    /** Plot columns (default 48). */
    width?: number;
    /** Plot rows (default 10). */
    height?: number;
    /** Formats axis ends (default: 3 significant digits). */
    formatX?: (v: number) => string;
    /** Formats the y axis ends. */
    formatY?: (v: number) => string;
}

/**
 * A compact terminal scatter plot: each point drawn as the first letter of its mark
 * (`*` on the Pareto front, `o` off it) with a legend line per point underneath.
 * Hand-written: terminal plotting packages draw line charts, not labelled scatter plots.
 */
export function textScatter(points: readonly (ParetoPoint & { label: string })[], opts: TextScatterOptions): string {
    const width = opts.width ?? 48;
    const height = opts.height ?? 10;
    const fx = opts.formatX ?? ((v: number) => v.toPrecision(3));
    const fy = opts.formatY ?? ((v: number) => v.toPrecision(3));
    const ok = points.filter((p) => Number.isFinite(p.cost) && Number.isFinite(p.quality));
    if (ok.length === 0) return `(no points to plot: ${opts.yLabel} vs ${opts.xLabel})`;
    const front = paretoFront(ok);
    const xs = ok.map((p) => p.cost);
    const ys = ok.map((p) => p.quality);
    let [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    if (x0 === x1) {
        x0 -= 0.5 * Math.abs(x0 || 1);
        x1 += 0.5 * Math.abs(x1 || 1);
    }
    if (y0 === y1) {
        y0 -= 0.05 * Math.abs(y0 || 1);
        y1 += 0.05 * Math.abs(y1 || 1);
    }
    const grid = Array.from({ length: height }, () => Array<string>(width).fill(" "));
    const marks: string[] = [];
    ok.forEach((p, i) => {
        const col = Math.round(((p.cost - x0) / (x1 - x0)) * (width - 1));
        const row = height - 1 - Math.round(((p.quality - y0) / (y1 - y0)) * (height - 1));
        const mark = String.fromCharCode(65 + (i % 26));
        const cell = grid[row]!;
        cell[col] = cell[col] === " " ? mark : "#";
        marks.push(`  ${mark} ${front.has(p.id) ? "*" : " "} ${p.label}  (${opts.xLabel} ${fx(p.cost)}, ${opts.yLabel} ${fy(p.quality)})`);
    });
    const yw = Math.max(fy(y0).length, fy(y1).length);
    const lines = grid.map((r, i) => `${(i === 0 ? fy(y1) : i === height - 1 ? fy(y0) : "").padStart(yw)} |${r.join("")}`);
    lines.unshift(`${" ".repeat(yw)}  ${opts.yLabel} ↑`);
    lines.push(`${" ".repeat(yw)} +${"-".repeat(width)}`);
    const left = fx(x0);
    const right = fx(x1);
    lines.push(`${" ".repeat(yw)}  ${left}${" ".repeat(Math.max(1, width - left.length - right.length))}${right}  → ${opts.xLabel}`);
    lines.push(...marks, "  (* on the Pareto front: nothing cheaper is as good; # where points overlap)");
    return lines.join("\n");
}
