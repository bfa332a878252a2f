/**
 * The start-up probe: which LEZ a sequencer runs, from the hash formula of its last block, and what that means for
 * a configured signing mode (one clear line, a ConfigError, when they disagree).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../src/devnet/devnet.ts';
import { ConfigError } from '../../src/gateway/config.ts';
import { detectSigningMode } from '../../src/gateway/payment-wiring.ts';
import { chooseSigningMode, probeSequencer } from '../../src/lez/sequencer-probe.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

async function devnet(signingMode: 'prehash-v0.3' | 'raw-borsh'): Promise<Devnet> {
  const started = await startDevnet({ blockIntervalMs: 0, signingMode });
  stops.push(() => started.stop());
  started.produceBlock();
  return started;
}

/** A JSON-RPC server that knows none of the camelCase methods, as LEZ v0.1's did not. */
async function snakeCaseServer(): Promise<string> {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const { id } = JSON.parse(body) as { id: number };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stops.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('probing the sequencer', () => {
  it('tells LEZ main from v0.2.0-rc by the hash of the last block', async () => {
    const main = await devnet('prehash-v0.3');
    const rc = await devnet('raw-borsh');
    expect(await probeSequencer(new SequencerClient({ url: main.url }))).toMatchObject({
      kind: 'detected',
      version: 'main',
      signingMode: 'prehash-v0.3',
      blockId: 2n,
    });
    expect(await probeSequencer(new SequencerClient({ url: rc.url }))).toMatchObject({
      kind: 'detected',
      version: 'v0.2.0-rc',
      signingMode: 'raw-borsh',
    });
  });

  it('the detected mode is used; a configured one must agree, or the start stops with one line', async () => {
    const rc = await devnet('raw-borsh');
    const notes: string[] = [];
    expect(await detectSigningMode(rc.url, undefined, (line) => notes.push(line))).toBe('raw-borsh');
    expect(notes).toEqual([`the sequencer at ${rc.url} runs LEZ v0.2.0-rc: signing mode raw-borsh`]);
    expect(await detectSigningMode(rc.url, 'raw-borsh', () => undefined)).toBe('raw-borsh');
    const refused = await detectSigningMode(rc.url, 'prehash-v0.3').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toBe(
      `payments.signingMode is "prehash-v0.3", but the sequencer at ${rc.url} runs LEZ v0.2.0-rc (block 2 is hashed that way), which wants "raw-borsh"; remove the setting or correct it.`,
    );
  });

  it('an API the client does not speak stops the start, configured mode or not', async () => {
    const url = await snakeCaseServer();
    const probe = await probeSequencer(new SequencerClient({ url }));
    expect(probe).toMatchObject({ kind: 'unsupported', message: expect.stringContaining('LEZ v0.1') });
    expect(chooseSigningMode(probe, 'prehash-v0.3', url)).toMatchObject({ ok: false });
    await expect(detectSigningMode(url, undefined)).rejects.toBeInstanceOf(ConfigError);
  });

  it('a sequencer that does not answer: the configured mode stands alone, or the start stops', async () => {
    const url = 'http://127.0.0.1:9/';
    const probe = await probeSequencer(new SequencerClient({ url, timeoutMs: 1_000 }));
    expect(probe.kind).toBe('unknown');
    expect(chooseSigningMode(probe, 'raw-borsh', url)).toMatchObject({ ok: true, signingMode: 'raw-borsh' });
    expect(chooseSigningMode(probe, undefined, url)).toMatchObject({
      ok: false,
      message: expect.stringContaining('set payments.signingMode'),
    });
  });
});
