/**
 * What the chain itself says was paid: native transfers read block by block over the sequencer's RPC, not from the
 * gateway's records, for tests that check every receipt against the money that moved.
 */
import { expect } from 'vitest';
import { decodeBlock } from '../../src/lez/block.ts';
import { readNativeTransfer } from '../../src/lez/native-transfer.ts';
import type { SequencerClient } from '../../src/lez/sequencer-client.ts';

export interface ChainTransfer {
  hash: string;
  from: string;
  to: string;
  amount: bigint;
  /** The sender's nonce the transfer took. */
  nonce: bigint;
}

/** Every native transfer between the two accounts, either way, in block order. */
export async function transfersBetween(sequencer: SequencerClient, a: string, b: string): Promise<ChainTransfer[]> {
  const programs = await sequencer.getProgramIds();
  const last = await sequencer.getLastBlockId();
  if (programs.kind !== 'result' || last.kind !== 'result') throw new Error('the sequencer does not answer');
  const transfers: ChainTransfer[] = [];
  for (let start = 1n; start <= last.value; start += 100n) {
    const end = start + 99n < last.value ? start + 99n : last.value;
    const blocks = await sequencer.getBlockRange(start, end);
    if (blocks.kind !== 'result') throw new Error(`getBlockRange(${start}, ${end}): ${blocks.kind}`);
    for (const bytes of blocks.value) {
      const block = decodeBlock(bytes, sequencer.layout);
      if (!block.ok) throw new Error(`a block does not decode: ${block.reason}`);
      expect(block.value.unreadTransactions).toBe(0);
      for (const tx of block.value.publicTransactions) {
        const transfer = readNativeTransfer(tx.transaction, programs.value.authenticated_transfer);
        if (!transfer.ok) continue;
        const { from, to, amount, nonce } = transfer;
        if ((from === a && to === b) || (from === b && to === a))
          transfers.push({ hash: tx.hash, from, to, amount, nonce });
      }
    }
  }
  return transfers;
}
