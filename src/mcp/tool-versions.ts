/**
 * What a connection remembers of its tools' versions: each tool as it first listed it (what
 * the configured per-tool trust was given for) and as it was before its latest change (what
 * an approval shows next to the tool of now).
 */
import { toolFingerprint, type McpTool } from './tool-action.js';

export class ToolVersions {
  readonly #first = new Map<string, McpTool>();
  readonly #previous = new Map<string, McpTool>();

  /** Notes the list `now` of `server`, read after `before`. */
  update(server: string, before: readonly McpTool[], now: readonly McpTool[]): void {
    for (const tool of now) {
      if (!this.#first.has(tool.name)) this.#first.set(tool.name, tool);
      const old = before.find((t) => t.name === tool.name);
      if (old !== undefined && toolFingerprint(server, old) !== toolFingerprint(server, tool)) this.#previous.set(tool.name, old);
    }
  }

  /** The tool as first listed. */
  first(tool: string): McpTool | undefined {
    return this.#first.get(tool);
  }

  /** The tool as it was before its latest change (undefined when it never changed). */
  previous(tool: string): McpTool | undefined {
    return this.#previous.get(tool);
  }
}
