import path from "node:path";
import { packageRoot } from "../util/paths.js";

/**
 * Where questions come from: a folder of templates (`<id>.yaml`) and the folder of their oracles
 * (`<id>.py`). A value handed to whatever loads templates, so two libraries can be used side by side
 * (an importer writes one while eddy's own is loaded); only the CLI reads it from the environment.
 */
export interface TemplateLibrary {
    readonly templates: string;
    readonly oracles: string;
}

/** The templates and oracles shipped with eddy. */
export function builtInLibrary(): TemplateLibrary {
    return libraryAt(packageRoot());
}

/** `<root>/templates` and `<root>/oracles`: eddy's own layout, and what the importers write. */
export function libraryAt(root: string): TemplateLibrary {
    return { templates: path.join(root, "templates"), oracles: path.join(root, "oracles") };
}
