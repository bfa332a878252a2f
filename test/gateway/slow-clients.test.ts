/**
 * Slow clients are cut off within the configured limits (headersTimeoutMs, requestTimeoutMs), over real sockets:
 * one that never finishes its headers, one that never finishes its body. Node's defaults held them 60 s and 300 s.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/gateway/config.ts';
import { rpc, startTestBed, type TestBed } from '../support/gateway.ts';

const HEADERS_TIMEOUT_MS = 300;
const REQUEST_TIMEOUT_MS = 800;

let bed: TestBed;
beforeAll(
  async () =>
    (bed = await startTestBed({
      config: { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS },
    })),
);
afterAll(() => bed?.close());

/** Opens a socket, writes `text` and nothing more; resolves with what came back and when the server closed it. */
function sendAndWait(text: string): Promise<{ answer: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const url = new URL(bed.gateway.url);
    const socket: Socket = connect({ host: url.hostname, port: Number(url.port) });
    const started = performance.now();
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () =>
      resolve({ answer: Buffer.concat(chunks).toString('utf8'), closedAfterMs: performance.now() - started }),
    );
    socket.write(text);
    // Never more: a test that the server does not cut off fails on vitest's own timeout.
  });
}

describe('slow clients', () => {
  it('headers never finished: 408 and closed within headersTimeoutMs', async () => {
    const { answer, closedAfterMs } = await sendAndWait('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl');
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + 1_000);
  });

  it('body never finished: 408 and closed within requestTimeoutMs', async () => {
    const { answer, closedAfterMs } = await sendAndWait(
      'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc":',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1_000);
  });

  it('a client that is not slow is served, and its connection kept', async () => {
    const { status, headers, body } = await rpc(`${bed.gateway.url}/agents/echo`, 'GetTask', { id: 'missing' });
    expect(status).toBe(200);
    expect(body.error?.code).toBe(-32001);
    expect(headers.get('connection')).toBe('keep-alive');
  });
});

describe('the limits as settings', () => {
  it('default to 10 s and 30 s, and come from the environment', () => {
    expect(loadConfig({ env: {} })).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
    const env = { LOGOS_A2A_HEADERS_TIMEOUT_MS: '2000', LOGOS_A2A_REQUEST_TIMEOUT_MS: '5000' };
    expect(loadConfig({ env })).toMatchObject({ headersTimeoutMs: 2_000, requestTimeoutMs: 5_000 });
  });

  it('headers may not take longer than the whole request', () => {
    expect(() =>
      loadConfig({ env: { LOGOS_A2A_HEADERS_TIMEOUT_MS: '5000', LOGOS_A2A_REQUEST_TIMEOUT_MS: '1000' } }),
    ).toThrow(/headersTimeoutMs \(env LOGOS_A2A_HEADERS_TIMEOUT_MS\): at most requestTimeoutMs/);
  });
});
