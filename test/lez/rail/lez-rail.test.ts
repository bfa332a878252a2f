/**
 * LezRail end to end: real HTTP, the real SequencerClient, the devnet (src/devnet) as the sequencer. Between
 * the two sits a small JSON-RPC proxy kept in this file, which can lose the sequencer's answers, answer garbage,
 * refuse a transaction or go down, so every failure path runs against real block production. What every rail does
 * (paying once, refusals, resume, verification, refunds) is in contract.test.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it as base } from 'vitest';
import { eventually } from '../../support/eventually.ts';
import { hexToBytes } from '../../../src/lez/bytes.ts';
import type { BlockSummary } from '../../../src/devnet/chain.ts';
import { DEVNET_GENESIS, startDevnet, type DevnetOptions } from '../../../src/devnet/devnet.ts';
import { signingKeyFromSecretKey, type SigningKey } from '../../../src/lez/keys.ts';
import { LezRail, type LezRailSettings } from '../../../src/lez/rail/lez-rail.ts';
import type { PayOutcome } from '../../../src/lez/rail/payment-rail.ts';
import type { RailPaymentRecord } from '../../../src/lez/rail/payment-record.ts';
import { SequencerClient } from '../../../src/lez/sequencer-client.ts';
import { decodeBase64NssaTransaction } from '../../../src/lez/transaction.ts';

const PAYER = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[0].secretKeyHex, 32)); // 10 000 at genesis
const AGENT = signingKeyFromSecretKey(hexToBytes(DEVNET_GENESIS[1].secretKeyHex, 32)); // 20 000, initialised
const PAYEES: SigningKey[] = ['01', '02', '03', '04'].map((b) => signingKeyFromSecretKey(hexToBytes(b.repeat(32), 32)));
const STRANGER = signingKeyFromSecretKey(hexToBytes('aa'.repeat(32), 32)); // never initialised

// ---- a JSON-RPC proxy that misbehaves on demand ------------------------------------------------------------------

type Behaviour =
  | 'pass'
  | 'garbage' // answer nonsense, forward nothing
  | 'forward-then-garbage' // the sequencer gets it, the client gets nonsense: an answer lost
  | 'refuse' // a JSON-RPC error, forward nothing
  | 'drop'; // cut the connection, forward nothing

class RpcProxy {
  private readonly target: string;
  private server: Server | undefined;
  port = 0;
  behaviour: (method: string) => Behaviour = () => 'pass';
  /** Off: every answer closes its connection, so after down() the next request is surely refused, not cut. */
  keepAlive = true;
  readonly methods: string[] = [];
  /** The `tx` of every sendTransaction that was forwarded, in arrival order. */
  readonly forwarded: string[] = [];
  /** Called as each sendTransaction is forwarded, in arrival order. */
  onForward: () => void = () => {};
  /** Awaited before a request goes on to the sequencer: a test can hold one back, or act while it waits. */
  beforeForward: (method: string) => Promise<void> | void = () => {};
  /** The method of every request the sequencer has answered, in the order of its answers. */
  readonly answered: string[] = [];

  constructor(target: string) {
    this.target = target;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Nothing listens on the port afterwards: connections are refused. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  count(method: string): number {
    return this.methods.filter((m) => m === method).length;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    let method = '?';
    let id: unknown = null;
    let params: unknown;
    try {
      ({ method, id, params } = JSON.parse(body) as { method: string; id: unknown; params: unknown });
    } catch {
      // forwarded as it is
    }
    this.methods.push(method);
    const behaviour = this.behaviour(method);
    const json: Record<string, string> = {
      'content-type': 'application/json',
      ...(this.keepAlive ? {} : { connection: 'close' }),
    };
    if (behaviour === 'drop') return void req.socket.destroy();
    if (behaviour === 'garbage') return void res.writeHead(200, json).end('<html>502 upstream confused</html>');
    if (behaviour === 'refuse') {
      const error = { code: -32602, message: 'Invalid params', data: 'refused by the test proxy' };
      return void res.writeHead(200, json).end(JSON.stringify({ jsonrpc: '2.0', id, error }));
    }
    if (method === 'sendTransaction' && Array.isArray(params)) {
      this.forwarded.push(String(params[0]));
      this.onForward();
    }
    await this.beforeForward(method);
    const answer = await fetch(this.target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await answer.text();
    this.answered.push(method);
    if (behaviour === 'forward-then-garbage')
      return void res.writeHead(200, json).end(JSON.stringify({ jsonrpc: '2.0', id, result: 42 }));
    res.writeHead(answer.status, json).end(text);
  }
}

// ---- one devnet + proxy per test ---------------------------------------------------------------------------------

const FAST: LezRailSettings = {
  signingMode: 'prehash-v0.3',
  pollIntervalMs: 100,
  resubmitAfterMs: 3_000,
  inclusionTimeoutMs: 8_000,
};

/** Blocks every 100 ms: a payment waits for the next block, and nothing here depends on how long that is. */
async function startWorld(cleanups: (() => Promise<void> | void)[], options: DevnetOptions = {}) {
  const devnet = await startDevnet({
    blockIntervalMs: 100,
    genesis: PAYEES.map((key) => ({ account: key.account, balance: 0n })),
    ...options,
  });
  cleanups.push(() => devnet.stop());
  const proxy = new RpcProxy(devnet.url);
  await proxy.up();
  cleanups.push(() => proxy.down());
  const rail = (settings: Partial<LezRailSettings> = {}, payer: SigningKey = PAYER) => {
    // Generous: a loaded machine (the suite runs in parallel) must not turn slowness into a lost answer.
    const client = new SequencerClient({ url: proxy.url, timeoutMs: 10_000, layout: settings.profile ?? 'v0.2' });
    const created = new LezRail({ client, payer }, { ...FAST, network: 'devnet', ...settings });
    cleanups.push(() => created.close());
    return created;
  };
  return { devnet, proxy, rail };
}

/** Each test's own world, torn down after it: the tests share nothing, so they run concurrently. */
const it = base.extend<{ world: (options?: DevnetOptions) => ReturnType<typeof startWorld> }>({
  // eslint-disable-next-line no-empty-pattern
  world: async ({}, use) => {
    const cleanups: (() => Promise<void> | void)[] = [];
    try {
      await use((options) => startWorld(cleanups, options));
    } finally {
      for (const cleanup of cleanups.reverse()) await cleanup();
    }
  },
});

function paid(outcome: PayOutcome) {
  if (outcome.kind !== 'paid') throw new Error(`expected paid, got ${JSON.stringify(outcome)}`);
  return outcome.receipt;
}

/** The payer's nonce of a transaction as the proxy forwarded it (base64). */
function nonceOf(tx: string): number {
  const decoded = decodeBase64NssaTransaction(tx);
  if (!decoded.ok || decoded.value.kind !== 'public') throw new Error('not a public transaction');
  return Number(decoded.value.transaction.message.nonces[0]);
}

/** A record as a store gives it back: plain JSON. */
function stored(record: RailPaymentRecord): unknown {
  return JSON.parse(JSON.stringify(record));
}

// ---- paying ------------------------------------------------------------------------------------------------------

// The tests share nothing, so they run concurrently.
describe('LezRail on the devnet: paying', () => {
  it.concurrent(
    '100 concurrent payments: consecutive nonces, no gap, sharing blocks, none waits a block for another',
    async ({ world }) => {
      // Blocks only when the test seals them, at points counted in payments, not in time: with a block timer, how many
      // blocks the batch takes depends on how fast this machine signs while other tests run (bench/lez-payments.ts
      // measures that).
      const { devnet, proxy, rail: makeRail } = await world({ blockIntervalMs: 0 });
      // The payments wait for their blocks as long as a loaded machine takes to sign and send all 100, and nothing is
      // resent meanwhile: each transaction reaches the sequencer once.
      const rail = makeRail({ inclusionTimeoutMs: 60_000, resubmitAfterMs: 60_000 });
      const blocks: BlockSummary[] = [];
      devnet.onBlock((block) => void blocks.push(block));
      // The rail sends a transaction once the sequencer has answered the one before: as the 51st reaches the proxy, the
      // first 50 are in the mempool, and a block sealed then takes them while the rest are still to come.
      proxy.onForward = () => {
        if (proxy.forwarded.length === 51) devnet.produceBlock();
      };

      const payments = Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          rail.pay({ paymentId: `task:${i}`, to: PAYEES[i % 4]!.account, amount: BigInt(i + 1) }),
        ),
      );
      // All 100 reach the sequencer with one block sealed: none waited for the one before it to be included.
      await eventually(
        () => proxy.answered.filter((method) => method === 'sendTransaction').length === 100 || undefined,
        50_000,
      );
      expect(blocks).toHaveLength(1);
      devnet.produceBlock();
      const receipts = (await payments).map(paid);
      const nonces = receipts.map((r) => Number(r.nonce)).sort((a, b) => a - b);
      expect(nonces).toEqual(Array.from({ length: 100 }, (_, i) => i));

      // They reached the sequencer in nonce order, so a FIFO sequencer that does not park early nonces (the real
      // one, unlike the devnet) would have taken every one of them too.
      const arrival = proxy.forwarded.map(nonceOf);
      expect(arrival).toEqual(Array.from({ length: 100 }, (_, i) => i));
      // Each landed in the first block sealed after it arrived: the two blocks share the batch.
      for (const receipt of receipts) {
        const included = devnet.receipt(receipt.txHash);
        const expected = blocks[Number(receipt.nonce) < 50 ? 0 : 1]!.blockId;
        expect(included, `nonce ${receipt.nonce}`).toMatchObject({ status: 'included', blockId: expected });
      }
      expect(blocks.flatMap((b) => b.dropped)).toEqual([]);
      expect(devnet.nonce(PAYER.account)).toBe(100n);
      expect(devnet.balance(PAYER.account)).toBe(10_000n - 5_050n);
    },
    60_000,
  );

  it.concurrent(
    'a payment that lands while earlier ones are looked up is not sent again on the nonce read before',
    async ({ world }) => {
      // Blocks only when the test seals them.
      const { devnet, proxy, rail: makeRail } = await world({ blockIntervalMs: 0 });
      const rail = makeRail({ resubmitAfterMs: 1_000, inclusionTimeoutMs: 20_000 });
      // As the second transaction reaches the sequencer (before the sequencer has it), the first one's block is sealed:
      // the chain's nonce the rail reads next says the first landed and the second did not.
      let firstSealed = false;
      proxy.onForward = () => {
        if (!firstSealed && nonceOf(proxy.forwarded.at(-1)!) === 1) {
          firstSealed = true;
          devnet.produceBlock();
        }
      };
      // The rail then looks the first one up. While that lookup takes longer than resubmitAfterMs, the second lands.
      let slowLookup = false;
      proxy.beforeForward = async (method) => {
        if (method !== 'getTransaction' || !firstSealed || slowLookup) return;
        slowLookup = true;
        devnet.produceBlock();
        await new Promise((resolve) => setTimeout(resolve, 3_000));
      };
      const first = rail.pay({ paymentId: 'task:first', to: PAYEES[0]!.account, amount: 1n });
      await eventually(() => proxy.answered.includes('sendTransaction') || undefined);
      const second = rail.pay({ paymentId: 'task:second', to: PAYEES[1]!.account, amount: 2n });
      expect([paid(await first).nonce, paid(await second).nonce]).toEqual(['0', '1']);
      expect(slowLookup).toBe(true);
      // The second was not overdue when the nonce was read, however long the lookup took: it went to the sequencer once.
      expect(proxy.forwarded.map(nonceOf)).toEqual([0, 1]);
    },
    30_000,
  );

  it.concurrent(
    'in-flight payments count against the balance: of two that fit alone, one is refused before signing',
    async ({ world }) => {
      const { devnet, rail: makeRail } = await world();
      const rail = makeRail();
      const records: RailPaymentRecord[] = [];
      const onSigned = (r: RailPaymentRecord) => void records.push(r);
      const both = await Promise.all([
        rail.pay({ paymentId: 'a', to: PAYEES[0]!.account, amount: 6_000n, onSigned }),
        rail.pay({ paymentId: 'b', to: PAYEES[1]!.account, amount: 6_000n, onSigned }),
      ]);
      expect(both.map((o) => o.kind).sort()).toEqual(['failed', 'paid']);
      expect(both.find((o) => o.kind === 'failed')).toMatchObject({ reason: 'insufficient-funds' });
      expect(records).toHaveLength(1);
      expect(devnet.balance(PAYER.account)).toBe(4_000n);
    },
  );

  it.concurrent('an uninitialised payee is refused before anything is signed', async ({ world }) => {
    const { devnet, proxy, rail: makeRail } = await world();
    let signed = 0;
    const outcome = await makeRail().pay({
      paymentId: 'x',
      to: STRANGER.account,
      amount: 5n,
      onSigned: () => void signed++,
    });
    expect(outcome).toMatchObject({ kind: 'failed', reason: 'payee-uninitialised' });
    expect(outcome.kind === 'failed' && outcome.message).toMatch(/auth-transfer init/);
    expect(signed).toBe(0);
    expect(proxy.count('sendTransaction')).toBe(0);
    expect(devnet.balance(PAYER.account)).toBe(10_000n);
  });
});

