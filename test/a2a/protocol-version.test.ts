import { describe, expect, it } from 'vitest';
import { negotiateVersion } from '../../src/a2a/protocol-version.ts';

describe('A2A-Version negotiation', () => {
  it.each([
    [undefined, '0.3'],
    ['', '0.3'],
    ['  ', '0.3'],
    ['1.0', '1.0'],
    ['1.0.1', '1.0'],
    ['0.3', '0.3'],
    ['0.3.0', '0.3'],
  ])('%j → %s', (raw, version) => expect(negotiateVersion(raw)).toEqual({ ok: true, version }));

  it.each(['99.0', '2', 'latest', '1.1'])('%s is refused', (raw) =>
    expect(negotiateVersion(raw)).toEqual({ ok: false, requested: raw }),
  );

  it('the default for an absent version can be chosen per surface', () => {
    expect(negotiateVersion(undefined, '1.0')).toEqual({ ok: true, version: '1.0' });
  });
});
