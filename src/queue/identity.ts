import { createHash } from "node:crypto";
import { renderMessages } from "../prompts/PromptWrapper.js";
import type { StudyPlan } from "../run/plan.js";

/**
 * Each instance's prompt for one template and wrapper of a plan, in instance order, exactly as a generation
 * stores it (prompt_json: the wrapper's messages around the question).
 */
export function shardPrompts(plan: StudyPlan, templateId: string, wrapperIndex: number): string[] {
    const wrapper = plan.wrappers[wrapperIndex]!.wrapper;
    return (plan.instances.get(templateId) ?? []).map((i) => JSON.stringify(renderMessages(wrapper, i.question)));
}

/** The hash of a shard's questions as the model is asked them (see shardPrompts). */
export function questionsHash(prompts: string[]): string {
    return createHash("sha256").update(JSON.stringify(prompts)).digest("hex");
}

/** A hash shortened for a message. */
export const short = (h: string | null): string => (h === null ? "none" : `${h.slice(0, 12)}…`);
