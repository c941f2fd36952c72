import { openStore } from "../../src/store/Store.js";
import type { Category } from "../../src/vocabulary.js";

/**
 * A store for the viewer as a workbench (issue #48), written through the store's API (no judge, no model):
 *
 * - run `nb-1` (backend reference, KV cache q8_0): three configurations on two templates with named
 *   parameters (`sum_range(lo, hi)`, `count_char(text, ch)`), 6 instances × 3 rounds each:
 *   `coder-Q8_0` (Q8_0) passes everything; `coder-Q4_0` (Q4_0) fails `sum_range` #2 in every round
 *   (an assertion_error whose detail names the failing call, code marked `B-WRONG`) and `count_char` #4 in
 *   round 1 (a fuzzing_failure): two flips against Q8_0, a tie for the data; `other-model` (t = 0.8) fails
 *   every `count_char` answer and half of `sum_range`'s.
 * - run `he-1`: `coder-Q8_0` (Q8_0) on five imported HumanEval+ problems (`humaneval_0`…), one instance each,
 *   2 rounds, 8 of 10 answers passing: pass@1 0.8.
 */
export const WORKBENCH = {
    run: "nb-1",
    benchmarkRun: "he-1",
    strong: "coder-Q8_0",
    weak: "coder-Q4_0",
    other: "other-model",
    /** The instance lost by Q4_0 in every round, its failing call and its code marker. */
    flip: { template: "sum_range", instance: 2, input: "sum_range(2, 5)", code: "B-WRONG" },
    /** A fuzzing failure's input as the judge shrinks it (eddy_judge/shrink.py), stored beside its verdict. */
    shrunk: { call: "count_char('e', 'e')", expected: "1", actual: "0", from: "count_char('eee', 'e')", tried: 40, steps: 3 }
};

interface Answer {
    template: string;
    instance: number;
    round: number;
    category: Category;
    detail: string;
    code: string;
    shrunk?: typeof WORKBENCH.shrunk;
}

