/**
 * The sequencer client against a tiny canned JSON-RPC server on 127.0.0.1: real HTTP, real fetch, and answers a
 * real sequencer gives (docs/lez.md §2) alongside the ones it should never give (garbage, 500s, hangs, wrong ids).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hexToBytes } from '../../src/lez/bytes.ts';
import { parseJson } from '../../src/lez/json.ts';
import { buildNativeTransfer } from '../../src/lez/native-transfer.ts';
import { SequencerClient, describeRpcFailure } from '../../src/lez/sequencer-client.ts';
import { publicAccountId } from '../../src/lez/account-id.ts';
import { xOnlyPublicKey } from '../../src/lez/public-key.ts';

type Handler = (
  request: { method: string; params: unknown; id: unknown; raw: string; headers: IncomingMessage['headers'] },
  res: ServerResponse,
) => void;

let server: Server;
let url: string;
let handler: Handler;
const seen: { method: string; raw: string; headers: IncomingMessage['headers'] }[] = [];
const hanging = new Set<ServerResponse>();

/** Answers with a JSON-RPC result written as raw text, so big numbers stay bare digits. */
function result(res: ServerResponse, id: unknown, resultJson: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`);
}

function rpcError(res: ServerResponse, id: unknown, code: number, message: string, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      const parsed = parseJson(raw);
      const body = (parsed.ok ? parsed.value : {}) as { method: string; params: unknown; id: unknown };
      seen.push({ method: body.method, raw, headers: req.headers });
      handler({ method: body.method, params: body.params, id: body.id, raw, headers: req.headers }, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  seen.length = 0;
  for (const res of hanging) res.destroy();
  hanging.clear();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const client = () => new SequencerClient({ url, timeoutMs: 2_000 });

const PAYER = hexToBytes('7f273098f25b71e6c005a9519f2678da8d1c7f01f6a27778e2d9948abdf901fb', 32);
const PAYEE = '2RHZhw9h534Zr3eq2RGhQete2Hh667foECzXPmSkGni2';
const AUTH_TRANSFER = [1, 2, 3, 4, 5, 6, 7, 8];

describe('sequencer client: the methods of docs/lez.md §2', () => {
  it('sendTransaction posts base64(borsh(NSSATransaction)) positionally and returns the hash', async () => {
    const built = buildNativeTransfer({
      programId: AUTH_TRANSFER,
      secretKey: PAYER,
      to: publicAccountId(
        xOnlyPublicKey(hexToBytes('f434f8741720014586ae43356d2aec6257da086222f604ddb75d69733b86fc4c', 32)),
      ),
      amount: 10n,
      nonce: 0n,
      mode: 'prehash-v0.3',
    });
    if (!built.ok) throw new Error(built.reason);
    handler = ({ id }, res) => result(res, id, JSON.stringify(built.hashHex.toUpperCase()));
    expect(await client().sendTransaction(built.base64)).toEqual({ kind: 'result', value: built.hashHex });
    const request = JSON.parse(seen[0]!.raw);
    expect(request).toMatchObject({ jsonrpc: '2.0', method: 'sendTransaction', params: [built.base64] });
    expect(seen[0]!.headers['content-type']).toBe('application/json');
  });

  it('sendTransaction surfaces InvalidSignature as an rpc-error', async () => {
    handler = ({ id }, res) => rpcError(res, id, -32602, 'InvalidSignature');
    const outcome = await client().sendTransaction({ kind: 'privacy-preserving', body: new Uint8Array([1]) });
    expect(outcome).toEqual({ kind: 'rpc-error', code: -32602, message: 'InvalidSignature' });
    if (outcome.kind !== 'result') expect(describeRpcFailure(outcome)).toBe('sequencer error -32602: InvalidSignature');
    expect(JSON.parse(seen[0]!.raw).params).toEqual(['AQE=']);
  });

  it("keeps an error's data, big numbers included", async () => {
    handler = ({ id }, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        `{"jsonrpc":"2.0","id":${id},"error":{"code":-32602,"message":"Invalid params","data":{"reason":"InvalidSignature","nonce":18446744073709551616}}}`,
      );
    };
    expect(await client().sendTransaction('AA==')).toEqual({
      kind: 'rpc-error',
      code: -32602,
      message: 'Invalid params',
      data: { reason: 'InvalidSignature', nonce: 2n ** 64n },
    });
  });

  it('checkHealth: null means healthy', async () => {
    handler = ({ id }, res) => result(res, id, 'null');
    expect(await client().checkHealth()).toEqual({ kind: 'result', value: null });
  });

  it('keeps u64 and u128 numbers above 2^53 exact, both ways', async () => {
    handler = ({ method, id }, res) => {
      if (method === 'getLastBlockId') result(res, id, '18446744073709551615');
      else if (method === 'getAccountBalance') result(res, id, '340282366920938463463374607431768211455');
      else if (method === 'getAccountsNonces') result(res, id, '[0, 9007199254740993]');
      else if (method === 'getBlock') result(res, id, 'null');
    };
    const c = client();
    expect(await c.getLastBlockId()).toEqual({ kind: 'result', value: 2n ** 64n - 1n });
    expect(await c.getAccountBalance(PAYEE)).toEqual({ kind: 'result', value: 2n ** 128n - 1n });
    expect(await c.getAccountsNonces([PAYEE, publicAccountId(xOnlyPublicKey(PAYER))])).toEqual({
      kind: 'result',
      value: [0n, 9007199254740993n],
    });
    expect(await c.getBlock(9007199254740993n)).toEqual({ kind: 'result', value: null });
    // The block id went out as bare digits, not rounded, not a string.
    expect(seen.at(-1)!.raw).toContain('"params":[9007199254740993]');
    expect(JSON.parse(seen[1]!.raw).params).toEqual([PAYEE]);
    expect(JSON.parse(seen[2]!.raw).params).toEqual([[PAYEE, 'CbgR6tj5kWx5oziiFptM7jMvrQeYY3Mzaao6ciuhSr2r']]);
  });

  it('getAccount reads the account JSON, including an unknown (default) account', async () => {
    handler = ({ id }, res) =>
      result(
        res,
        id,
        '{"program_owner":[1,2,3,4,5,6,7,4294967295],"balance":150,"data":[1,2],"nonce":36893488147419103232}',
      );
    expect(await client().getAccount(PAYEE)).toEqual({
      kind: 'result',
      value: {
        programOwner: [1, 2, 3, 4, 5, 6, 7, 4294967295],
        balance: 150n,
        data: Uint8Array.of(1, 2),
        nonce: 2n ** 65n,
      },
    });
    handler = ({ id }, res) => result(res, id, '{"program_owner":[0,0,0,0,0,0,0,0],"balance":0,"data":[],"nonce":0}');
    expect(await client().getAccount(PAYEE)).toMatchObject({ kind: 'result', value: { balance: 0n, nonce: 0n } });
  });

  it('getTransaction decodes what the sequencer stored, and null means not included', async () => {
    const built = buildNativeTransfer({
      programId: AUTH_TRANSFER,
      secretKey: PAYER,
      to: new Uint8Array(32).fill(5),
      amount: 7n,
      nonce: 1n,
      mode: 'prehash-v0.3',
    });
    if (!built.ok) throw new Error(built.reason);
    handler = ({ id }, res) => result(res, id, JSON.stringify(built.base64));
    const found = await client().getTransaction(built.hashHex);
    expect(found.kind === 'result').toBe(true);
    if (found.kind === 'result' && found.value)
      expect(found.value.transaction).toEqual({ kind: 'public', transaction: built.transaction });
    expect(JSON.parse(seen[0]!.raw)).toMatchObject({ method: 'getTransaction', params: [built.hashHex] });

    handler = ({ id }, res) => result(res, id, 'null');
    expect(await client().getTransaction(built.hashHex)).toEqual({ kind: 'result', value: null });

    handler = ({ id }, res) => result(res, id, '"AAAA"'); // tag 0 and then nothing
    expect(await client().getTransaction(built.hashHex)).toMatchObject({
      kind: 'bad-response',
      message: expect.stringContaining('getTransaction'),
    });
  });

  it('getBlock and getBlockRange return the raw borsh blocks', async () => {
    handler = ({ method, id }, res) => result(res, id, method === 'getBlock' ? '"AQID"' : '["AQ==","Ag=="]');
    expect(await client().getBlock(1n)).toEqual({ kind: 'result', value: Uint8Array.of(1, 2, 3) });
    expect(await client().getBlockRange(1n, 2n)).toEqual({
      kind: 'result',
      value: [Uint8Array.of(1), Uint8Array.of(2)],
    });
    expect(JSON.parse(seen[1]!.raw).params).toEqual([1, 2]);
  });

  it('getProgramIds requires authenticated_transfer', async () => {
    handler = ({ id }, res) =>
      result(res, id, '{"authenticated_transfer":[1,2,3,4,5,6,7,8],"token":[8,7,6,5,4,3,2,1]}');
    expect(await client().getProgramIds()).toEqual({
      kind: 'result',
      value: { authenticated_transfer: [1, 2, 3, 4, 5, 6, 7, 8], token: [8, 7, 6, 5, 4, 3, 2, 1] },
    });
    handler = ({ id }, res) => result(res, id, '{"token":[8,7,6,5,4,3,2,1]}');
    expect(await client().getProgramIds()).toMatchObject({ kind: 'bad-response' });
  });

  it('sends HTTP Basic credentials when configured', async () => {
    handler = ({ id }, res) => result(res, id, 'null');
    await new SequencerClient({ url, basicAuth: { user: 'alice', password: 's3cret' } }).checkHealth();
    expect(seen[0]!.headers.authorization).toBe(`Basic ${Buffer.from('alice:s3cret').toString('base64')}`);
  });
});

describe('sequencer client: trouble is an outcome, never an exception', () => {
  it.each([
    ['non-JSON garbage', '<html>oops</html>', 'not JSON'],
    ['a JSON value that is not JSON-RPC', '[1,2,3]', 'not a JSON-RPC 2.0 response'],
    [
      'a result and an error together',
      '{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"x"}}',
      'not a JSON-RPC',
    ],
    ['the wrong result type', '{"jsonrpc":"2.0","id":1,"result":"150"}', 'unexpected result'],
    ['a negative balance', '{"jsonrpc":"2.0","id":1,"result":-1}', 'unexpected result'],
    [
      'a balance above u128',
      '{"jsonrpc":"2.0","id":1,"result":340282366920938463463374607431768211456}',
      'unexpected result',
    ],
    ['an empty body', '', 'not JSON'],
  ])('%s → bad-response', async (_, body, message) => {
    handler = (_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    };
    const outcome = await client().getAccountBalance(PAYEE);
    expect(outcome).toMatchObject({ kind: 'bad-response', message: expect.stringContaining(message) });
  });

  it('a response to another request id → bad-response', async () => {
    handler = ({ id }, res) => result(res, Number(id) + 1, '0');
    expect(await client().getLastBlockId()).toMatchObject({
      kind: 'bad-response',
      message: expect.stringContaining('id'),
    });
  });

  it('the nonce list must be as long as the request', async () => {
    handler = ({ id }, res) => result(res, id, '[1]');
    expect(await client().getAccountsNonces([PAYEE, PAYEE])).toMatchObject({ kind: 'bad-response' });
  });

  it('HTTP 500 with a non-JSON-RPC body → bad-response naming the status', async () => {
    handler = (_request, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error');
    };
    expect(await client().checkHealth()).toEqual({
      kind: 'bad-response',
      message: 'checkHealth: HTTP 500: internal error',
    });
  });

  it('HTTP 500 carrying a JSON-RPC error → rpc-error', async () => {
    handler = ({ id }, res) => rpcError(res, id, -32603, 'Internal error', 500);
    expect(await client().checkHealth()).toEqual({ kind: 'rpc-error', code: -32603, message: 'Internal error' });
  });

  it('HTTP 401 → bad-response that mentions credentials', async () => {
    handler = (_request, res) => {
      res.writeHead(401);
      res.end();
    };
    expect(await client().checkHealth()).toMatchObject({
      kind: 'bad-response',
      message: expect.stringContaining('basicAuth'),
    });
  });

  it('a proxy saying 503 → unreachable', async () => {
    handler = (_request, res) => {
      res.writeHead(503);
      res.end('upstream down');
    };
    expect(await client().checkHealth()).toMatchObject({ kind: 'unreachable', timedOut: false });
  });

  it('a server that never answers → unreachable with timedOut, after the timeout', async () => {
    handler = (_request, res) => {
      hanging.add(res);
    };
    const started = Date.now();
    const outcome = await new SequencerClient({ url, timeoutMs: 300 }).sendTransaction('AA==');
    expect(outcome).toEqual({
      kind: 'unreachable',
      timedOut: true,
      message: 'sendTransaction: no answer within 300 ms',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('a server that stalls in the middle of its body → unreachable with timedOut', async () => {
    handler = (_request, res) => {
      hanging.add(res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"jsonrpc":"2.0","id":1,"res');
    };
    expect(await new SequencerClient({ url, timeoutMs: 300 }).checkHealth()).toMatchObject({
      kind: 'unreachable',
      timedOut: true,
    });
  });

  it('a closed port → unreachable, not timed out', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const outcome = await new SequencerClient({ url: `http://127.0.0.1:${port}`, timeoutMs: 2_000 }).checkHealth();
    expect(outcome).toMatchObject({ kind: 'unreachable', timedOut: false });
    if (outcome.kind !== 'result') expect(describeRpcFailure(outcome)).toMatch(/^sequencer unreachable: checkHealth: /);
  });

  it('an answer over the size limit → bad-response', async () => {
    handler = ({ id }, res) => result(res, id, JSON.stringify('A'.repeat(4096)));
    expect(await new SequencerClient({ url, maxResponseBytes: 1024 }).getBlock(1n)).toMatchObject({
      kind: 'bad-response',
      message: expect.stringContaining('limit'),
    });
  });

  it('bad configuration and bad arguments are programming errors and throw', () => {
    expect(() => new SequencerClient({ url: 'not a url' })).toThrow();
    expect(() => new SequencerClient({ url: 'ftp://127.0.0.1' })).toThrow();
    expect(() => client().getAccountBalance('nope')).toThrow(RangeError);
    expect(() => client().getTransaction('xyz')).toThrow(RangeError);
    expect(() => client().getBlock(-1n)).toThrow(RangeError);
  });
});
