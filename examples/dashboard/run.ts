/**
 * The dashboard walkthrough (README, "Model-built UIs"): `golem serve` with an agent that builds
 * a sales dashboard. Run it, open the address it prints, and ask for the dashboard:
 *
 *   npx tsx examples/dashboard/run.ts
 *
 * With GOLEM_MODEL (e.g. `openai:gpt-4.1-mini`) a real model answers instead of the scripted one.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorkspace, resolveModel } from '../../src/index.js';
import { serve } from '../../src/serve/index.js';
import { dashboardAgent } from './agent.js';

const ws = await createWorkspace({ dir: process.argv[2] ?? mkdtempSync(join(tmpdir(), 'golem-dashboard-')) });
const model = process.env.GOLEM_MODEL === undefined ? dashboardAgent() : resolveModel(process.env.GOLEM_MODEL);
const server = await serve(ws, { port: Number(process.env.PORT ?? 0), agent: { model } });
console.log(`Open ${server.pageUrl}\nand say "show me the sales dashboard". Ctrl-C stops it.`);
const stop = async () => {
  await server.close();
  await ws.close();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
