/**
 * An MCP tool as a Golem action: named `<server>__<tool>`, its input checked against the
 * tool's JSON Schema before the call, its trust from the configuration (supervised unless
 * said otherwise), its annotations shown in the approval prompt and setting the risk and
 * whether a call may be repeated, and its grants bound to a fingerprint of the tool, so a
 * tool that changes after "always" asks again. A per-tool "autonomous" is bound the same way,
 * to the tool as the connection first listed it; each call lists the tools again first, so a
 * change the server has not yet announced is caught too; and the approval then shows what
 * changed (`details.changed`: the description and input schema before and now).
 */
import { createHash } from 'node:crypto';
import { canonicalJson, defineJsonSchemaAction, type Action, type ApprovalDescription, type Trust } from '../action/action.js';
import type { Risk } from '../action/approval.js';
import type { JsonObject } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';
import type { McpServerConfig } from './config.js';

/** What a tool list gives of one tool (the MCP `Tool` type, as far as Golem reads it). */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject;
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

/** A tool call's result as Golem keeps it: its parts, with images and binary resources stored as blobs. */
export interface McpToolOutput {
  server: string;
  tool: string;
  isError: boolean;
  /** The parts, in order; text as text, an image as its blob's sha256. */
  content: McpPart[];
  structuredContent?: JsonObject;
}

export type McpPart =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; mediaType: string; sha256: string; size: number }
  | { type: 'resource'; uri: string; mediaType?: string; text?: string; sha256?: string; size?: number }
  | { type: 'resource_link'; uri: string; name?: string; description?: string; mediaType?: string };

/** What runs a call on the server (the connection, which reconnects and applies the time limit). */
export type CallTool = (tool: string, input: JsonObject, signal: AbortSignal | undefined) => Promise<McpToolOutput>;

/** What a connection knows of a tool's versions, by the tool's name (each undefined when it knows none). */
export interface ToolHistory {
  /** The tool as the server lists it now. */
  current(tool: string): McpTool | undefined;
  /** The tool as the connection first listed it: what the configured per-tool trust was given for. */
  first(tool: string): McpTool | undefined;
  /** The tool as it was before its latest change. */
  previous(tool: string): McpTool | undefined;
  /** Lists the server's tools again (before each call is decided). */
  recheck(signal?: AbortSignal): Promise<void>;
}

/** A tool's change, as an approval shows it: its description and input schema before, and now. */
export interface McpToolChange {
  before: { description: string; inputSchema: JsonObject };
  now: { description: string; inputSchema: JsonObject };
}

/** No history: an action that knows only the tool it was made from. */
const NO_HISTORY: ToolHistory = { current: () => undefined, first: () => undefined, previous: () => undefined, recheck: async () => undefined };

/** The sha256 of bytes a connection without blob storage did not keep. */
export const NOT_KEPT = '(not kept)';

const NAME_PART = /[^a-zA-Z0-9_-]/g;
const HAS_OTHER = /[^a-zA-Z0-9_-]/;

/** The action name of `tool` on `server`: `<server>__<tool>`, other characters as `_`, cut to 64 with a hash to stay unique. */
export function actionNameOf(server: string, tool: string): string {
  const name = `${server}__${tool.replace(NAME_PART, '_')}`;
  if (name.length <= 64 && !HAS_OTHER.test(tool)) return name;
  const hash = createHash('sha256').update(tool).digest('hex').slice(0, 8);
  return `${name.slice(0, 55)}_${hash}`;
}

/** A fingerprint of what the user agreed to: the server, the tool's name, description, input schema and annotations. */
export function toolFingerprint(server: string, tool: McpTool): string {
  return createHash('sha256')
    .update(canonicalJson({ server, name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema, annotations: tool.annotations ?? {} }))
    .digest('hex')
    .slice(0, 32);
}

/**
 * The trust of a tool: the config's per-tool mode, else the server's default, else supervised.
 * With `changed`, a per-tool "autonomous" was given for another version of the tool, and the
 * tool is supervised (a server's default covers whatever tools it has, changed or not).
 */
export function toolTrust(config: McpServerConfig, tool: string, changed = false): Trust {
  const trust = config.trust;
  if (trust?.tools !== undefined && Object.hasOwn(trust.tools, tool)) {
    const mode = trust.tools[tool] as Trust;
    return changed && mode === 'autonomous' ? 'supervised' : mode;
  }
  return trust?.default ?? 'supervised';
}

/** The risk the annotations suggest (hints from the server, not guarantees): read-only low, destructive high. */
export function toolRisk(tool: McpTool): Risk {
  const a = tool.annotations ?? {};
  if (a.readOnlyHint === true) return 'low';
  // The spec's default for a tool that is not read-only is destructive.
  return a.destructiveHint === false ? 'medium' : 'high';
}

/** The annotations in words, for the approval prompt and the model. */
export function describeHints(tool: McpTool): string {
  const a = tool.annotations ?? {};
  const words: string[] = [];
  if (a.readOnlyHint === true) words.push('read-only');
  else words.push(a.destructiveHint === false ? 'not destructive' : 'may be destructive');
  if (a.idempotentHint === true && a.readOnlyHint !== true) words.push('idempotent');
  if (a.openWorldHint === true) words.push('reaches outside systems');
  return words.join(', ');
}

