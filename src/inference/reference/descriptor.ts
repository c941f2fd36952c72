import type { BackendDescriptor } from "../descriptor.js";
import { ReferenceBackend } from "./ReferenceBackend.js";

/** The templates' own model solutions: a self-check of the pipeline (AS = 1 on every template). */
export const referenceDescriptor: BackendDescriptor = {
    name: "reference",
    decodes: false,
    needsSolutions: true,
    needsReplayFile: false,
    engine: "eddy reference",
    missing: () => undefined,
    models: () => [{ label: "reference" }],
    identity: () => null,
    async open(settings, _model, parts) {
        if (!parts.solutions) throw new Error("the reference backend needs a solution source");
        return new ReferenceBackend(parts.solutions, parts.templates ?? [], settings.language ?? "python");
    }
};
