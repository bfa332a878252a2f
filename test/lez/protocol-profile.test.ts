/** Choosing the protocol profile: the probe decides, a configured one must agree, and stands alone only when the probe could not tell. */
import { describe, expect, it } from 'vitest';
import { chooseProfile, probeProfile } from '../../src/lez/protocol-profile.ts';

const URL = 'http://127.0.0.1:3040';

describe('chooseProfile', () => {
  it('takes what the probe found, and says why', () => {
    const choice = chooseProfile(
      { kind: 'detected', profile: 'lee-v0.3', evidence: 'it answers getFeeState' },
      undefined,
      URL,
    );
    expect(choice).toEqual({
      ok: true,
      profile: 'lee-v0.3',
      note: `the sequencer at ${URL} speaks LEZ protocol profile lee-v0.3 (it answers getFeeState)`,
    });
  });

  it('a configured profile the sequencer contradicts stops the start with one line', () => {
    const choice = chooseProfile(
      { kind: 'detected', profile: 'v0.2', evidence: 'it does not know getFeeState (-32601)' },
      'lee-v0.3',
      URL,
    );
    expect(choice.ok).toBe(false);
    if (choice.ok) return;
    expect(choice.message).toBe(
      `payments.profile is "lee-v0.3", but the sequencer at ${URL} speaks v0.2 (it does not know getFeeState (-32601)); remove the setting or correct it.`,
    );
    expect(choice.message).not.toContain('\n');
  });

  it('without an answer: the configured profile, or a refusal', () => {
    const unknown = { kind: 'unknown', message: 'connection refused' } as const;
    expect(chooseProfile(unknown, 'v0.2', URL)).toMatchObject({ ok: true, profile: 'v0.2' });
    expect(chooseProfile(unknown, undefined, URL)).toMatchObject({ ok: false });
  });
});

describe('probeProfile', () => {
  it('-32601 is v0.2, a quote is lee-v0.3, anything else tells nothing', async () => {
    const answering = (outcome: Awaited<ReturnType<Parameters<typeof probeProfile>[0]['getFeeState']>>) => ({
      getFeeState: async () => outcome,
    });
    expect(
      await probeProfile(answering({ kind: 'rpc-error', code: -32601, message: 'Method not found' })),
    ).toMatchObject({
      profile: 'v0.2',
    });
    expect(await probeProfile(answering({ kind: 'unreachable', message: 'refused', timedOut: false }))).toMatchObject({
      kind: 'unknown',
    });
    expect(await probeProfile(answering({ kind: 'rpc-error', code: -32000, message: 'busy' }))).toMatchObject({
      kind: 'unknown',
    });
  });
});
