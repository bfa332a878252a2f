import { describe, expect, it } from 'vitest';
import { newStatusKey, statusKeyBytes } from '../../src/logos/status-key.ts';
import {
  decodeAgentEnvelope,
  decodeGatewayEnvelope,
  encodeEnvelope,
  taskStatusTopic,
} from '../../src/logos/envelope.ts';

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
