/**
 * The devnet's JSON-RPC envelope handling, without HTTP.
 */
import { describe, expect, it } from 'vitest';
import { DevnetChain } from '../../src/devnet/chain.ts';
import { DEVNET_GENESIS, resolveGenesis } from '../../src/devnet/genesis.ts';
import { DEVNET_PROGRAM_IDS } from '../../src/devnet/programs.ts';
import { handleRpcText } from '../../src/devnet/rpc.ts';

describe('JSON-RPC envelopes', () => {
  const chain = new DevnetChain({
    profile: 'v0.2',
    transferGas: 0n,
    signingMode: 'prehash-v0.3',
    finalityDepth: 2,
    serveReceipts: true,
    admission: 'sequencer',
    limits: { maxTransactions: 10, maxBlockBytes: 1 << 20, holdFutureNonces: false, nonceGapBlocks: 0 },
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