export function buildWorkbenchStore(db: string): void {
    const store = openStore(db);
    try {
        const rounds = 3;
        store.createOrFindRun({ id: WORKBENCH.run, configHash: "wb-nb", config: { templates: "sum_range,count_char", instances: 6, rounds, kvCache: "q8_0" }, eddyVersion: "0.1.0", backend: "reference", seed: 1 }, false);
        store.recordTemplates(WORKBENCH.run, [
            { id: "sum_range", oracleHash: "h", group: "list", subgroups: ["summation"], function: "sum_range" },
            { id: "count_char", oracleHash: "h", group: "string", subgroups: ["counting"], function: "count_char" }
        ]);
        const sumParams = (i: number) => [i, i + 3];
        const charParams = (i: number) => [`text-${i}`, String.fromCharCode(97 + i)];
        store.insertInstances(
            WORKBENCH.run,
            Array.from({ length: 6 }, (_, i) => ({ templateId: "sum_range", index: i, params: sumParams(i), bindings: { lo: i, hi: i + 3 }, question: `Write sum_range(lo, hi) returning the sum of the integers from ${i} to ${i + 3} inclusive.` }))
        );
        store.insertInstances(
            WORKBENCH.run,
            Array.from({ length: 6 }, (_, i) => ({ templateId: "count_char", index: i, params: charParams(i), bindings: { text: `text-${i}`, ch: String.fromCharCode(97 + i) }, question: `Write count_char(s) counting '${String.fromCharCode(97 + i)}' in s.` }))
        );
        const right = { sum_range: "def sum_range(lo, hi):\n    return sum(range(lo, hi + 1))\n", count_char: "def count_char(s, c):\n    return s.count(c)\n" } as Record<string, string>;
        const pass = (template: string, instance: number, round: number): Answer => ({ template, instance, round, category: "passed", detail: "3 fixed tests and 50 random inputs agree", code: right[template]! });
        const answers = (f: (template: string, instance: number, round: number) => Answer): Answer[] =>
            ["sum_range", "count_char"].flatMap((t) => Array.from({ length: 6 }, (_, i) => Array.from({ length: rounds }, (_, r) => f(t, i, r))).flat());
        const configs: [model: string, quantization: string | null, temperature: number, answers: Answer[]][] = [
            [WORKBENCH.strong, "Q8_0", 0, answers(pass)],
            [
                WORKBENCH.weak,
                "Q4_0",
                0,
                answers((t, i, r) => {
                    if (t === "sum_range" && i === 2)
                        return { template: t, instance: i, round: r, category: "assertion_error", detail: `fixed test 1: ${WORKBENCH.flip.input} expected 14, got 9`, code: `def sum_range(lo, hi):\n    return sum(range(lo, hi))  # ${WORKBENCH.flip.code}\n` };
                    if (t === "count_char" && i === 4 && r === 1)
                        return { template: t, instance: i, round: r, category: "fuzzing_failure", detail: "random input 3: count_char('eee', 'e'): model solution gives 3, candidate gives 2", code: "def count_char(s, c):\n    return s.count(c) - (c in s[-1:])\n", shrunk: WORKBENCH.shrunk };
                    return pass(t, i, r);
                })
            ],
            [
                WORKBENCH.other,
                null,
                0.8,
                answers((t, i, r) =>
                    t === "count_char" || (i + r) % 2 === 0 ? { template: t, instance: i, round: r, category: "runtime_error", detail: "NameError: name 'x' is not defined", code: "def f():\n    return x\n" } : pass(t, i, r)
                )
            ]
        ];
        for (const [model, quantization, temperature, list] of configs) write(store, WORKBENCH.run, model, quantization, temperature, list);
        store.setRunStatus(WORKBENCH.run, "complete");

        // The same model on imported HumanEval+ problems.
        const problems = Array.from({ length: 5 }, (_, i) => `humaneval_${i}`);
        store.createOrFindRun({ id: WORKBENCH.benchmarkRun, configHash: "wb-he", config: { templates: problems.join(","), instances: 1, rounds: 2 }, eddyVersion: "0.1.0", backend: "replay", seed: 1 }, false);
        store.recordTemplates(
            WORKBENCH.benchmarkRun,
            problems.map((id) => ({ id, oracleHash: "h", group: "math", subgroups: ["arithmetic"], function: "f" }))
        );
        for (const id of problems) store.insertInstances(WORKBENCH.benchmarkRun, [{ templateId: id, index: 0, params: [], bindings: {}, question: `HumanEval problem ${id}` }]);
        write(
            store,
            WORKBENCH.benchmarkRun,
            WORKBENCH.strong,
            "Q8_0",
            0,
            problems.flatMap((id, p) =>
                [0, 1].map((r): Answer => (p === 0 ? { template: id, instance: 0, round: r, category: "assertion_error", detail: "fixed test 1: f(1) expected 2, got 1", code: "def f(x):\n    return x\n" } : { template: id, instance: 0, round: r, category: "passed", detail: "", code: "def f(x):\n    return x + 1\n" }))
            ),
            "completion"
        );
        store.setRunStatus(WORKBENCH.benchmarkRun, "complete");
    } finally {
        store.close();
    }
}

function write(store: ReturnType<typeof openStore>, runId: string, model: string, quantization: string | null, temperature: number, list: Answer[], wrapper = "default"): void {
    const conf = store.upsertConfiguration({ runId, model, quantization, temperature, wrapper, decoding: { temperature } as never });
    const key = (a: Answer) => ({ configId: conf.id, templateId: a.template, instance: a.instance, round: a.round });
    store.writeBatch({
        generations: list.map((a, n) => ({ ...key(a), seed: n, prompt: JSON.stringify([{ role: "user", content: `question ${a.template} #${a.instance}` }]), response: "```python\n" + a.code + "```\n", code: a.code, stopReason: "eogToken", promptTokens: 10, generatedTokens: 20, ttftMs: 1, genMs: 1 }) as never),
        verdicts: list.map((a) => ({ ...key(a), category: a.category, judgeCategory: a.category, detail: a.detail, ms: 1, shrunk: a.shrunk ? JSON.stringify(a.shrunk) : null })),
        responses: [],
        verdictCache: []
    });
}
