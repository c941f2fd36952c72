import { existsSync } from "node:fs";
import path from "node:path";
import { builtInLibrary, type TemplateLibrary } from "../templates/library.js";

/**
 * The template library a command uses: eddy's own, or the folders `EDDY_TEMPLATES` and
 * `EDDY_ORACLES` name. The only place the environment chooses templates; everything below the CLI
 * is handed the value. `EDDY_TEMPLATES` alone takes the `oracles` folder beside it when there is one
 * (what `eddy import` writes: <out>/templates and <out>/oracles).
 */
export function templateLibrary(): TemplateLibrary {
    const own = builtInLibrary();
    const templates = process.env.EDDY_TEMPLATES;
    const beside = templates ? path.join(path.dirname(path.resolve(templates)), "oracles") : undefined;
    const oracles = process.env.EDDY_ORACLES ?? (beside && existsSync(beside) ? beside : own.oracles);
    return { templates: templates ?? own.templates, oracles };
}
