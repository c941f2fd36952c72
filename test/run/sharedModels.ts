import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The folder of real small models (stories260K*.gguf): EDDY_TEST_MODELS when set (CI sets it), else
 * ../shared/models beside the checkout, so the real-model tests run in `npm test` whenever that
 * folder is there, not only when the variable is set by hand. Undefined when neither exists.
 */
export function sharedModelsDir(): string | undefined {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
    const candidates = [process.env.EDDY_TEST_MODELS, path.resolve(root, "../shared/models")].filter((d): d is string => !!d);
    return candidates.find((d) => existsSync(path.join(d, "stories260K.gguf")));
}
