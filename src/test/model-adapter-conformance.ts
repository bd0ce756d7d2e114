/**
 * The model adapter conformance suite: every ModelAdapter (the scripted one included)
 * passes it unchanged. A harness makes an adapter that answers its calls in order.
 */
import { describe, expect, it } from 'vitest';
import { GolemError } from '../core/errors.js';
import type { ModelAdapter, StreamPart } from '../models/model-adapter.js';
import type { Prompt } from '../models/prompt.js';
import type { ScriptedResponse } from './scripted-model.js';

export interface ModelHarness {
  /** An adapter whose calls are answered, in order, by `responses`. */
  create(responses: ScriptedResponse[]): Promise<{ model: ModelAdapter; close?: () => Promise<void> }>;
  /** Whether the adapter's provider returns thinking. */
  thinking: boolean;
  /** Whether it signs its thinking (Anthropic does). */
  signsThinking?: boolean;
}

const prompt: Prompt = { system: 'You are terse.', messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello.' }] }] };

async function collect(parts: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const out: StreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

export function describeModelAdapterConformance(name: string, harness: ModelHarness): void {
  describe(`ModelAdapter conformance: ${name}`, () => {
    const withModel = async (responses: ScriptedResponse[], body: (model: ModelAdapter) => Promise<void>) => {
      const { model, close } = await harness.create(responses);
      try {
        await body(model);
      } finally {
        await close?.();
      }
    };

    it('streams text in parts, then one finish with usage and the stop reason', () =>
      withModel([{ text: 'Hello there, friend.', usage: { inputTokens: 12, outputTokens: 4 } }], async (model) => {
        const parts = await collect(model.stream(prompt));
        const text = parts.flatMap((p) => (p.type === 'text-delta' ? [p.text] : []));
        expect(text.length).toBeGreaterThan(1);
        expect(text.join('')).toBe('Hello there, friend.');
        const finishes = parts.filter((p) => p.type === 'finish');
        expect(finishes).toHaveLength(1);
        expect(finishes[0]).toMatchObject({ stopReason: 'stop', usage: { inputTokens: 12, outputTokens: 4 } });
        expect(parts.at(-1)?.type).toBe('finish');
      }));

    it('delivers tool calls whole, with parsed input', () =>
      withModel([{ toolCalls: [{ name: 'search', input: { query: 'heart', limit: 3, deep: { ok: true } }, callId: 'call_1' }] }], async (model) => {
        const parts = await collect(model.stream(prompt));
        expect(parts.filter((p) => p.type === 'tool-call')).toEqual([
          { type: 'tool-call', callId: 'call_1', name: 'search', input: { query: 'heart', limit: 3, deep: { ok: true } } },
        ]);
        expect(parts.at(-1)).toMatchObject({ type: 'finish', stopReason: 'tool-calls' });
      }));

    it('generates what it streams', () =>
      withModel(
        [
          { text: 'One two three.', usage: { inputTokens: 7, outputTokens: 3 } },
          { text: 'One two three.', usage: { inputTokens: 7, outputTokens: 3 } },
        ],
        async (model) => {
          const streamed = await collect(model.stream(prompt));
          const generated = await model.generate(prompt);
          expect(generated.text).toBe(streamed.flatMap((p) => (p.type === 'text-delta' ? [p.text] : [])).join(''));
          expect(generated.usage).toMatchObject({ inputTokens: 7, outputTokens: 3 });
          expect(generated.stopReason).toBe('stop');
        },
      ));

    if (harness.thinking) {
      it('returns thinking before the text, with its signature', () =>
        withModel([{ thinking: 'Let me think.', text: 'Done.' }], async (model) => {
          const parts = await collect(model.stream(prompt));
          const kinds = parts.map((p) => p.type).filter((t, i, all) => t !== all[i - 1]);
          expect(kinds.slice(0, 3)).toEqual(['thinking-delta', 'thinking-end', 'text-delta']);
          expect(parts.flatMap((p) => (p.type === 'thinking-delta' ? [p.text] : [])).join('')).toBe('Let me think.');
          if (harness.signsThinking === true) expect(parts.find((p) => p.type === 'thinking-end')).toMatchObject({ signature: expect.any(String) });
        }));
    }

    it('fails a cancelled call with MODEL_ABORTED', () =>
      withModel([{ text: 'never heard' }], async (model) => {
        const controller = new AbortController();
        controller.abort();
        await expect(collect(model.stream(prompt, { signal: controller.signal }))).rejects.toSatisfy(
          (e: unknown) => GolemError.isInstance(e) && e.code === 'MODEL_ABORTED',
        );
      }));

    it('counts tokens', () =>
      withModel([], async (model) => {
        expect(model.countTokens('hello')).toBeGreaterThan(0);
        expect(model.countTokens('hello world, this is a longer sentence')).toBeGreaterThan(model.countTokens('hello'));
        expect(model.specVersion).toBe('golem.model/v1');
      }));
  });
}
