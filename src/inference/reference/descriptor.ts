import type { BackendDescriptor } from "../descriptor.js";
import { ReferenceBackend } from "./ReferenceBackend.js";

/** The templates' own model solutions: a self-check of the pipeline (AS = 1 on every template). */
export const referenceDescriptor = {
    name: "reference",
    summary: "the templates' model solutions (a self-check: must score AS = 1)",
    models: "none",
    runsModel: false,
    needsSolutions: true,
    engine: "eddy reference",
    records: ["nothing beyond the templates' oracle hashes"],
    settings: { identity: {}, operational: {} },
    options: [],
    scheduling: () => "none",
    parallelSetting: () => undefined,
    resolveModel: (m) => m,
    missing: () => undefined,
    checkSources: () => {},
    sourceGone: () => undefined,
    readSources: () => ({ parts: {} }),
    modelSources: () => [{ label: "reference" }],
    identity: () => null,
    describe: () => "the templates' model solutions",
    demo: async () => ({ settings: { backend: "reference" }, explains: "The reference backend answers with each oracle's model solution: its row is what a perfect model scores." }),
    cacheIdentity: () => undefined,
    async open(settings, _model, parts) {
        if (!parts.solutions) throw new Error("the reference backend needs a solution source");
        return new ReferenceBackend(parts.solutions, parts.templates ?? [], settings.language);
    }
} as const satisfies BackendDescriptor;
