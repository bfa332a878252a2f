/** The seed's dialect, field by field: prices, cards, replies in, requests out. */
import { describe, expect, it } from 'vitest';
import { LogosAgentCard } from '../../src/logos/card.ts';
import {
  decodeSeedReply,
  dialectOf,
  fromSeedCard,
  isSeedCard,
  lezToBaseUnits,
  seedReplyTaskId,
  seedRequestPayload,
  seedStatusTopic,
} from '../../src/logos/seed-dialect.ts';
import { contentTopicToShardIndex } from '@waku/utils';
import { minimalCard } from '../support/cards.ts';
import { seedCard } from '../support/seed-agent.ts';

const bytes = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
const MAX = 1024 * 1024;

describe('decimal LEZ prices', () => {
  it('whole amounts map to base units (LEZ has no decimals), with any number of zero decimals', () => {
    expect(lezToBaseUnits('5.0')).toEqual({ ok: true, units: '5' });
    expect(lezToBaseUnits('5')).toEqual({ ok: true, units: '5' });
    expect(lezToBaseUnits('0.000')).toEqual({ ok: true, units: '0' });
    expect(lezToBaseUnits('340282366920938463463374607431768211455.0')).toEqual({
      ok: true,
      units: '340282366920938463463374607431768211455',
    });
  });

  it('a fraction of a base unit is refused, saying why', () => {
    const half = lezToBaseUnits('5.5');
    expect(half).toEqual({ ok: false, reason: expect.stringMatching(/5\.5 LEZ is not a whole number of base units/) });
    expect(lezToBaseUnits('0.001')).toMatchObject({ ok: false });
  });

  it('anything but a plain decimal string is refused', () => {
    for (const bad of ['-1', '1e3', '0x10', ' 5', '5.', '.5', '', '5,0'])
      expect(lezToBaseUnits(bad), bad).toMatchObject({ ok: false });
    expect(lezToBaseUnits(5)).toMatchObject({ ok: false, reason: expect.stringContaining('decimal string') });
    expect(lezToBaseUnits('340282366920938463463374607431768211456')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('u128'),
    });
  });
});

describe('seed cards', () => {
  it('the seed document’s card maps to a valid canonical card that remembers its dialect', () => {
    const seed = seedCard('waku:02abc', '5.0');
    expect(isSeedCard(seed)).toBe(true);
    const mapped = fromSeedCard(seed);
    expect(mapped.ok).toBe(true);
    const card = LogosAgentCard.parse((mapped as { card: unknown }).card);
    expect(card.id).toMatch(/^logos-agent-[0-9a-f]{32}$/);
    expect(seed.id).toContain(card.id.slice('logos-agent-'.length));
    expect(card).toMatchObject({ description: '', version: 'unspecified', name: 'Seed Agent' });
    expect(card.agentInterfaces).toEqual([{ type: 'logos-messaging', version: 'seed', address: 'waku:02abc' }]);
    expect(card.skills.map((s) => s['x-lez-price'])).toEqual([
      '0',
      undefined,
      undefined,
      undefined,
      undefined,
      '5',
      undefined,
    ]);
    expect(card['x-lez-price']).toBe('0');
    // The seed's account is hex, not a LEZ account id: nothing to pay to.
    expect(card['x-lez-identity']).toBeUndefined();
    expect(dialectOf(card)).toBe('seed');
    expect(dialectOf(minimalCard({ id: 'canonical' }))).toBe('binding');
  });

  it('a LEZ account id in x-lez-identity is kept', () => {
    const account = '2RHZhw9h534Zr3eq2RGhQete2Hh667foECzXPmSkGni2';
    const mapped = fromSeedCard({ ...seedCard('a'), 'x-lez-identity': { npk: 'ab', account_id: account } });
    expect(mapped).toMatchObject({ ok: true, card: { 'x-lez-identity': { account_id: account } } });
  });

  it('a fractional price, on the card or a skill, refuses the card with the field and the reason', () => {
    expect(fromSeedCard(seedCard('a', '2.25'))).toEqual({
      ok: false,
      reason: 'bad-price',
      message: expect.stringMatching(/^skills\.5\.x-lez-price: 2\.25 LEZ is not a whole number/),
    });
    expect(fromSeedCard({ ...seedCard('a'), 'x-lez-price': '0.1' })).toMatchObject({
      reason: 'bad-price',
      message: expect.stringMatching(/^x-lez-price:/),
    });
  });

  it('a card without a Logos interface, or with a bad logos-agent id, is malformed', () => {
    expect(
      fromSeedCard({ ...seedCard('a'), agentInterfaces: [{ type: 'a2a', transport: 'http', address: 'x' }] }),
    ).toMatchObject({ ok: false, reason: 'malformed', message: expect.stringContaining('agentInterfaces') });
    expect(fromSeedCard({ ...seedCard('a'), id: 'logos-agent:nothex' })).toMatchObject({
      ok: false,
      reason: 'malformed',
      message: expect.stringContaining('hex'),
    });
  });

  it('this binding’s own cards are not seed cards', () => {
    expect(isSeedCard(minimalCard({ id: 'x' }))).toBe(false);
    expect(isSeedCard('a string')).toBe(false);
  });
});

