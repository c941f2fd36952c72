import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function files(dir: string, exts: string[]): string[] {
    return readdirSync(dir).flatMap((name) => {
        const p = path.join(dir, name);
        if (statSync(p).isDirectory()) return name === "__pycache__" ? [] : files(p, exts);
        return exts.some((e) => name.endsWith(e)) ? [p] : [];
    });
}

/** Every environment variable read under `dirs` (TypeScript `process.env`, Python `os.environ`). */
function readsIn(dirs: string[]): Set<string> {
    const names = new Set<string>();
    const patterns = [/process\.env\.([A-Z][A-Z0-9_]*)/g, /process\.env\[["']([A-Z][A-Z0-9_]*)["']\]/g, /os\.environ(?:\.get\(|\[)["']([A-Z][A-Z0-9_]*)["']/g, /os\.getenv\(["']([A-Z][A-Z0-9_]*)["']/g];
    for (const f of dirs.flatMap((d) => files(path.join(ROOT, d), [".ts", ".py", ".sh"]))) {
        const text = readFileSync(f, "utf8");
        for (const re of patterns) for (const m of text.matchAll(re)) names.add(m[1]!);
    }
    return names;
}

/** The names in docs/environment.md's environment-variable table (first column, in backticks). */
function documented(): Set<string> {
    const text = readFileSync(path.join(ROOT, "docs/environment.md"), "utf8");
    const table = text.split(/\n\| variable \| purpose \|\n/)[1];
    expect(table, "docs/environment.md has an environment-variable table headed `| variable | purpose |`").toBeDefined();
    const names = new Set<string>();
    for (const line of table!.split("\n")) {
        if (!line.startsWith("|")) break;
        for (const m of line.split("|")[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(m[1]!);
    }
    return names;
}

describe("the environment-variable table (docs/environment.md)", () => {
    it("lists exactly the variables the code reads", () => {
        // eddy itself and its benchmarks must document what they read; tests may read more (fixtures).
        const code = readsIn(["src", "scripts"]);
        const anywhere = readsIn(["src", "scripts", "test"]);
        const doc = documented();
        // Variables of the platform, not eddy's: read to pass through or to detect the machine.
        const platform = new Set(["PATH", "HOME", "TMPDIR", "LANG", "CI", "TERM", "NO_COLOR", "FORCE_COLOR", "COLUMNS", "USER", "CUDA_VISIBLE_DEVICES"]);
        const undocumented = [...code].filter((n) => !doc.has(n) && !platform.has(n)).sort();
        const stale = [...doc].filter((n) => !anywhere.has(n)).sort();
        expect(code.size).toBeGreaterThan(5);
        expect({ undocumented, stale }).toEqual({ undocumented: [], stale: [] });
    });
});
