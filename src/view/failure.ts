/** What a failing verdict's detail says about the call that failed, when it says it. */
export interface FailingCall {
    /** What failed: the oracle's label ("fixed input", "fuzzing" …). */
    label: string;
    /** The call as the judge wrote it: `f(1, 2)`. */
    input: string;
    expected: string;
    got: string;
}

/**
 * The failing input, expected and actual value out of a verdict detail as the judge writes it
 * (judge/python/eddy_judge/verdicts.py): `<label>: <call> expected <e>, got <a>`, or with a model
 * solution as the reference `<label>: <call>: model solution gives <e>, candidate gives <a>`.
 * Undefined for any other detail (syntax errors, timeouts…): those are shown as written.
 */
export function failingCall(detail: string | null | undefined): FailingCall | undefined {
    if (!detail) return undefined;
    const ref = /^([^:\n]+): (.+?): model solution gives ([\s\S]+?), candidate gives ([\s\S]+)$/.exec(detail);
    if (ref) return { label: ref[1]!, input: ref[2]!, expected: ref[3]!, got: ref[4]! };
    const m = /^([^:\n]+): (.+?) expected ([\s\S]+?), got ([\s\S]+)$/.exec(detail);
    if (m) return { label: m[1]!, input: m[2]!, expected: m[3]!, got: m[4]! };
    return undefined;
}
