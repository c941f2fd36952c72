import { existsSync, statSync } from "node:fs";
import { sha256File } from "../util/files.js";
import type { IsolationReport } from "../judge/types.js";
import { planStudy } from "../run/plan.js";
import { builtInLibrary } from "../templates/library.js";
import { oneLine } from "../util/errors.js";
import { eddyVersion } from "../util/paths.js";
import { pythonCommand } from "../judge/workerScript.js";
import { questionsHash, shardPrompts, short } from "./identity.js";
import { judgeRuntime, runtimeDifference } from "./judgeRuntime.js";
import { shardConfig, type WorkerSettings } from "./runShard.js";
import type { ShardJob } from "./shardJob.js";
import { backendDescriptor, DEFAULT_BACKEND } from "../inference/backends.js";

/** Model files hashed by this process, by path, size and mtime: a GGUF of several GB is hashed once, not per shard. */
const hashed = new Map<string, { key: string; sha: string }>();
async function fileSha256(file: string): Promise<string> {
    const st = statSync(file);
    const key = `${st.size}:${st.mtimeMs}`;
    const have = hashed.get(file);
    if (have?.key === key) return have.sha;
    const sha = await sha256File(file);
    hashed.set(file, { key, sha });
    return sha;
}

/** Something on this node that may pass (the judge did not start, a version could not be read): the shard is put back and asked again later, never refused for good. */
export class PassingTrouble extends Error {}

/**
 * Why this node cannot reproduce the shard exactly (and must leave it to other workers), or undefined
 * when it can: the same eddy version, the same template and oracle, the same rendered questions, the
 * same model file, the same judge runtime (Python, and the answer language's runtime) and a judge the
 * study accepts. A reason is about identity only: a failure that may pass is thrown as a PassingTrouble.
 */
export async function refusal(job: ShardJob, w: WorkerSettings, judgeHere: () => Promise<IsolationReport>): Promise<string | undefined> {
    const id = job.identity;
    const mine = eddyVersion();
    if (id.eddyVersion !== mine) return `this worker runs eddy ${mine}, the study eddy ${id.eddyVersion}: results would not be comparable (install eddy ${id.eddyVersion} on this node)`;
    const tid = job.shard.template;
    let prompts: string[];
    let oracleHash: string;
    try {
        const plan = planStudy(shardConfig(job, w), w.library ?? builtInLibrary());
        const t = plan.templates.find((x) => x.id === tid);
        if (!t) return `template ${tid} is not on this node`;
        oracleHash = t.oracleHash;
        prompts = shardPrompts(plan, tid, 0);
    } catch (err) {
        return `the shard's study cannot be planned here: ${oneLine(err)}`;
    }
    if (oracleHash !== id.oracleHash) return `template ${tid}: the study's oracle hash is ${short(id.oracleHash)}, this node's ${short(oracleHash)} (another version of its YAML or oracle)`;
    if (questionsHash(prompts) !== id.questionsHash) return `template ${tid}: this node renders other questions than the study (another template engine or wrapper '${job.shard.wrapperSource}')`;
    // The file standing for the model: the model file, or the file the backend answers from (a replay file).
    const descriptor = backendDescriptor(String(job.study.backend ?? DEFAULT_BACKEND));
    const file = job.shard.modelPath ?? descriptor.modelSources(job.study)[0]?.source;
    if (!file && job.shard.modelName && descriptor.modelIdentity) {
        // A served model: what this node's server (the study's address, or the worker's own) serves under the name now.
        const config = shardConfig(job, w);
        const sha = await descriptor.modelIdentity(config, { label: job.shard.model, name: job.shard.modelName }).catch((err: unknown) => {
            throw new PassingTrouble(`the served model cannot be asked: ${oneLine(err)}`);
        });
        if (sha !== id.modelSha256) return `the server this node asks serves '${job.shard.modelName}' as another model (identity ${short(sha)}, the study's ${short(id.modelSha256)})`;
    } else if (!file) {
        if (id.modelSha256 !== null) return "the shard names a model sha256 but no model file";
    } else {
        if (!existsSync(file)) return `model file ${file} is not on this node`;
        const sha = await fileSha256(file);
        if (sha !== id.modelSha256) return `model file ${file} on this node has sha256 ${short(sha)}, the study's has ${short(id.modelSha256)}: a different file`;
    }
    const language = shardConfig(job, w).language;
    if (id.judgeRuntime) {
        const mine = await judgeRuntime(language).catch((err: unknown) => {
            throw new PassingTrouble(`the judge's runtime cannot be read: ${oneLine(err)}`);
        });
        const d = runtimeDifference(id.judgeRuntime, mine);
        const py = d?.name.startsWith("Python");
        if (d) return `the study's judge runs ${d.name} ${d.want}, this node's ${d.got} (${py ? pythonCommand() : d.name}): verdicts may differ (${d.want === "none" ? `remove ${d.name} from that interpreter` : `install ${d.name} ${d.want} on this node`}${py ? ", or point EDDY_PYTHON at an interpreter that matches" : ""})`;
    }
    const judge = await judgeHere().catch((err: unknown) => {
        throw new PassingTrouble(`the judge cannot start here: ${oneLine(err)}`);
    });
    if (!id.judgeModes.includes(judge.mode)) return `the study needs a sandboxed judge; this node has none (${judge.level})`;
    if (judge.mode === "none" && !w.allowUnsandboxed) return `this node's judge has no sandbox (${judge.level}) and the worker was started without --allow-unsandboxed`;
    return undefined;
}
