/**
 * `golem serve` as a library (`golem/serve`): the HTTP and WebSocket host of a workspace, its
 * page's API, the browser UI adapter, and the streams clients read (AG-UI run events, UI
 * instance snapshots and RFC 6902 deltas); and `createGolemHandler`, the same API, AG-UI, AI
 * SDK and MCP routes as a fetch handler for a server of your own. Needs hono (the handler),
 * and @hono/node-server and ws for `serve` (optional peer dependencies, loaded when used).
 *
 * @example
 * import { createWorkspace } from 'golem'
 * import { serve } from 'golem/serve'
 * const server = await serve(await createWorkspace({ dir: '.golem' }), { port: 0 })
 */
export { serve, type GolemServer, type ServeOptions } from './server.js';
export { createGolemHandler, type GolemHandler, type GolemHandlerOptions } from './handler.js';
export type { CorsOptions, CorsOrigins } from './cors.js';
export { BrowserAdapter } from './browser-adapter.js';
export type { ServeAgentOptions } from './host.js';
export type * from './api-types.js';
export { UIStream, type UIState, type UIStreamEvent } from './ui-stream.js';
export { RunEventTranslator, type RunEvent } from './run-events.js';
export { applyUiAction, type UIActionEvent, type UIActionMessage, type UIActionResult } from './ui-actions.js';
