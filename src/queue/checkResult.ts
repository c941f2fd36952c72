import { short } from "./identity.js";
import { runtimeDifference } from "./judgeRuntime.js";
import type { JudgeMode, ShardIdentity, ShardResult } from "./shardJob.js";

/** What the coordinator expects of one shard's result. */
export interface ExpectedShard {
    template: string;
    identity: ShardIdentity;
    /** Each instance's prompt, in instance order (see shardPrompts). */
    prompts: string[];
    rounds: number;
}

/**
 * Why a worker's result is not this shard of this study (it is then stored nowhere), or undefined when it
 * is: the identity it proves, and every row — each (instance, round) once, each prompt the study's own
 * question, each answered row judged.
 */
export function resultProblem(e: ExpectedShard, r: ShardResult): string | undefined {
    const want = e.identity;
    const got = r.identity;
    if (got.eddyVersion !== want.eddyVersion) return `it ran eddy ${got.eddyVersion}, the study eddy ${want.eddyVersion}`;
    if (got.modelSha256 !== want.modelSha256 || r.configuration.model_sha256 !== want.modelSha256)
        return `its model file has sha256 ${short(got.modelSha256)}, the study's ${short(want.modelSha256)}`;
    if (got.oracleHash !== want.oracleHash) return `template ${e.template}: its oracle hash is ${short(got.oracleHash)}, the study's ${short(want.oracleHash)}`;
    const rt = want.judgeRuntime ? runtimeDifference(want.judgeRuntime, got.judgeRuntime) : undefined;
    if (rt) return `its judge ran ${rt.name} ${rt.got}, the study's runs ${rt.want}`;
    if (!want.judgeModes.includes(got.isolation.mode as JudgeMode)) return `its judge ran without a sandbox (${got.isolation.level}); the study needs one`;
    const seen = new Set<string>();
    for (const g of r.generations) {
        const where = `generation ${g.template_id}#${g.instance_idx} round ${g.round}`;
        if (g.template_id !== e.template || g.instance_idx >= e.prompts.length || g.round >= e.rounds) return `${where} is not part of this shard`;
        if (seen.has(`${g.instance_idx}|${g.round}`)) return `${where} comes twice`;
        seen.add(`${g.instance_idx}|${g.round}`);
        if (g.prompt_json !== e.prompts[g.instance_idx]) return `${where}: its prompt differs from the study's question`;
        if (!g.missing && !g.verdict) return `${where} has no verdict`;
    }
    if (seen.size !== e.prompts.length * e.rounds) return `it returned ${seen.size} answers, the shard has ${e.prompts.length * e.rounds}`;
    if (got.questionsHash !== want.questionsHash) return `template ${e.template}: its questions differ from the study's`;
    return undefined;
}
