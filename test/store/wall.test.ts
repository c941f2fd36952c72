import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** What only src/store may do: talk SQL, hold the SQLite driver, or reach the store's connection. */
const SQL_MARKERS: [string, RegExp][] = [
    ["prepares a statement", /\.prepare\(/],
    ["runs a pragma", /\.pragma\(/],
    ["opens a transaction", /\.transaction\(/],
    ["reads sqlite_master", /sqlite_master/],
    ["imports better-sqlite3", /(?:from\s*|import\(\s*|require\(\s*)["']better-sqlite3["']/],
    ["reaches the store's connection", /["'][./]*store\/connection\.js["']/],
    ["holds an SQL statement", /\b(?:SELECT\s[^;]*?\sFROM\s|INSERT\s+(?:OR\s+[A-Z]+\s+)?INTO\s|DELETE\s+FROM\s|UPDATE\s+\w+\s+SET\s|CREATE\s+(?:TABLE|INDEX)\s|PRAGMA\s+\w+)/]
];

/** The SQL markers found in a file's text. */
const offences = (text: string): string[] => SQL_MARKERS.filter(([, re]) => re.test(text)).map(([what]) => what);

/** Every TypeScript file under src/, repository-relative. */
const sources = (): string[] =>
    readdirSync(path.join(ROOT, "src"), { recursive: true, encoding: "utf8" })
        .map((f) => `src/${f.split(path.sep).join("/")}`)
        .filter((f) => f.endsWith(".ts"));

describe("the store's wall", () => {
    it("no SQL, no SQLite driver and no store connection outside src/store", () => {
        const outside = sources().filter((f) => !f.startsWith("src/store/"));
        expect(outside.length).toBeGreaterThan(100);
        const found = outside.flatMap((f) => offences(readFileSync(path.join(ROOT, f), "utf8")).map((what) => `${f} ${what}`));
        expect(found).toEqual([]);
    });

    it("the markers find SQL where it is (src/store) and in code that would breach the wall", () => {
        // The same scan over src/store finds its repositories: the markers match real code, not only the samples below.
        const inside = sources().filter((f) => f.startsWith("src/store/"));
        const flagged = inside.filter((f) => offences(readFileSync(path.join(ROOT, f), "utf8")).includes("prepares a statement"));
        expect(flagged).toEqual(expect.arrayContaining(["src/store/Store.ts", "src/store/loops.ts", "src/store/merge.ts"]));
        expect(offences(`const n = store.db.prepare("SELECT COUNT(*) AS n FROM runs").get();`)).toEqual(["prepares a statement", "holds an SQL statement"]);
        expect(offences(`import Database from "better-sqlite3";`)).toEqual(["imports better-sqlite3"]);
        expect(offences(`const { default: D } = await import("better-sqlite3");`)).toEqual(["imports better-sqlite3"]);
        expect(offences(`import { connection } from "../store/connection.js";`)).toEqual(["reaches the store's connection"]);
        expect(offences(`db.transaction(() => drop.run(id))();`)).toEqual(["opens a transaction"]);
        expect(offences("const q = `DELETE FROM generations WHERE id = ?`;")).toEqual(["holds an SQL statement"]);
        expect(offences(`if (db.pragma("user_version", { simple: true }) === 0) return;`)).toEqual(["runs a pragma"]);
        // Names of the package elsewhere (the kit copies its native build) and regular expressions' exec are not SQL.
        expect(offences(`if (pkg === "better-sqlite3" && rel.startsWith("build/")) keep();`)).toEqual([]);
        expect(offences(`const m = /^(\\d+)-/.exec(name);`)).toEqual([]);
    });
});
