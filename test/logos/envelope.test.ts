import { describe, expect, it } from 'vitest';
import { newStatusKey, statusKeyBytes } from '../../src/logos/status-key.ts';
import {
  decodeAgentEnvelope,
  decodeGatewayEnvelope,
  encodeEnvelope,
  encodeOwn,
  taskStatusTopic,
} from '../../src/logos/envelope.ts';
import { copyPayload } from '../../src/logos/vouched-bytes.ts';

const status = { v: 1, id: 'e1', task_id: 't1', seq: 1, type: 'task_status', state: 'working' } as const;

describe('binding envelopes', () => {
  it('round-trip through bytes', () => {
    const decoded = decodeAgentEnvelope(encodeEnvelope(status));
    expect(decoded).toEqual({ ok: true, envelope: status });
  });

  it('drop oversized, non-JSON and invalid payloads with a reason', () => {
    expect(decodeAgentEnvelope(encodeEnvelope(status), 10)).toMatchObject({ ok: false, reason: 'too-large' });
    expect(decodeAgentEnvelope(new TextEncoder().encode('{nope'))).toMatchObject({ ok: false, reason: 'not-json' });
    expect(decodeAgentEnvelope(new Uint8Array([0xff, 0xfe]))).toMatchObject({ ok: false, reason: 'not-json' });
    expect(decodeAgentEnvelope(encodeEnvelope({ ...status, seq: 0 }))).toMatchObject({ ok: false, reason: 'invalid' });
    expect(decodeAgentEnvelope(encodeEnvelope({ ...status, v: 2 } as never))).toMatchObject({
      ok: false,
      reason: 'invalid',
    });
    // A terminal state travels only in task_result / cancelled, never in a status.
    expect(decodeAgentEnvelope(encodeEnvelope({ ...status, state: 'completed' } as never))).toMatchObject({
      ok: false,
      reason: 'invalid',
    });
  });

  it('keep the two directions apart', () => {
    expect(decodeGatewayEnvelope(encodeEnvelope(status))).toMatchObject({ ok: false });
    const request = {
      v: 1,
      id: 'r',
      task_id: 't',
      from: 'gw',
      to: 'agent',
      status_key: newStatusKey(),
      type: 'task_request',
      context_id: 'c',
      skill: 's',
      params: {},
    } as const;
    expect(decodeGatewayEnvelope(encodeEnvelope(request))).toEqual({
      ok: true,
      envelope: { ...request, lez_price: '0' },
    });
  });

  it('derive the status topic as a valid autosharding content topic', () => {
    expect(taskStatusTopic('abc-123')).toMatch(/^\/[^/]+\/\d+\/[^/]+\/[^/]+$/);
  });
});

