/**
 * `golem/test/conformance`: the suites every implementation of a boundary passes
 * (stores, blob storages, model adapters). They use vitest's describe/it/expect.
 */
export { describeStoreConformance, type StoreHarness } from './store-conformance.js';
export { describeBlobStorageConformance } from './blob-storage-conformance.js';
export { describeModelAdapterConformance, type ModelHarness } from './model-adapter-conformance.js';
