import path from "node:path";
import { fix } from "../../report/format.js";
import type { QuantFileReport, QuantReport } from "../study/types.js";

/** Bytes as MiB with one decimal (two below 10 MiB), or "–". */
export function mib(bytes: number | null): string {
    return bytes == null ? "–" : `${(bytes / 1048576).toFixed(bytes < 10 * 1048576 ? 2 : 1)} MiB`;
}

/** A divergence: fixed decimals, or 3 significant digits when tiny (Q8_0 drift is often below 1e-4). */
export function kl(v: number | null): string {
    if (v == null || Number.isNaN(v)) return "–";
    return v !== 0 && Math.abs(v) < 1e-3 ? v.toExponential(2) : fix(v, 4);
}

/** The label of a configuration in tables and charts: quantisation type, else file name; `· KV <type>` on the KV-cache axis. */
export function fileLabel(f: QuantFileReport): string {
    return (f.quantization && f.quantization !== "unknown" ? f.quantization : path.basename(f.file)) + (f.kv_cache ? ` · KV ${f.kv_cache}` : "");
}

/** Points for the quality-versus-cost chart: x = file size (MiB), y = a quality measure; one per configuration. */
export function qualityPoints(r: QuantReport, quality: (f: QuantFileReport) => number | null) {
    return r.files.map((f) => ({ id: f.model, label: fileLabel(f) + (f.reference ? " (reference)" : ""), cost: f.size_bytes / 1048576, quality: quality(f) ?? NaN }));
}