describe('envelopes this process encoded (encodeOwn)', () => {
  const request = {
    v: 1,
    id: 'r',
    task_id: 't',
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    from: 'gw',
    to: 'agent',
    status_key: newStatusKey(),
    type: 'task_request',
    context_id: 'c',
    skill: 's',
    params: { text: 'hi', nested: { deep: [1, 'two'] } },
    lez_price: '0',
    message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
  } as const;
  const result = {
    v: 1,
    id: 'e',
    task_id: 't',
    seq: 2,
    type: 'task_result',
    state: 'completed',
    result: 'hi',
  } as const;
  // The schema's answer for the same bytes: a copy made here is not vouched for.
  const bySchema = (bytes: Uint8Array) => new Uint8Array(bytes);

  it('decode as the schema would, into a fresh object, and keep that through a transport copy', () => {
    for (const [envelope, decode] of [
      [request, decodeGatewayEnvelope],
      [result, decodeAgentEnvelope],
      [{ ...status, message: 'working on it' }, decodeAgentEnvelope],
    ] as const) {
      const bytes = copyPayload(encodeOwn(envelope as { type: string }));
      const decoded = decode(bytes);
      expect(decoded).toEqual(decode(bySchema(bytes)));
      expect(decoded).toEqual({ ok: true, envelope });
      expect(decode(bytes)).not.toBe(decoded);
      expect((decode(bytes) as { envelope: unknown }).envelope).not.toBe((decoded as { envelope: unknown }).envelope);
    }
  });

  it('are still refused by the other direction, and over the size limit', () => {
    expect(decodeGatewayEnvelope(encodeOwn(result))).toMatchObject({ ok: false, reason: 'invalid' });
    expect(decodeAgentEnvelope(encodeOwn(request))).toMatchObject({ ok: false, reason: 'invalid' });
    expect(decodeGatewayEnvelope(encodeOwn(request), 10)).toMatchObject({ ok: false, reason: 'too-large' });
  });

  it('are refused as the schema refuses them when a field is out of its bounds or pattern', () => {
    // Such values reach an envelope from outside this module (a hiring agent's context id, a card's skill id, a
    // task id from a custom generator): an in-process agent must drop what a Waku peer would.
    const cases = [
      [{ ...request, context_id: '' }, decodeGatewayEnvelope],
      [{ ...request, context_id: 'c'.repeat(300) }, decodeGatewayEnvelope],
      [{ ...request, skill: 's'.repeat(300) }, decodeGatewayEnvelope],
      [{ ...request, task_id: 't'.repeat(200) }, decodeGatewayEnvelope],
      [{ ...request, status_key: 'nope' }, decodeGatewayEnvelope],
      [{ ...request, traceparent: 'zz' }, decodeGatewayEnvelope],
      [{ ...request, lez_price: '-1' }, decodeGatewayEnvelope],
      [{ ...result, seq: 0 }, decodeAgentEnvelope],
      [{ ...result, state: 'working' }, decodeAgentEnvelope],
    ] as const;
    for (const [envelope, decode] of cases) {
      expect(decode(copyPayload(encodeOwn(envelope)))).toMatchObject({ ok: false, reason: 'invalid' });
    }
  });

  it('go through the schema when it would change them: a default to fill, a field to strip, nested objects', () => {
    const { lez_price: _price, ...unpriced } = request;
    const cases = [
      [unpriced, decodeGatewayEnvelope],
      [{ ...request, extra: 1 }, decodeGatewayEnvelope],
      [{ ...request, params: JSON.parse('{"__proto__": {"a": 1}, "text": "hi"}') }, decodeGatewayEnvelope],
      [{ ...result, artifacts: [{ artifact_id: 'a', parts: [{ text: 'x', extra: 1 }] }] }, decodeAgentEnvelope],
      [{ ...result, message: { parts: [{ text: 'x', extra: 1 }] } }, decodeAgentEnvelope],
      [{ ...result, error: { code: 'c', message: 'm', extra: 1 } }, decodeAgentEnvelope],
    ] as const;
    for (const [envelope, decode] of cases) {
      const bytes = encodeOwn(envelope);
      const decoded = decode(bytes);
      expect(decoded).toEqual(decode(bySchema(bytes)));
      expect(decoded).not.toEqual({ ok: true, envelope: JSON.parse(JSON.stringify(envelope)) });
    }
  });
});

describe('status keys', () => {
  it('are 32 fresh bytes each, in base64url', () => {
    const keys = new Set(Array.from({ length: 600 }, () => newStatusKey()));
    expect(keys.size).toBe(600);
    for (const key of keys) expect(statusKeyBytes(key)).toHaveLength(32);
  });

  it('requests without a well-formed status key are refused', () => {
    const request = {
      v: 1,
      id: 'r',
      task_id: 't',
      from: 'gw',
      to: 'agent',
      status_key: 'short',
      type: 'cancel',
    } as const;
    expect(decodeGatewayEnvelope(encodeEnvelope(request))).toMatchObject({ ok: false, reason: 'invalid' });
  });
});
