/**
 * The useChat example page on `golem serve`, offline:
 *
 *   npx vite build --config examples/use-chat/vite.config.ts
 *   npx tsx examples/use-chat/serve.ts [built page folder]
 *
 * then open the address it prints. The agent has one supervised action, `deploy`, and a
 * scripted model (a test double) stands in for a real one: ask it to deploy somewhere. With a
 * real model, pass it as `agent.model` (see `golem serve --model`).
 */
import { join } from 'node:path';
import { z } from 'zod';
import { createWorkspace, defineAction } from '../../src/index.js';
import { serve } from '../../src/serve/index.js';
import { scriptedModel } from '../../src/test/index.js';

const deploy = defineAction({
  name: 'deploy',
  description: 'Deploys the site to a target.',
  input: z.strictObject({ target: z.string() }),
  trust: 'supervised',
  describe: ({ target }) => ({ type: 'command', description: `Deploy the site to ${target}`, details: { target }, risk: 'high' }),
  // An object: the page shows it as JSON.
  run: ({ target }) => ({ deployed: target, url: `https://${target}.example.com` }),
});

// Answers a call's result with it (its address, when it has one), "deploy to X" with the call, anything else with a hint.
const model = scriptedModel((prompt) => {
  const last = prompt.messages.at(-1)?.content.at(-1);
  if (last?.type === 'tool-result') {
    const text = last.output.type === 'text' ? last.output.text : '';
    const url = /"url":"([^"]+)"/.exec(text)?.[1];
    return { text: url === undefined ? `Done: ${text}.` : `Done: the site is live at ${url}.` };
  }
  const text = last?.type === 'text' ? last.text : '';
  const target = /deploy (?:it |the site )?to (\w+)/i.exec(text)?.[1];
  if (target === undefined) return { text: 'Hello! Ask me to deploy the site to staging.' };
  return { text: `I will deploy the site to ${target}.`, toolCalls: [{ name: 'deploy', input: { target } }] };
});

// The built page's folder: vite's, unless given.
const page = process.argv[2] ?? join(import.meta.dirname, 'dist');
const ws = await createWorkspace();
const server = await serve(ws, { page, agent: { model, actions: [deploy] } });
console.log(`Open ${server.pageUrl}`);

process.once('SIGTERM', () => void server.close().then(() => ws.close()));
process.once('SIGINT', () => void server.close().then(() => ws.close()));
