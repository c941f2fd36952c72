import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TemplateLibrary } from "../../src/templates/library.js";

/** A minimal valid oracle for a one-argument template with parameters lo, hi. */
export const GOOD_ORACLE = `
def solution(values, *, lo, hi):
    return sum(values[lo:hi + 1])

def tests(*, lo, hi):
    yield ([],), 0

def inputs(rng, *, lo, hi):
    return ([rng.randint(0, 9) for _ in range(hi + 2)],)

def mutant_short(values, *, lo, hi):
    return sum(values[lo:hi])
`;

/** A minimal valid template YAML (id `demo`), to be varied by each malformed case. */
export const GOOD_YAML = `id: demo
function: demo_sum
arity: 1
group: list
subgroups: [summation]
question: Sum positions {{lo}} to {{hi}} of the list.
params:
  lo: {int: {digits: [1, 2]}}
  hi: {int: {digits: [1, 2]}}
constraint: lo <= hi
edge: [[0, 0], [3, 4]]
`;

/** Temporary templates/ and oracles/ folders, pointed to by EDDY_TEMPLATES / EDDY_ORACLES while in use. */
export class TempTemplates {
    readonly root = mkdtempSync(path.join(tmpdir(), "eddy-templates-"));
    readonly templates = path.join(this.root, "templates");
    readonly oracles = path.join(this.root, "oracles");
    /** The folders as the value eddy's loaders take (the environment only reaches CLI processes the tests spawn). */
    readonly library: TemplateLibrary = { templates: this.templates, oracles: this.oracles };
    private saved = { t: process.env.EDDY_TEMPLATES, o: process.env.EDDY_ORACLES };

    constructor() {
        mkdirSync(this.templates);
        mkdirSync(this.oracles);
        process.env.EDDY_TEMPLATES = this.templates;
        process.env.EDDY_ORACLES = this.oracles;
    }

    /** Writes templates/<id>.yaml and, unless `oracle` is null, oracles/<id>.py. */
    write(id: string, yaml: string, oracle: string | null = GOOD_ORACLE): void {
        writeFileSync(path.join(this.templates, `${id}.yaml`), yaml);
        if (oracle !== null) writeFileSync(path.join(this.oracles, `${id}.py`), oracle);
    }

    /** Restores the environment and removes the folders. */
    dispose(): void {
        if (this.saved.t === undefined) delete process.env.EDDY_TEMPLATES;
        else process.env.EDDY_TEMPLATES = this.saved.t;
        if (this.saved.o === undefined) delete process.env.EDDY_ORACLES;
        else process.env.EDDY_ORACLES = this.saved.o;
        rmSync(this.root, { recursive: true, force: true });
    }
}
