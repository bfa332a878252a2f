/** Reading and parsing request bodies: the depth check that runs before JSON.parse, and the connection headers. */
import { describe, expect, it } from 'vitest';
import {
  type BodyResult,
  CLOSE_CONNECTION,
  discardUnreadBody,
  MAX_DISCARDED_BYTES,
  MAX_JSON_DEPTH,
  jsonTooDeep,
  parseJsonBody,
  readBody,
} from '../../src/a2a/request-body.ts';

const nested = (levels: number, open = '[', close = ']') => open.repeat(levels) + close.repeat(levels);

describe('jsonTooDeep', () => {
  it('counts arrays and objects alike, up to the limit inclusive', () => {
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonTooDeep('{"a":{"b":{"c":[1]}}}', 4)).toBe(false);
    expect(jsonTooDeep('{"a":{"b":{"c":[1]}}}', 3)).toBe(true);
  });

  it('siblings do not add up', () => {
    expect(jsonTooDeep(`[${Array.from({ length: 1_000 }, () => '[[]]').join(',')}]`, 3)).toBe(false);
  });

  it('ignores brackets in strings, escaped quotes included', () => {
    expect(jsonTooDeep(JSON.stringify({ text: '[{'.repeat(1_000) }), 2)).toBe(false);
    expect(jsonTooDeep(JSON.stringify({ text: 'say \\"[[[\\" and "[[["' }), 1)).toBe(false);
    expect(jsonTooDeep(JSON.stringify(['\\', [[]]]), 2)).toBe(true);
  });

  it('handles a million levels without recursing', () => {
    expect(jsonTooDeep(nested(1_000_000))).toBe(true);
  });
});

describe('parseJsonBody', () => {
  it('parses what is within the limit', () => {
    expect(parseJsonBody('{"a":[1,{"b":null}]}')).toEqual({ ok: true, value: { a: [1, { b: null }] } });
  });

  it('refuses excessive depth before parsing, naming the limit', () => {
    const result = parseJsonBody(nested(5_000));
    expect(result).toMatchObject({ ok: false, reason: 'too-deep' });
    expect(!result.ok && result.message).toMatch(/more than 64 levels/);
  });

  it('reports JSON that does not parse', () => {
    expect(parseJsonBody('{"a":')).toMatchObject({ ok: false, reason: 'not-json' });
  });
});

describe('connection headers for unread bodies', () => {
  const request = (headers: Record<string, string>, body?: string) =>
    new Request('http://127.0.0.1/', { method: 'POST', headers, ...(body !== undefined ? { body } : {}) });

  it('Connection: close when the request declares a body', async () => {
    expect(await discardUnreadBody(request({ 'Content-Length': '12' }))).toEqual(CLOSE_CONNECTION);
    expect(await discardUnreadBody(request({ 'Transfer-Encoding': 'chunked' }))).toEqual(CLOSE_CONNECTION);
  });

  it('nothing when it has none', async () => {
    expect(await discardUnreadBody(request({ 'Content-Length': '0' }))).toEqual({});
    expect(await discardUnreadBody(new Request('http://127.0.0.1/'))).toEqual({});
  });

  it('readBody: a refusal carries Connection: close, a read body does not need it', async () => {
    const tooLarge = await readBody(request({ 'Content-Length': '100' }, 'x'.repeat(100)), 10);
    expect(tooLarge).toMatchObject({ ok: false, reason: 'too-large', headers: CLOSE_CONNECTION });
    const streamed = new Request('http://127.0.0.1/', {
      method: 'POST',
      body: new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode('x'.repeat(100))), c.close()) }),
      duplex: 'half',
    } as RequestInit);
    expect(await readBody(streamed, 10)).toMatchObject({ ok: false, reason: 'too-large', headers: CLOSE_CONNECTION });
    expect(await readBody(request({ 'Content-Length': '2' }, '{}'), 10)).toEqual({ ok: true, text: '{}' });
  });

  it('readBody with a step: the step takes every outcome, read, too large or broken off, and its answer is the answer', async () => {
    const step = (body: BodyResult) => (body.ok ? `read ${body.text}` : body.reason);
    expect(await readBody(request({ 'Content-Length': '2' }, '{}'), 10, step)).toBe('read {}');
    expect(await readBody(request({ 'Content-Length': '100' }, 'x'.repeat(100)), 10, step)).toBe('too-large');
    const broken = request({ 'Content-Length': '2' }, '{}');
    Object.defineProperty(broken, 'text', { value: () => Promise.reject(new Error('reset')) });
    expect(await readBody(broken, 10, step)).toBe('unreadable');
    await expect(
      readBody(request({ 'Content-Length': '2' }, '{}'), 10, () => {
        throw new Error('the step failed');
      }),
    ).rejects.toThrow('the step failed');
  });

  /** A streamed body of `chunks` chunks of 1 MiB, counting those read. */
  const counted = (chunks: number) => {
    const served = { chunks: 0 };
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        if (served.chunks === chunks) return controller.close();
        served.chunks++;
        controller.enqueue(new Uint8Array(1024 * 1024));
      },
    });
    return { served, body };
  };

  it('readBody: a body over the limit is read to its end before the 413, so that the client gets to read it', async () => {
    const chunked = counted(5);
    const result = await readBody(
      new Request('http://127.0.0.1/', { method: 'POST', body: chunked.body, duplex: 'half' } as RequestInit),
      1024,
    );
    expect(result).toMatchObject({ ok: false, status: 413 });
    expect(chunked.served.chunks).toBe(5);
    const declared = counted(5);
    const length = String(5 * 1024 * 1024);
    const request = new Request('http://127.0.0.1/', {
      method: 'POST',
      body: declared.body,
      headers: { 'Content-Length': length },
      duplex: 'half',
    } as RequestInit);
    expect(await readBody(request, 1024)).toMatchObject({ ok: false, status: 413 });
    expect(declared.served.chunks).toBe(5);
  });

  it('readBody: past MAX_DISCARDED_BYTES nothing more is read', async () => {
    const endless = counted(Number.POSITIVE_INFINITY);
    const result = await readBody(
      new Request('http://127.0.0.1/', { method: 'POST', body: endless.body, duplex: 'half' } as RequestInit),
      1024,
    );
    expect(result).toMatchObject({ ok: false, status: 413 });
    expect(endless.served.chunks * 1024 * 1024).toBeGreaterThan(MAX_DISCARDED_BYTES);
    expect(endless.served.chunks * 1024 * 1024).toBeLessThan(MAX_DISCARDED_BYTES + 4 * 1024 * 1024);
    const huge = counted(Number.POSITIVE_INFINITY);
    const declared = new Request('http://127.0.0.1/', {
      method: 'POST',
      body: huge.body,
      headers: { 'Content-Length': String(MAX_DISCARDED_BYTES + 1) },
      duplex: 'half',
    } as RequestInit);
    expect(await readBody(declared, 1024)).toMatchObject({ ok: false, status: 413 });
    expect(huge.served.chunks).toBeLessThanOrEqual(1);
  });
});
