/**
 * An AG-UI client in Node talking to Golem: `npx tsx examples/agui-client.ts`.
 *
 * `@ag-ui/client`'s HttpAgent (what CopilotKit and assistant-ui run on) asks Golem's AG-UI
 * route to deploy a site; the supervised `deploy` call ends the run with an interrupt, the
 * client approves it with a resume, and the run goes on. Without GOLEM_URL it starts a
 * `golem serve` in this process with a scripted model (a test double), so it runs offline;
 * with GOLEM_URL and GOLEM_TOKEN (what `golem serve` printed) it talks to that server and its
 * model instead, which answers in its own words.
 */
import { HttpAgent } from '@ag-ui/client';
import { z } from 'zod';
import { createWorkspace, defineAction } from '../src/index.js';
import { serve } from '../src/serve/index.js';
import { scriptedModel } from '../src/test/index.js';

let url = process.env.GOLEM_URL;
let token = process.env.GOLEM_TOKEN ?? '';
let stop = async () => {};
if (url === undefined) {
  const deploy = defineAction({
    name: 'deploy',
    description: 'Deploys the site to a target.',
    input: z.strictObject({ target: z.string() }),
    trust: 'supervised',
    describe: ({ target }) => ({ type: 'command', description: `Deploy the site to ${target}`, details: { target }, risk: 'high' }),
    run: ({ target }) => `deployed to ${target}`,
  });
  const model = scriptedModel([
    { text: 'I will deploy it to staging.', toolCalls: [{ name: 'deploy', input: { target: 'staging' } }] },
    { text: 'Done: the site is on staging.' },
  ]);
  const ws = await createWorkspace();
  const server = await serve(ws, { page: false, agent: { model, actions: [deploy] } });
  ({ url, token } = server);
  stop = async () => {
    await server.close();
    await ws.close();
  };
}

const agent = new HttpAgent({ url: `${url}/api/agui`, headers: { authorization: `Bearer ${token}` }, threadId: crypto.randomUUID() });
agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: 'Deploy the site to staging, please.' });
await agent.runAgent();

for (const interrupt of agent.pendingInterrupts) {
  console.log(`approval asked: ${interrupt.message} (risk ${(interrupt.metadata?.golem as { risk?: string } | undefined)?.risk})`);
}
// Yes to each: the next run resumes them, and the calls run.
await agent.runAgent({ resume: agent.pendingInterrupts.map((i) => ({ interruptId: i.id, status: 'resolved' as const, payload: { answer: 'yes' } })) });

for (const message of agent.messages) {
  const calls = message.role === 'assistant' ? (message.toolCalls ?? []).map((c) => ` [calls ${c.function.name} ${c.function.arguments}]`).join('') : '';
  console.log(`${message.role}: ${typeof message.content === 'string' ? message.content : ''}${calls}`);
}
await stop();
