import { describe, expect, it } from 'vitest';
import { MAX_QUEUED, sseResponse } from './sse.js';

describe('sseResponse', () => {
  it('frames each event as data, and ends a stream its client does not read once too much waits', async () => {
    let stopped = 0;
    let sent = 0;
    const event = { type: 'TEXT_MESSAGE_CONTENT', delta: 'x'.repeat(64 * 1024) };
    const response = sseResponse((channel) => {
      // Far more than may wait, sent while nobody reads.
      for (let i = 0; i < (2 * MAX_QUEUED) / (64 * 1024); i++) {
        channel.send(event);
        sent++;
      }
      return () => void stopped++;
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const text = await response.text();
    const frames = text.split('\n\n').filter((f) => f !== '');
    expect(stopped).toBe(1);
    expect(frames.length).toBeLessThan(sent);
    expect(frames.length * 64 * 1024).toBeLessThan(MAX_QUEUED + 256 * 1024);
    expect(JSON.parse((frames[0] ?? '').slice('data: '.length))).toEqual(event);
  });
});
