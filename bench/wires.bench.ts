/**
 * What the wires cost (`npm run bench:wires`): one answer of N streamed words, run in
 * process (the worker alone, no wire), through AG-UI over HTTP (`@ag-ui/client`'s HttpAgent,
 * which checks the stream as it reads), and through the AI SDK's UI message stream (`ai`'s
 * DefaultChatTransport and readUIMessageStream), against a real `golem serve` on loopback
 * with the scripted model. Medians of BENCH_WIRES_SAMPLES runs (default 15) each, in one
 * process, and the bytes each wire sent.
 */
import { HttpAgent } from '@ag-ui/client';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { createWorkspace } from '../src/index.js';
import { serve } from '../src/serve/index.js';
import { scriptedModel } from '../src/test/index.js';
import { fmt, median, printTable, timeEach, type Row } from './lib.js';

const samples = Number(process.env.BENCH_WIRES_SAMPLES ?? 15);
const sizes = [50, 2000];
const answer = (words: number) => ({ text: Array.from({ length: words }, (_, i) => `word${i}`).join(' ') });

const rows: Row[] = [];
const notes: string[] = [];
for (const words of sizes) {
  const ws = await createWorkspace();
  const server = await serve(ws, { page: false, agent: { model: scriptedModel(answer(words)) } });
  const headers = { authorization: `Bearer ${server.token}` };
  // Bytes on each wire, counted by a fetch that reads what the client reads.
  let bytes = 0;
  const counting: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const [mine, theirs] = (response.body as ReadableStream<Uint8Array>).tee();
    void (async () => {
      for (const reader = mine.getReader(); ;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
      }
    })();
    return new Response(theirs, { status: response.status, headers: response.headers });
  };

  const inProcess = await timeEach(samples, async () => {
    const session = await ws.sessions.create();
    await ws.worker({ session, model: scriptedModel(answer(words)) }).run('go');
  });

  bytes = 0;
  const agui = await timeEach(samples, async () => {
    const agent = new HttpAgent({ url: `${server.url}/api/agui`, headers, threadId: crypto.randomUUID(), fetch: counting });
    agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: 'go' });
    const run: { result?: unknown } = await agent.runAgent();
    if ((run.result as { status?: string } | undefined)?.status !== 'done') throw new Error(`AG-UI run ended ${JSON.stringify(run.result)}`);
  });
  const aguiBytes = bytes / samples;

  bytes = 0;
  const transport = new DefaultChatTransport<UIMessage>({ api: `${server.url}/api/chat`, headers, fetch: counting });
  const chat = await timeEach(samples, async () => {
    const chatId = crypto.randomUUID();
    const stream = await transport.sendMessages({
      chatId,
      trigger: 'submit-message',
      messageId: undefined,
      messages: [{ id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text: 'go' }] }],
      abortSignal: undefined,
    });
    let last: UIMessage | undefined;
    for await (const message of readUIMessageStream({ stream })) last = message;
    const text = last?.parts.find((p) => p.type === 'text');
    if (text === undefined || !('text' in text) || text.text.split(' ').length !== words) throw new Error('the AI SDK stream lost words');
  });
  const chatBytes = bytes / samples;

  const base = median(inProcess);
  // What the wire adds per streamed word (the run's own work taken out), and a short answer's whole time.
  const perWord = (ms: number) => (ms - base) / words;
  const wire = (name: string, times: number[]): Row =>
    words === sizes[0]
      ? { measure: `${words} words: ${name}, whole run`, value: fmt(median(times)), target: '≤ 25 ms', ok: median(times) <= 25 }
      : { measure: `${words} words: ${name}, per word`, value: fmt(perWord(median(times))), target: '≤ 50 µs', ok: perWord(median(times)) <= 0.05 };
  rows.push(
    { measure: `${words} words: in process (no wire)`, value: fmt(base), target: '' },
    wire('AG-UI over HTTP (HttpAgent)', agui),
    wire('AI SDK stream (DefaultChatTransport)', chat),
  );
  notes.push(`${words} words: AG-UI ${Math.round(aguiBytes / 1024)} KiB per run, AI SDK ${Math.round(chatBytes / 1024)} KiB per run`);
  await server.close();
  await ws.close();
}
printTable(`The wires (${samples} runs each, medians; per word: the wire's time less the run's own, over the words)`, rows, notes);