// ---- a sequencer that is down or talks nonsense --------------------------------------------------------------------

describe.concurrent('LezRail on the devnet: sequencer down or answering garbage', () => {
  it('down from the start: a clear failure, at once, nothing signed', async ({ world }) => {
    const { devnet, proxy, rail: makeRail } = await world();
    await proxy.down();
    let signed = 0;
    const started = Date.now();
    const outcome = await makeRail().pay({
      paymentId: 'x',
      to: PAYEES[0]!.account,
      amount: 5n,
      onSigned: () => void signed++,
    });
    expect(outcome).toMatchObject({ kind: 'failed', reason: 'sequencer-unavailable' });
    expect(outcome.kind === 'failed' && outcome.message).toMatch(/unreachable/);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(signed).toBe(0);
    expect(devnet.balance(PAYER.account)).toBe(10_000n);
  });

  it('down after the payee was checked: the next payment fails unsigned; once back up, it pays once', async ({
    world,
  }) => {
    const { devnet, proxy, rail: makeRail } = await world();
    const rail = makeRail();
    paid(await rail.pay({ paymentId: 'first', to: PAYEES[0]!.account, amount: 5n }));
    await proxy.down();
    let signed = 0;
    const request = { paymentId: 'second', to: PAYEES[0]!.account, amount: 7n, onSigned: () => void signed++ };
    expect(await rail.pay(request)).toMatchObject({ kind: 'failed', reason: 'sequencer-unavailable' });
    expect(signed).toBe(0);
    expect(devnet.balance(PAYEES[0]!.account)).toBe(5n);

    await proxy.up();
    expect(paid(await rail.pay(request))).toMatchObject({ amount: '7', nonce: '1' });
    expect(signed).toBe(1);
    expect(devnet.balance(PAYEES[0]!.account)).toBe(12n);
  });

  it('garbage from the start: a clear failure, nothing signed', async ({ world }) => {
    const { devnet, proxy, rail: makeRail } = await world();
    proxy.behaviour = () => 'garbage';
    let signed = 0;
    const outcome = await makeRail().pay({
      paymentId: 'x',
      to: PAYEES[0]!.account,
      amount: 5n,
      onSigned: () => void signed++,
    });
    expect(outcome).toMatchObject({ kind: 'failed', reason: 'bad-response' });
    expect(signed).toBe(0);
    expect(devnet.balance(PAYER.account)).toBe(10_000n);
  });

  it('the sequencer took the transaction but its answer was lost: reconciled by nonce, paid once', async ({
    world,
  }) => {
    const { devnet, proxy, rail: makeRail } = await world();
    proxy.behaviour = (method) => (method === 'sendTransaction' ? 'forward-then-garbage' : 'pass');
    const records: RailPaymentRecord[] = [];
    const receipt = paid(
      await makeRail().pay({
        paymentId: 'x',
        to: PAYEES[0]!.account,
        amount: 5n,
        onSigned: (r) => void records.push(r),
      }),
    );
    expect(records.map((r) => r.txHash)).toEqual([receipt.txHash]);
    expect(proxy.count('getAccountsNonces')).toBeGreaterThan(0);
    expect(devnet.balance(PAYEES[0]!.account)).toBe(5n);
    expect(devnet.nonce(PAYER.account)).toBe(1n);
  });

  it('garbage for sendTransaction: in doubt, never re-signed, later payments wait unsigned; resume pays once', async ({
    world,
  }) => {
    const { devnet, proxy, rail: makeRail } = await world();
    const rail = makeRail({ inclusionTimeoutMs: 1_500 });
    proxy.behaviour = (method) => (method === 'sendTransaction' ? 'garbage' : 'pass');
    const records: RailPaymentRecord[] = [];
    const [first, second] = await Promise.all([
      rail.pay({ paymentId: 'first', to: PAYEES[0]!.account, amount: 5n, onSigned: (r) => void records.push(r) }),
      rail.pay({ paymentId: 'second', to: PAYEES[1]!.account, amount: 6n, onSigned: (r) => void records.push(r) }),
    ]);
    expect(first).toMatchObject({ kind: 'in-doubt', reason: 'bad-response' });
    expect(second).toMatchObject({ kind: 'failed', reason: 'timeout' });
    expect(records.map((r) => r.paymentId)).toEqual(['first']); // one signature, resent as the same bytes
    expect(proxy.count('sendTransaction')).toBeGreaterThan(1);
    expect(devnet.balance(PAYER.account)).toBe(10_000n);

    proxy.behaviour = () => 'pass';
    const receipt = paid(await rail.resume(stored(records[0]!)));
    expect(receipt.txHash).toBe(records[0]!.txHash);
    expect(paid(await rail.pay({ paymentId: 'second', to: PAYEES[1]!.account, amount: 6n }))).toMatchObject({
      nonce: '1',
    });
    expect(devnet.balance(PAYEES[0]!.account)).toBe(5n);
    expect(devnet.balance(PAYEES[1]!.account)).toBe(6n);
    expect(devnet.nonce(PAYER.account)).toBe(2n);
  });

  it('down between recording and submitting: the signed transfer is void, its nonce goes to the next payment', async ({
    world,
  }) => {
    const { devnet, proxy, rail: makeRail } = await world();
    proxy.keepAlive = false;
    const rail = makeRail();
    const records: RailPaymentRecord[] = [];
    const outcome = await rail.pay({
      paymentId: 'a',
      to: PAYEES[0]!.account,
      amount: 5n,
      onSigned: async (r) => {
        records.push(r);
        await proxy.down(); // the connection for sendTransaction is refused: it never reached a sequencer
      },
    });
    expect(outcome).toMatchObject({ kind: 'failed', reason: 'sequencer-unavailable' });
    expect(outcome.kind === 'failed' && outcome.message).toMatch(/void/);

    await proxy.up();
    const next = paid(
      await rail.pay({ paymentId: 'b', to: PAYEES[1]!.account, amount: 6n, onSigned: (r) => void records.push(r) }),
    );
    expect(next.nonce).toBe('0');
    // Even if a crashed gateway resumed the void record, it could no longer land.
    expect(await makeRail().resume(stored(records[0]!))).toMatchObject({ kind: 'failed', reason: 'superseded' });
    expect(devnet.balance(PAYEES[0]!.account)).toBe(0n);
    expect(devnet.balance(PAYEES[1]!.account)).toBe(6n);
  });

  it('a refused submission frees its nonce for the next payment: no gap, no reuse on chain', async ({ world }) => {
    const { devnet, proxy, rail: makeRail } = await world();
    let sends = 0;
    proxy.behaviour = (method) => (method === 'sendTransaction' && ++sends === 2 ? 'refuse' : 'pass');
    const records: RailPaymentRecord[] = [];
    const rail = makeRail();
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        rail.pay({ paymentId: `p${i}`, to: PAYEES[i % 4]!.account, amount: 1n, onSigned: (r) => void records.push(r) }),
      ),
    );
    const refused = outcomes.filter((o) => o.kind === 'failed');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ reason: 'rejected' });
    const nonces = outcomes.flatMap((o) => (o.kind === 'paid' ? [Number(o.receipt.nonce)] : [])).sort();
    expect(nonces).toEqual([0, 1, 2, 3]);
    // The refused payment's nonce went to the next payment, signed anew.
    const refusedRecord = records.find((r) => r.paymentId === refused[0]!.paymentId)!;
    expect(records.filter((r) => r.nonce === refusedRecord.nonce)).toHaveLength(2);
    expect(devnet.nonce(PAYER.account)).toBe(4n);
    expect(devnet.balance(PAYER.account)).toBe(9_996n);
  });
});

