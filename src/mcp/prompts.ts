/**
 * MCP servers' prompts as the chat's slash commands, named as other clients name them:
 * `/mcp__<server>__<prompt> [arguments...]`. The arguments fill the prompt's own, in order
 * (the last takes the rest of the line); the prompt's messages become the message sent.
 */
import { GolemError } from '../core/errors.js';
import type { McpConnection, McpPrompt } from './connection.js';

export interface PromptCommand {
  /** e.g. /mcp__everything__args-prompt */
  command: string;
  prompt: McpPrompt;
  connection: McpConnection;
}

/** The prompts of the open connections (a server that fails to list them is left out). */
export async function promptCommands(connections: readonly McpConnection[]): Promise<PromptCommand[]> {
  const lists = await Promise.all(
    connections.map(async (connection) => (await connection.listPrompts().catch(() => [])).map((prompt) => ({ connection, prompt }))),
  );
  return lists.flat().map(({ connection, prompt }) => ({ command: `/mcp__${connection.name}__${prompt.name}`, prompt, connection }));
}

/** A prompt's arguments as a usage line: `<required> [optional]`. */
export function promptUsage(prompt: McpPrompt): string {
  return prompt.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(' ');
}

/** One line per prompt, for /help and /mcp. */
export function describePrompts(commands: readonly PromptCommand[]): string {
  return commands
    .map(({ command, prompt }) => {
      const args = promptUsage(prompt);
      return `  ${`${command}${args === '' ? '' : ` ${args}`}`.padEnd(40)} ${prompt.description ?? ''}`.trimEnd();
    })
    .join('\n');
}

/** The message a prompt command sends: its messages' text; INVALID_ARGUMENT when a required argument is missing. */
export async function promptMessage(command: PromptCommand, rest: string): Promise<string> {
  const { prompt } = command;
  const words = rest.trim() === '' ? [] : rest.trim().split(/\s+/);
  const args: Record<string, string> = {};
  prompt.arguments.forEach((argument, i) => {
    const value = i === prompt.arguments.length - 1 ? words.slice(i).join(' ') : words[i];
    if (value !== undefined && value !== '') args[argument.name] = value;
  });
  const missing = prompt.arguments.filter((a) => a.required && args[a.name] === undefined).map((a) => a.name);
  if (missing.length > 0) {
    throw new GolemError(
      'INVALID_ARGUMENT',
      `${command.command} needs ${missing.join(', ')}: ${command.command} ${prompt.arguments.map((a) => `<${a.name}>`).join(' ')}`,
    );
  }
  const messages = await command.connection.getPrompt(prompt.name, args);
  return messages.map((m) => m.text).join('\n\n');
}