describe('seed replies', () => {
  const decode = (value: unknown, seq = 1) => decodeSeedReply(bytes(value), MAX, seq);

  it('task_status, task_result and cancelled become numbered replies of this binding', () => {
    expect(decode({ type: 'task_status', task_id: 't', state: 'working' }, 3)).toMatchObject({
      ok: true,
      envelope: { v: 1, type: 'task_status', task_id: 't', state: 'working', seq: 3 },
    });
    expect(decode({ type: 'task_result', task_id: 't', state: 'completed', result: { n: 1 } })).toMatchObject({
      ok: true,
      envelope: { type: 'task_result', state: 'completed', result: { n: 1 } },
    });
    expect(decode({ type: 'cancelled', task_id: 't' })).toMatchObject({ ok: true, envelope: { type: 'cancelled' } });
  });

  it('a string error becomes {code: agent_error, message}; a task_result without state is read from its fields', () => {
    expect(decode({ type: 'task_result', task_id: 't', state: 'failed', error: 'no disk' })).toMatchObject({
      envelope: { type: 'task_result', state: 'failed', error: { code: 'agent_error', message: 'no disk' } },
    });
    expect(decode({ type: 'task_result', task_id: 't', error: 'no disk' })).toMatchObject({
      envelope: { state: 'failed', error: { message: 'no disk' } },
    });
    expect(decode({ type: 'task_result', task_id: 't', result: 'ok' })).toMatchObject({
      envelope: { state: 'completed', result: 'ok' },
    });
  });

  it('the answer to task_get, {task_id, state, result_or_error}, is read by its state', () => {
    expect(decode({ task_id: 't', state: 'completed', result_or_error: 'done' })).toMatchObject({
      envelope: { type: 'task_result', state: 'completed', result: 'done' },
    });
    expect(decode({ task_id: 't', state: 'failed', result_or_error: 'broke' })).toMatchObject({
      envelope: { type: 'task_result', state: 'failed', error: { code: 'agent_error', message: 'broke' } },
    });
    expect(decode({ task_id: 't', state: 'input-required' })).toMatchObject({
      envelope: { type: 'task_status', state: 'input-required' },
    });
    expect(decode({ task_id: 't', state: 'cancelled' })).toMatchObject({ envelope: { type: 'cancelled' } });
  });

  it('a reply naming a price that is no whole number of base units fails the task, saying so', () => {
    expect(decode({ type: 'task_result', task_id: 't', state: 'completed', lez_price: '0.5' })).toMatchObject({
      ok: true,
      envelope: {
        type: 'task_result',
        state: 'failed',
        error: { code: 'bad_price', message: expect.stringContaining('lez_price "0.5"') },
      },
    });
    expect(decode({ type: 'task_result', task_id: 't', state: 'completed', lez_price: '5.0' })).toMatchObject({
      envelope: { state: 'completed' },
    });
  });

  it('what is not a seed reply is refused, with the reason', () => {
    expect(decode({ type: 'task_status', task_id: 't' })).toMatchObject({ ok: false, reason: 'invalid' });
    expect(decode({ type: 'task_request', task_id: 't' })).toMatchObject({ ok: false, reason: 'invalid' });
    expect(decode({ task_id: 't', state: 'sleeping' })).toMatchObject({ ok: false, reason: 'invalid' });
    expect(decodeSeedReply(bytes('{not json'), MAX, 1)).toMatchObject({ ok: false, reason: 'not-json' });
    expect(decodeSeedReply(bytes({ task_id: 't' }), 5, 1)).toMatchObject({ ok: false, reason: 'too-large' });
    expect(seedReplyTaskId(bytes({ task_id: 'abc' }), MAX)).toBe('abc');
    expect(seedReplyTaskId(bytes('[1]'), MAX)).toBeUndefined();
  });
});

describe('requests to a seed agent', () => {
  const task = { skill: 'echo', params: { text: 'hi' }, lez_price: '5' };
  const sent = (envelope: Record<string, unknown>) =>
    JSON.parse(new TextDecoder().decode(seedRequestPayload(bytes(envelope), task)));

  it('carry every seed field and nothing of this binding', () => {
    const request = {
      v: 1,
      id: 'm1',
      type: 'task_request',
      task_id: 't',
      from: 'waku:gw',
      status_key: 'k'.repeat(43),
      context_id: 'c',
      ...task,
      message: {},
    };
    expect(sent(request)).toEqual({
      type: 'task_request',
      task_id: 't',
      skill: 'echo',
      params: { text: 'hi' },
      lez_price: '5',
    });
    expect(sent({ v: 1, id: 'm2', type: 'task_get', task_id: 't', after_seq: 2 })).toEqual({
      type: 'task_get',
      task_id: 't',
      skill: 'echo',
      params: {},
      lez_price: '5',
    });
    expect(sent({ v: 1, id: 'm3', type: 'cancel', task_id: 't' })).toMatchObject({ type: 'cancel', params: {} });
  });

  it('the seed’s status topic is a content topic Waku autosharding accepts', () => {
    expect(seedStatusTopic('0b6f')).toBe('/agent-task/1/0b6f/json');
    expect(() => contentTopicToShardIndex(seedStatusTopic('7c1e'), 8)).not.toThrow();
  });
});
