import { createHash } from "node:crypto";
import type { Store } from "../../store/Store.js";
import type { StoredInstance } from "../../store/types.js";
import { measureStrength, type DirectCheck } from "../../templates/strength/measure.js";
import type { Template } from "../../templates/types.js";
import { unlessStopped } from "../../util/abort.js";
import { EddyError, oneLine } from "../../util/errors.js";

/** What one template's validation found; cached in the store by {@link validationKey}. */
interface OracleCheck {
    solutionFailures: { index: number; params: unknown; detail: string }[];
}

/** The cache key: the oracle's hash (YAML and oracle bytes) and exactly the instances the run asks. */
export function validationKey(t: Template, instances: readonly StoredInstance[]): string {
    return createHash("sha256").update(t.oracleHash).update(JSON.stringify(instances.map((i) => i.bindings))).digest("hex");
}

/**
 * SPEC §2: "before any model is judged, the model solution must pass its own oracle on every
 * instance". Each selected template's model solution is checked on the run's own instances (the
 * oracle is trusted code: one plain Python process per template, as `eddy templates validate`'s
 * quick form, without its coverage tracing and mutants, which that command measures), once per
 * oracle hash and instance set: the result is cached in the store, so a resume or a second run on
 * the same instances does not pay again. A failing oracle stops the study with one line before
 * anything is judged.
 */
export async function validateOracles(
    store: Store,
    templates: readonly Template[],
    instances: ReadonlyMap<string, readonly StoredInstance[]>,
    opts: { concurrency: number; log: (line: string) => void; signal?: AbortSignal }
): Promise<void> {
    const todo = templates.map((t) => ({ t, inst: instances.get(t.id) ?? [] })).filter((x) => x.inst.length > 0);
    const failures: string[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
        while (next < todo.length && !opts.signal?.aborted) {
            const { t, inst } = todo[next++]!;
            const key = validationKey(t, inst);
            let cached = store.oracleValidation(key);
            if (!cached) {
                const check = await checkOne(t, inst);
                if (opts.signal?.aborted) return;
                cached = { ok: check.solutionFailures.length === 0, result: check };
                store.recordOracleValidation({ key, templateId: t.id, oracleHash: t.oracleHash, instances: inst.length, ok: cached.ok, result: check });
            }
            if (!cached.ok) {
                const f = (cached.result as OracleCheck).solutionFailures[0]!;
                failures.push(`${t.id} (its model solution fails on instance #${f.index} ${JSON.stringify(f.params)}: ${f.detail})`);
            }
        }
    };
    // Ctrl-C: the study stops at once; a check still running finishes on its own, unrecorded.
    await unlessStopped(Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency, todo.length)) }, worker)), opts.signal);
    if (opts.signal?.aborted) return;
    if (failures.length)
        throw new EddyError(
            `oracle validation failed before judging, nothing was judged: ${failures.join("; ")}; fix the oracle or leave the template out (eddy templates validate -t <id> shows every instance)`
        );
}

async function checkOne(t: Template, instances: readonly StoredInstance[]): Promise<OracleCheck> {
    let check: DirectCheck;
    try {
        const measured = await measureStrength(t, [...instances], { check: true, solutionOnly: true });
        check = measured.check ?? { solutionFailures: [], mutants: [] };
    } catch (err) {
        // An oracle that does not load or run is a failed validation of every instance.
        return { solutionFailures: [{ index: instances[0]!.index, params: instances[0]!.params, detail: oneLine(err).replace(`${t.id}: `, "") }] };
    }
    return { solutionFailures: check.solutionFailures.map((f) => ({ index: instances[f.index]!.index, params: instances[f.index]!.params, detail: f.detail })) };
}
