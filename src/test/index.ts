/**
 * `golem/test`: what tests of Golem, and of code built on it, need. The conformance
 * suites take vitest's `describe`/`it`/`expect` (vitest is an optional peer dependency).
 */
export { describeStoreConformance, type StoreHarness } from './store-conformance.js';
export { describeBlobStorageConformance } from './blob-storage-conformance.js';
export { scriptedModel, ScriptedModel, type ScriptedResponse, type ScriptStep } from './scripted-model.js';
export { describeModelAdapterConformance, type ModelHarness } from './model-adapter-conformance.js';
