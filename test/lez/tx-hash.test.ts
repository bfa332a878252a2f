/** The one definition of a tx hash as text: either case read, lowercase kept; lowercase only on the binding's wire. */
import { describe, expect, it } from 'vitest';
import { isTxHash, LowercaseTxHash, TxHash } from '../../src/lez/tx-hash.ts';

const HASH = 'd848935604249eae042a3a2e3977f1a58b220c63ae410b9b8a3e4bf91af12c8c';

describe('tx hashes', () => {
  it('reads either case and keeps lowercase', () => {
    expect(TxHash.parse(HASH.toUpperCase())).toBe(HASH);
    expect(isTxHash(HASH.toUpperCase())).toBe(true);
  });

  it('refuses anything but 64 hex characters', () => {
    for (const text of ['', HASH.slice(1), `${HASH}0`, `${HASH.slice(1)}g`, ` ${HASH.slice(1)}`]) {
      expect(TxHash.safeParse(text).success).toBe(false);
      expect(isTxHash(text)).toBe(false);
    }
  });

  it('takes only lowercase where the wire says so', () => {
    expect(LowercaseTxHash.parse(HASH)).toBe(HASH);
    expect(LowercaseTxHash.safeParse(HASH.toUpperCase()).success).toBe(false);
  });
});
