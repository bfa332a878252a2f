/** Regressions found by an independent review; each test failed before its fix. */
/** Client mistakes in the request body must be 4xx / -32602, never a 500 internal error. */
import { afterEach, expect, it } from 'vitest';
import { startTestBed, type TestBed } from '../support/gateway.ts';

let bed: TestBed;
afterEach(() => bed?.close());

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });

it('REST message:send with a JSON null body is a 400, not a 500', async () => {
  bed = await startTestBed();
  const response = await post(`${bed.gateway.url}/agents/echo/message:send`, 'null');
  expect(response.status).toBe(400);
});

it('REST message:send with a null part is a 400, not a 500', async () => {
  bed = await startTestBed();
  const response = await post(
    `${bed.gateway.url}/agents/echo/message:send`,
    '{"message":{"messageId":"a","role":"ROLE_USER","parts":[null]}}',
  );
  expect(response.status).toBe(400);
});

it('JSON-RPC SendMessage with a null part is -32602 (HTTP 200), not -32603 / HTTP 500', async () => {
  bed = await startTestBed();
  const response = await post(
    `${bed.gateway.url}/agents/echo`,
    '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"a","role":"ROLE_USER","parts":[null]}}}',
    { 'A2A-Version': '1.0' },
  );
  const body = (await response.json()) as { error?: { code: number; message: string } };
  expect(response.status).toBe(200);
  expect(body.error?.code).toBe(-32602);
});
