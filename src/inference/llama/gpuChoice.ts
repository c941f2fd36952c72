import { GPU_CHOICES, type GpuChoice } from "./types.js";

/** The GPU a teacher-forcing job asks for (the study's --gpu, else what its run recorded), as getLlama takes it: false for the CPU. */
export function forcingGpu(given: unknown, recorded: unknown): false | Exclude<GpuChoice, "cpu"> {
    const g = given ?? recorded;
    return typeof g === "string" && g !== "cpu" && (GPU_CHOICES as readonly string[]).includes(g) ? (g as Exclude<GpuChoice, "cpu">) : false;
}

