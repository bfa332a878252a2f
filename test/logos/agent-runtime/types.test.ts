/** The options a built-in agent gives the runtime: it announces when it can sign its card, unless told otherwise. */
import { describe, expect, it } from 'vitest';
import { builtinOptions } from '../../../src/logos/agent-runtime/types.ts';

describe('builtinOptions', () => {
  it('announces with a card key and stays quiet without one, unless announce says otherwise', () => {
    const cardKey = new Uint8Array(32).fill(1);
    expect(builtinOptions({ cardKey })).toEqual({ cardKey, announce: true });
    expect(builtinOptions({})).toEqual({ announce: false });
    expect(builtinOptions({ announce: true })).toEqual({ announce: true });
    expect(builtinOptions({ cardKey, announce: false })).toEqual({ cardKey, announce: false });
  });

  it('passes on the discovery topic and announce interval only when given', () => {
    expect(builtinOptions({ discoveryTopic: '/t/1/x/proto', announceEveryMs: 1_000 })).toEqual({
      discoveryTopic: '/t/1/x/proto',
      announceEveryMs: 1_000,
      announce: false,
    });
  });
});
