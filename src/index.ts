/**
 * Golem: a TypeScript runtime for AI workspaces.
 *
 * The root entry: the core and the parts a default workspace is made of, each named in its
 * own `index.ts`. The heavier parts have subpaths of their own: `golem/postgres` (pg),
 * `golem/serve` (hono, ws), `golem/browser` (playwright-core; also here, loaded at launch);
 * test doubles are `golem/test`, conformance suites `golem/test/conformance`.
 */
export * from './core/index.js';
export * from './store/index.js';
export * from './models/index.js';
export * from './prompt/index.js';
export * from './action/index.js';
export * from './protocol/index.js';
export * from './environment/index.js';
export * from './project/index.js';
export * from './agent/index.js';
export * from './browser/index.js';
export * from './ui/index.js';
export { createWorkspace, type CreateWorkspaceOptions, type TopicUsage, type Workspace, type WorkspaceSummary } from './create-workspace.js';
export * from './terminal/index.js';
