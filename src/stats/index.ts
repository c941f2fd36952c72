export { averageRanks } from "./ranks.js";
export { instanceRateInterval, wilsonInterval, type Interval } from "./wilson.js";
export { bootstrapInterval, bootstrapMeanInterval, quantileSorted, type BootstrapOptions } from "./bootstrap.js";
export { cliffsDelta, deltaMagnitude, type CliffsDelta, type Magnitude } from "./cliffsDelta.js";
export { exactMcNemar, exactMcNemarPaired, type McNemarResult } from "./mcnemar.js";
export { mannWhitneyU, exactUDistribution, type MannWhitneyResult } from "./mannWhitney.js";
export { shapiroWilk, type ShapiroWilkResult } from "./shapiroWilk.js";
