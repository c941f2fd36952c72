import { describe, expect, it } from "vitest";
import { environmentChange, environmentHash, environmentIdentity, environmentShort, packageList, parsePackageList, recordedEnvironment } from "../../src/judge/environment.js";
import type { JudgeEnvironment } from "../../src/judge/types.js";
import { runtimeDifference } from "../../src/queue/judgeRuntime.js";

/** The judge's Python environment (issue #44): what of it decides verdicts, and how two are told apart. */

const debian: JudgeEnvironment = {
    executable: "/usr/bin/python3.11",
    version: "3.11.2",
    implementation: "cpython",
    sitePackages: ["/usr/lib/python3/dist-packages"],
    packages: { numpy: "1.24.2", PyYAML: "6.0", six: "1.16.0" }
};
const other = (over: Partial<JudgeEnvironment>): JudgeEnvironment => ({ ...debian, ...over });

describe("the judge's Python environment", () => {
    it("its identity is the version, the implementation and every package with its version, never the interpreter's path", () => {
        expect(environmentIdentity(debian)).toEqual({ python: "3.11.2", "python-implementation": "cpython", "python-packages": "numpy 1.24.2, PyYAML 6.0, six 1.16.0" });
        const elsewhere = other({ executable: "/opt/python/bin/python3.11", sitePackages: ["/opt/python/lib/python3.11/site-packages"] });
        expect(environmentIdentity(elsewhere)).toEqual(environmentIdentity(debian));
        expect(environmentHash(elsewhere)).toBe(environmentHash(debian));
        expect(environmentIdentity(other({ packages: {} }))["python-packages"]).toBe("none");
        expect([...parsePackageList(packageList(debian.packages))]).toEqual([["numpy", "1.24.2"], ["PyYAML", "6.0"], ["six", "1.16.0"]]);
        expect(parsePackageList("none").size).toBe(0);
    });

    it("a queued shard's identity differs when the judges' packages differ, and the difference names the package, either way", () => {
        const id = environmentIdentity(debian);
        const cases: [JudgeEnvironment, { name: string; want: string; got: string }][] = [
            [other({ packages: { ...debian.packages, numpy: "2.4.6" } }), { name: "Python package numpy", want: "1.24.2", got: "2.4.6" }],
            [other({ packages: { PyYAML: "6.0", six: "1.16.0" } }), { name: "Python package numpy", want: "1.24.2", got: "none" }],
            [other({ packages: { ...debian.packages, scipy: "1.10.1" } }), { name: "Python package scipy", want: "none", got: "1.10.1" }],
            [other({ implementation: "pypy" }), { name: "Python implementation", want: "cpython", got: "pypy" }],
            [other({ version: "3.12.1" }), { name: "Python", want: "3.11.2", got: "3.12.1" }]
        ];
        for (const [env, difference] of cases) {
            expect(environmentIdentity(env)).not.toEqual(id);
            expect(environmentHash(env)).not.toBe(environmentHash(debian));
            expect(runtimeDifference(id, environmentIdentity(env))).toEqual(difference);
        }
        expect(runtimeDifference(id, environmentIdentity(other({ executable: "/elsewhere/python3" })))).toBeUndefined();
        // Another answer language's runtime stays part of it.
        expect(runtimeDifference({ ...id, ruby: "3.1.2" }, { ...id, ruby: "3.2.0" })).toEqual({ name: "ruby", want: "3.1.2", got: "3.2.0" });
        // A study recorded before the environment was (only `python`) asks for the version alone.
        expect(runtimeDifference({ python: "3.11.2" }, id)).toBeUndefined();
        // A node that cannot say its packages does not prove them.
        expect(runtimeDifference(id, { python: "3.11.2", "python-implementation": "cpython" })).toEqual({ name: "Python packages", want: id["python-packages"], got: "none" });
    });

    it("what a run recorded is read back, and a change between sessions is said in words", () => {
        expect(recordedEnvironment({ level: "bwrap", python: debian })).toEqual(debian);
        expect(recordedEnvironment({ level: "bwrap" })).toBeUndefined();
        expect(recordedEnvironment({ python: { version: "3.11.2" } })).toBeUndefined();
        expect(recordedEnvironment(null)).toBeUndefined();
        expect(environmentShort(debian)).toBe("CPython 3.11.2, numpy 1.24.2");
        expect(environmentShort(other({ packages: {} }))).toBe("CPython 3.11.2, no numpy");
        expect(environmentChange(debian, other({ executable: "/elsewhere" }))).toBeUndefined();
        expect(environmentChange(debian, other({ packages: { PyYAML: "6.0", six: "1.16.0" } }))).toBe("numpy 1.24.2, now none");
        expect(environmentChange(debian, other({ version: "3.11.7" }))).toBe("CPython 3.11.2, now CPython 3.11.7");
    });
});
