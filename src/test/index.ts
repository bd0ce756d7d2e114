/**
 * `golem/test`: test doubles for code built on Golem. The conformance suites, which need
 * vitest, are in `golem/test/conformance`.
 */
export { scriptedModel, ScriptedModel, type ScriptedResponse, type ScriptStep } from './scripted-model.js';
export { featureHashingEmbedder, type FeatureHashingOptions } from './feature-hashing-embedder.js';
