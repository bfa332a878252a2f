/**
 * The block codec (common/src/block.rs layout) and the JSON-RPC envelope handling, without HTTP.
 */
import { describe, expect, it } from 'vitest';
import { hexToBytes } from '../../src/lez/bytes.ts';
import { buildNativeTransfer } from '../../src/lez/native-transfer.ts';
import { encodeNssaTransaction } from '../../src/lez/transaction.ts';
import {
  BLOCK_OVERHEAD_BYTES,
  blockHash,
  decodeBlock,
  encodeBlock,
  encodeHashableBlockData,
  type LezBlock,
} from '../../src/devnet/block-codec.ts';
import { DevnetChain } from '../../src/devnet/chain.ts';
import { DEVNET_GENESIS, resolveGenesis } from '../../src/devnet/genesis.ts';
import { DEVNET_PROGRAM_IDS } from '../../src/devnet/program-ids.ts';
import { handleRpcText } from '../../src/devnet/rpc.ts';

function transferBytes(nonce: bigint): Uint8Array {
  const built = buildNativeTransfer({
    programId: DEVNET_PROGRAM_IDS.authenticated_transfer,
    secretKey: hexToBytes(DEVNET_GENESIS[0].secretKeyHex, 32),
    to: new Uint8Array(32).fill(2),
    amount: 3n,
    nonce,
    mode: 'prehash-v0.3',
  });
  if (!built.ok) throw new Error(built.reason);
  return encodeNssaTransaction({ kind: 'public', transaction: built.transaction });
}

function block(transactions: Uint8Array[]): LezBlock {
  const data = {
    blockId: 7n,
    prevBlockHash: new Uint8Array(32).fill(1),
    timestampMs: 1_700_000_000_000n,
    transactions,
  };
  return {
    ...data,
    hash: blockHash(data),
    signature: new Uint8Array(64).fill(9),
    bedrockStatus: 'safe',
    bedrockParentId: new Uint8Array(32).fill(4),
  };
}

describe('block codec', () => {
  it('lays a block out as header ‖ body ‖ status ‖ parent id', () => {
    const empty = encodeBlock(block([]));
    expect(empty.byteLength).toBe(BLOCK_OVERHEAD_BYTES);
    expect([...empty.subarray(0, 8)]).toEqual([7, 0, 0, 0, 0, 0, 0, 0]); // block_id u64 LE
    expect(empty[8 + 32 + 32 + 8 + 64 + 4]).toBe(1); // BedrockStatus::Safe
    // The hash covers block_id ‖ prev ‖ timestamp ‖ transactions, not the header's own hash or signature.
    expect(encodeHashableBlockData(block([])).byteLength).toBe(8 + 32 + 8 + 4);
  });

  it('round-trips blocks of public transactions', () => {
    const txs = [transferBytes(0n), transferBytes(1n)];
    const decoded = decodeBlock(encodeBlock(block(txs)));
    if (!decoded.ok) throw new Error(decoded.reason);
    expect(decoded.value).toMatchObject({
      blockId: 7n,
      timestampMs: 1_700_000_000_000n,
      bedrockStatus: 'safe',
      transactions: txs,
    });
    expect(decoded.value.decodedTransactions.map((tx) => tx.kind)).toEqual(['public', 'public']);
  });

  it('refuses trailing bytes, truncation, hostile counts and unknown statuses', () => {
    const bytes = encodeBlock(block([transferBytes(0n)]));
    expect(decodeBlock(Uint8Array.from([...bytes, 0]))).toMatchObject({ ok: false });
    expect(decodeBlock(bytes.subarray(0, bytes.byteLength - 1))).toMatchObject({ ok: false });
    const hostile = bytes.slice(0, BLOCK_OVERHEAD_BYTES - 33);
    new DataView(hostile.buffer).setUint32(hostile.byteLength - 4, 0xffff_ffff, true);
    expect(decodeBlock(hostile)).toMatchObject({ ok: false });
    const badStatus = encodeBlock(block([]));
    badStatus[BLOCK_OVERHEAD_BYTES - 33] = 3;
    expect(decodeBlock(badStatus)).toMatchObject({ ok: false, reason: expect.stringContaining('bedrock_status') });
  });
});

describe('JSON-RPC envelopes', () => {
  const chain = new DevnetChain({
    signingMode: 'prehash-v0.3',
    admission: 'sequencer',
    limits: { maxTransactions: 10, maxBlockBytes: 1 << 20, nonceGapBlocks: 0 },
    mempoolMaxSize: 10,
    programIds: DEVNET_PROGRAM_IDS,
    genesis: resolveGenesis([], true),
    log: () => undefined,
    now: () => 0,
  });
  const call = (text: string) => handleRpcText(chain, text, () => undefined);

  it('echoes ids exactly, big ones included', () => {
    expect(call('{"jsonrpc":"2.0","id":18446744073709551615,"method":"getLastBlockId"}')).toBe(
      '{"jsonrpc":"2.0","id":18446744073709551615,"result":1}',
    );
    expect(call('{"jsonrpc":"2.0","id":null,"method":"checkHealth"}')).toBe(
      '{"jsonrpc":"2.0","id":null,"result":null}',
    );
    expect(call('{"jsonrpc":"2.0","id":18446744073709551616,"method":"checkHealth"}')).toContain('"code":-32600');
    expect(call('{"jsonrpc":"2.0","id":1.5,"method":"checkHealth"}')).toContain('"code":-32600');
  });

  it('writes accounts and nonces as serde_json does', () => {
    expect(call(`{"jsonrpc":"2.0","id":1,"method":"getAccount","params":["${DEVNET_GENESIS[1].account}"]}`)).toBe(
      `{"jsonrpc":"2.0","id":1,"result":{"program_owner":[${DEVNET_PROGRAM_IDS.authenticated_transfer.join(',')}],"balance":20000,"data":[],"nonce":0}}`,
    );
    expect(
      call(`{"jsonrpc":"2.0","id":1,"method":"getAccountsNonces","params":[["${DEVNET_GENESIS[0].account}"]]}`),
    ).toBe('{"jsonrpc":"2.0","id":1,"result":[0]}');
    expect(call('{"jsonrpc":"2.0","id":1,"method":"getProgramIds"}')).toMatch(
      /^\{"jsonrpc":"2.0","id":1,"result":\{"amm":.*"authenticated_transfer":.*"pinata":.*"privacy_preserving_circuit":.*"token":/,
    );
  });

  it('answers an unknown hash with null and an Unknown receipt', () => {
    const hash = 'ab'.repeat(32);
    expect(call(`{"jsonrpc":"2.0","id":1,"method":"getTransaction","params":["${hash.toUpperCase()}"]}`)).toBe(
      '{"jsonrpc":"2.0","id":1,"result":null}',
    );
    expect(call(`{"jsonrpc":"2.0","id":1,"method":"getTransactionReceipt","params":{"tx_hash":"${hash}"}}`)).toBe(
      `{"jsonrpc":"2.0","id":1,"result":{"tx_hash":"${hash}","status":"Unknown","timestamp_ms":null}}`,
    );
  });

  it('refuses batches over the limit', () => {
    const batch = JSON.stringify(
      Array.from({ length: 1001 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'checkHealth' })),
    );
    expect(call(batch)).toContain('"code":-32600');
  });
});
