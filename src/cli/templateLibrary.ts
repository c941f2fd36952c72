import { builtInLibrary, type TemplateLibrary } from "../templates/library.js";

/**
 * The template library a command uses: eddy's own, or the folders `EDDY_TEMPLATES` and
 * `EDDY_ORACLES` name. The only place the environment chooses templates; everything below the CLI
 * is handed the value.
 */
export function templateLibrary(): TemplateLibrary {
    const own = builtInLibrary();
    return { templates: process.env.EDDY_TEMPLATES ?? own.templates, oracles: process.env.EDDY_ORACLES ?? own.oracles };
}
