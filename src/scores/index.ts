export type { Outcome } from "../vocabulary.js";
export { passAtK } from "./passAtK.js";
export {
    scoreNeighbourhoods,
    categorise,
    neighbourhoodPassAtK,
    plannedKey,
    CATEGORY_COVERAGE,
    averageVariance,
    isHarness,
    NEIGHBOURHOOD_CATEGORIES,
    CATEGORY_LABELS,
    FAILURE_CATEGORIES,
    type NeighbourhoodScore,
    type NeighbourhoodCategory,
    type InstanceScore,
    type ScoreOptions,
    type PlannedNeighbourhood,
    type HarnessCounts
} from "./neighbourhood.js";
export {
    summariseConfigs,
    summariseGroups,
    summariseTemplates,
    categoryShares,
    configPassAtK,
    REPORTED_VERDICTS,
    type ConfigSummary,
    type GroupSummary,
    type TemplateSummary,
    type CategoryShares
} from "./aggregates.js";
export { RATE_SCORES, instanceContribution, scoresOverInstances, type RateScore } from "./rates.js";
export { findDiscontinuities, medianRate, mostlySolved, isFewerRounds, type Fraction, type Discontinuity, type AnomalousInstance, type FailingResponse } from "./discontinuities.js";
export { findPatterns, tupleFeatures, type PatternFinding } from "./patterns.js";
export { compareConfigurations, pairedComparisons, COMPARED_SCORES, type Comparison, type ComparedScore, type PairRow, type PairedRow, type TemperatureRow, type NormalityRow } from "./compare.js";
