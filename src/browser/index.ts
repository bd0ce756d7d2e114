/**
 * `golem/browser` (also exported from `golem`): seed 002's browser executor driving Chromium
 * through playwright-core (an optional peer dependency, loaded when a browser is launched),
 * browser sessions tied to Golem sessions, and the browser part's records.
 */
export { BrowserExecutor, CHROMIUM_ARGS, type ExecutionResult, type ExecutorOptions } from './executor.js';
export { compactSnapshot, type CompactOptions, type PageSnapshot } from './snapshot.js';
export {
  LaunchedBrowser,
  BrowserApi,
  BrowserSession,
  browserInstructions,
  renderResult,
  resultObservation,
  type BrowserTaskOptions,
  type BrowserTaskResult,
} from './browser-session.js';
export { BrowserSessionRecord, BrowserVariable, browserExtension, browserSessions, browserVariables } from './browser-plugin.js';
