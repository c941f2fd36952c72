/**
 * Runs `fn` with eddy's template and oracle folders pointed at `templates` and `oracles`
 * (the loader reads EDDY_TEMPLATES / EDDY_ORACLES), restoring them afterwards.
 */
export async function withTemplateFolders<T>(templates: string, oracles: string, fn: () => Promise<T>): Promise<T> {
    const saved = { t: process.env.EDDY_TEMPLATES, o: process.env.EDDY_ORACLES };
    process.env.EDDY_TEMPLATES = templates;
    process.env.EDDY_ORACLES = oracles;
    try {
        return await fn();
    } finally {
        restore("EDDY_TEMPLATES", saved.t);
        restore("EDDY_ORACLES", saved.o);
    }
}

function restore(name: string, value: string | undefined): void {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
}