/** The actions of one server's tools; MCP_TOOL_NAME_CLASH when two would share a name, MCP_TOOL_INVALID for a tool that cannot be offered. */
export function toolActions(
  server: string,
  config: McpServerConfig,
  tools: readonly McpTool[],
  call: CallTool,
  /** The tool's versions (an action made earlier is asked about the tool of today). */
  history: ToolHistory = NO_HISTORY,
): Action<JsonObject, McpToolOutput>[] {
  const byName = new Map<string, string>();
  return tools.map((tool) => {
    const name = actionNameOf(server, tool.name);
    const other = byName.get(name);
    if (other !== undefined) {
      throw new GolemError('MCP_TOOL_NAME_CLASH', `MCP server "${server}" has tools "${other}" and "${tool.name}" that would both be the action ${name}`, {
        details: { server, tools: [other, tool.name], action: name },
      });
    }
    byName.set(name, tool.name);
    return toolAction(server, config, tool, name, call, history);
  });
}

function toolAction(
  server: string,
  config: McpServerConfig,
  tool: McpTool,
  name: string,
  call: CallTool,
  history: ToolHistory,
): Action<JsonObject, McpToolOutput> {
  const now = () => history.current(tool.name) ?? tool;
  const hints = describeHints(tool);
  const summary = (tool.description ?? tool.title ?? tool.annotations?.title ?? tool.name).trim();
  const a = tool.annotations ?? {};
  try {
    return defineJsonSchemaAction<McpToolOutput>({
      name,
      description: `${summary}\n(Tool "${tool.name}" of the MCP server "${server}"; ${hints}.)`,
      inputSchema: tool.inputSchema,
      trust: () => toolTrust(config, tool.name, toolFingerprint(server, history.first(tool.name) ?? tool) !== toolFingerprint(server, now())),
      recheck: (signal) => history.recheck(signal),
      // Running it again does no harm if the server says it only reads or is idempotent.
      repeatable: a.readOnlyHint === true || a.idempotentHint === true,
      run: (input, ctx) => call(tool.name, input, ctx.signal),
      describe: (input) => describeCall(server, now(), input, history.previous(tool.name)),
      // "Always" and "session" cover this tool as the user saw it: a changed tool asks again, even through an action made before the change.
      grantKey: () => `mcp:${toolFingerprint(server, now())}`,
      render: renderOutput,
      media: (output) => output.content.flatMap((p) => (p.type === 'image' && p.sha256 !== NOT_KEPT ? [{ sha256: p.sha256, mediaType: p.mediaType }] : [])),
      failed: (output) => (output.isError ? textOf(output) || 'the tool reported an error' : undefined),
    });
  } catch (cause) {
    throw new GolemError(
      'MCP_TOOL_INVALID',
      `MCP server "${server}" lists tool "${tool.name}" with an input schema that cannot be used: ${(cause as Error).message}`,
      {
        cause,
        details: { server, tool: tool.name },
      },
    );
  }
}

/** A call put to the user: the tool as it is now, and, when it changed, what it was before. */
function describeCall(server: string, tool: McpTool, input: JsonObject, previous: McpTool | undefined): ApprovalDescription {
  const hints = describeHints(tool);
  const changed: McpToolChange | undefined =
    previous === undefined
      ? undefined
      : {
          before: { description: previous.description ?? '', inputSchema: previous.inputSchema },
          now: { description: tool.description ?? '', inputSchema: tool.inputSchema },
        };
  const what = changed === undefined ? [] : changedParts(changed);
  return {
    type: 'tool_call',
    description: `${server} · ${tool.name} ${canonicalJson(input)} (MCP; ${hints})${what.length > 0 ? `; the server changed this tool's ${what.join(' and ')}` : ''}`,
    details: {
      server,
      tool: tool.name,
      input,
      annotations: (tool.annotations ?? {}) as JsonObject,
      fingerprint: toolFingerprint(server, tool),
      ...(changed !== undefined && { changed: changed as unknown as JsonObject }),
    },
    risk: toolRisk(tool),
  };
}

/** Which of a change's parts differ: `description`, `input schema` (none when only annotations changed). */
function changedParts(change: McpToolChange): string[] {
  const parts: string[] = [];
  if (change.before.description !== change.now.description) parts.push('description');
  if (canonicalJson(change.before.inputSchema) !== canonicalJson(change.now.inputSchema)) parts.push('input schema');
  return parts;
}

function textOf(output: McpToolOutput): string {
  return output.content
    .flatMap((p) => (p.type === 'text' ? [p.text] : []))
    .join('\n')
    .trim();
}

/** The result as the model reads it: the text parts, a line for each other part, the structured content as JSON. */
export function renderOutput(output: McpToolOutput): string {
  const lines = output.content.map((part) => {
    switch (part.type) {
      case 'text':
        return part.text;
      case 'image':
      case 'audio':
        return `[${part.type} ${part.mediaType}, ${part.size} bytes, kept as blob ${part.sha256}]`;
      case 'resource':
        return part.text !== undefined
          ? `[resource ${part.uri}${part.mediaType === undefined ? '' : ` (${part.mediaType})`}]\n${part.text}`
          : `[resource ${part.uri}, ${part.size ?? 0} bytes${part.mediaType === undefined ? '' : ` of ${part.mediaType}`}, kept as blob ${part.sha256 ?? '?'}]`;
      case 'resource_link':
        return `[link to resource ${part.uri}${part.name === undefined ? '' : `: ${part.name}`}${part.description === undefined ? '' : ` (${part.description})`}]`;
    }
  });
  if (output.structuredContent !== undefined) lines.push(`Structured content: ${JSON.stringify(output.structuredContent)}`);
  const text = lines.join('\n').trim();
  if (output.isError) return `Error from ${output.server} · ${output.tool}: ${text || '(no message)'}`;
  return text === '' ? '(no output)' : text;
}