// ---- crashes and resume ------------------------------------------------------------------------------------------

describe.concurrent('LezRail on the devnet: resume after a crash', () => {
  it('closed while the record was being written: nothing is sent, the caller hears in-doubt, resume pays once', async ({
    world,
  }) => {
    const { devnet, proxy, rail: makeRail } = await world();
    const rail = makeRail();
    let record: unknown;
    let release!: () => void;
    const written = new Promise<void>((resolve) => (release = resolve));
    const pending = rail.pay({
      paymentId: 'a',
      to: PAYEES[0]!.account,
      amount: 8n,
      onSigned: (r) => ((record = stored(r)), written),
    });
    await eventually(() => record !== undefined || undefined);
    rail.close();
    release();
    expect(await pending).toMatchObject({ kind: 'in-doubt', reason: 'closed' });
    expect(proxy.count('sendTransaction')).toBe(0);
    expect(paid(await makeRail().resume(record)).amount).toBe('8');
    expect(devnet.balance(PAYEES[0]!.account)).toBe(8n);
  });

  it('killed between submitting and inclusion: the resumed record is paid once, whether or not a block came first', async ({
    world,
  }) => {
    const { devnet, proxy, rail: makeRail } = await world({ blockIntervalMs: 0 });
    const records: RailPaymentRecord[] = [];
    const first = makeRail();
    const pending = first.pay({
      paymentId: 'a',
      to: PAYEES[0]!.account,
      amount: 3n,
      onSigned: (r) => void records.push(r),
    });
    await eventually(() => devnet.mempoolSize() === 1 || undefined);
    first.close(); // the process dies; its transaction sits in the mempool
    expect(await pending).toMatchObject({ kind: 'in-doubt', reason: 'closed' });

    const second = makeRail();
    const resumed = second.resume(stored(records[0]!)); // resends the same bytes: a duplicate the sequencer ignores
    await eventually(() => proxy.answered.filter((m) => m === 'sendTransaction').length === 2 || undefined); // the sequencer has the resend
    devnet.produceBlock();
    expect(paid(await resumed).txHash).toBe(records[0]!.txHash);

    // Same story, but the block lands while the gateway is down.
    const third = makeRail();
    const pending2 = third.pay({
      paymentId: 'b',
      to: PAYEES[1]!.account,
      amount: 4n,
      onSigned: (r) => void records.push(r),
    });
    await eventually(() => devnet.mempoolSize() === 1 || undefined);
    third.close();
    await pending2;
    devnet.produceBlock();
    expect(paid(await makeRail().resume(stored(records[1]!))).nonce).toBe('1');

    expect(devnet.balance(PAYEES[0]!.account)).toBe(3n);
    expect(devnet.balance(PAYEES[1]!.account)).toBe(4n);
    expect(devnet.nonce(PAYER.account)).toBe(2n);
    expect(devnet.mempoolSize()).toBe(0);
  });

  it('killed after a submission that never arrived: resume sends the same bytes, paid once', async ({ world }) => {
    const { devnet, proxy, rail: makeRail } = await world();
    proxy.behaviour = (method) => (method === 'sendTransaction' ? 'drop' : 'pass');
    const records: RailPaymentRecord[] = [];
    const first = makeRail();
    const pending = first.pay({
      paymentId: 'a',
      to: PAYEES[0]!.account,
      amount: 9n,
      onSigned: (r) => void records.push(r),
    });
    await eventually(() => proxy.count('sendTransaction') > 0 || undefined);
    first.close();
    expect(await pending).toMatchObject({ kind: 'in-doubt' });
    expect(devnet.mempoolSize()).toBe(0);

    proxy.behaviour = () => 'pass';
    expect(paid(await makeRail().resume(stored(records[0]!))).txHash).toBe(records[0]!.txHash);
    expect(devnet.balance(PAYEES[0]!.account)).toBe(9n);
    expect(devnet.nonce(PAYER.account)).toBe(1n);
  });

  it('a record tampered in its network or its signed bytes is refused, and nothing is sent', async ({ world }) => {
    const { devnet, proxy, rail: makeRail } = await world();
    let record: RailPaymentRecord | undefined;
    await makeRail().pay({
      paymentId: 'a',
      to: PAYEES[0]!.account,
      amount: 10n,
      onSigned: (r) => ((record = r), Promise.reject(new Error('x'))),
    });
    const rail = makeRail();
    for (const bad of [
      { ...record!, network: 'elsewhere' },
      { ...record!, tx: 'AAAA' },
    ]) {
      expect(await rail.resume(bad)).toMatchObject({ kind: 'failed', reason: 'invalid-request' });
    }
    expect(proxy.count('sendTransaction')).toBe(0);
    expect(devnet.balance(PAYER.account)).toBe(10_000n);
  });
});

// ---- fees (lee-v0.3) ---------------------------------------------------------------------------------------------

describe('LezRail on a devnet with fees (lee-v0.3)', () => {
  const FEES: Partial<LezRailSettings> = { profile: 'lee-v0.3', gasLimit: 100, maxFee: '4000' };
  const WITH_FEES: DevnetOptions = { profile: 'lee-v0.3', transferGas: 10 };

  it.concurrent(
    'declares a fee within the cap, pays a payee never initialised, and the receipt keeps price and fee apart',
    async ({ world }) => {
      const { devnet, proxy, rail: makeRail } = await world(WITH_FEES);
      const rail = makeRail(FEES);
      expect(await rail.quote(25n)).toMatchObject({ kind: 'quoted', amount: '25', fee: '4000', total: '4025' });
      const receipt = paid(await rail.pay({ paymentId: 'task:fee', to: STRANGER.account, amount: 25n }));
      const sent = decodeBase64NssaTransaction(proxy.forwarded[0]!, 'lee-v0.3');
      if (!sent.ok || sent.value.kind !== 'public') throw new Error('not a public transaction');
      const fee = sent.value.transaction.message.fee!;
      const size = BigInt(Buffer.from(proxy.forwarded[0]!, 'base64').byteLength);
      // Declared at the next block's ceiling (9 per gas and per byte), within the cap of 4000.
      expect(fee).toMatchObject({ gasLimit: 100n, tip: 0n, maxFee: 100n * 9n + size * 9n });
      expect(receipt).toMatchObject({ amount: '25', maxFee: String(fee.maxFee), to: STRANGER.account });
      const charged = 10n * 8n + size * 8n;
      expect(await rail.balance()).toEqual({
        kind: 'ok',
        account: PAYER.account,
        balance: String(10_000n - 25n - charged),
      });
      expect(await rail.balance(STRANGER.account)).toMatchObject({ balance: '25' });
      expect(devnet.totalSupply()).toBe(devnet.genesis.reduce((sum, entry) => sum + entry.balance, 0n));
    },
  );

  it.concurrent('a fee above the cap: failed, nothing signed, nothing paid', async ({ world }) => {
    const { proxy, rail: makeRail } = await world(WITH_FEES);
    const rail = makeRail({ ...FEES, maxFee: '100' });
    const outcome = await rail.pay({ paymentId: 'task:dear', to: AGENT.account, amount: 25n });
    expect(outcome).toMatchObject({ kind: 'failed', reason: 'fee-above-cap' });
    if (outcome.kind === 'failed')
      expect(outcome.message).toMatch(/above the cap payments\.maxFee = 100; nothing was paid/);
    expect(proxy.count('sendTransaction')).toBe(0);
    expect(await rail.balance()).toMatchObject({ balance: '10000' });
  });

  it.concurrent(
    'fees that rose after the quote: the sequencer says max_fee is below the reserve, and the rail signs again under a fresh quote',
    async ({ world }) => {
      const { devnet, proxy, rail: makeRail } = await world(WITH_FEES);
      const rail = makeRail({ ...FEES, maxFee: '8000' });
      let raised = false;
      proxy.beforeForward = (method) => {
        if (method === 'sendTransaction' && !raised) {
          raised = true;
          devnet.setBaseFees(16n, 16n);
        }
      };
      const receipt = paid(await rail.pay({ paymentId: 'task:rise', to: AGENT.account, amount: 25n }));
      expect(proxy.count('sendTransaction')).toBe(2);
      expect(proxy.count('getFeeState')).toBe(2);
      const first = decodeBase64NssaTransaction(proxy.forwarded[0]!, 'lee-v0.3');
      const second = decodeBase64NssaTransaction(proxy.forwarded[1]!, 'lee-v0.3');
      if (!first.ok || !second.ok || first.value.kind !== 'public' || second.value.kind !== 'public')
        throw new Error('?');
      expect(second.value.transaction.message.fee!.maxFee).toBeGreaterThan(first.value.transaction.message.fee!.maxFee);
      expect(receipt.maxFee).toBe(String(second.value.transaction.message.fee!.maxFee));
    },
  );

  it.concurrent(
    'killed between recording and submitting: the resumed fee-bearing record pays once, its fee in the receipt',
    async ({ world }) => {
      const { devnet, proxy, rail: makeRail } = await world(WITH_FEES);
      let record: unknown;
      const crashed = await makeRail(FEES).pay({
        paymentId: 'task:k',
        to: AGENT.account,
        amount: 40n,
        onSigned: (r) => {
          record = stored(r);
          throw new Error('killed');
        },
      });
      expect(crashed).toMatchObject({ kind: 'failed', reason: 'record-failed' });
      expect(proxy.count('sendTransaction')).toBe(0);
      const restarted = makeRail(FEES);
      const resumed = paid(await restarted.resume(record));
      expect(resumed.txHash).toBe((record as RailPaymentRecord).txHash);
      expect(BigInt(resumed.maxFee!)).toBeGreaterThan(0n);
      expect(await makeRail(FEES).resume(record)).toEqual({ kind: 'paid', paymentId: 'task:k', receipt: resumed });
      expect(devnet.balance(AGENT.account)).toBe(20_040n);
      expect(devnet.nonce(PAYER.account)).toBe(1n);
      // A v0.2 rail cannot read a lee-v0.3 record: it is refused, never sent.
      expect(await makeRail().resume(record)).toMatchObject({ kind: 'failed', reason: 'invalid-request' });
    },
  );

  it.concurrent('a fee the sequencer refuses for good: a clear failure, nothing paid', async ({ world }) => {
    const { devnet, proxy, rail: makeRail } = await world(WITH_FEES);
    const rail = makeRail({ ...FEES, maxFee: '100000' });
    // Every quote is stale: each submission meets a higher fee, until the retries are spent.
    proxy.beforeForward = (method) => {
      if (method === 'sendTransaction') {
        const next = 8n + 2n * BigInt(proxy.count('sendTransaction'));
        devnet.setBaseFees(next, next);
      }
    };
    const outcome = await rail.pay({ paymentId: 'task:never', to: AGENT.account, amount: 25n });
    expect(outcome).toMatchObject({ kind: 'failed', reason: 'fee-rejected' });
    if (outcome.kind === 'failed')
      expect(outcome.message).toMatch(
        /refused the payment's fee: .*-31982.*max_fee \d+ below the fee reserve \d+; nothing was paid/,
      );
    expect(proxy.count('sendTransaction')).toBe(3);
    expect(await rail.balance()).toMatchObject({ balance: '10000' });
  });
});
