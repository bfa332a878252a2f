/** The client-pays extension's two messages: the payment request, and the client's answer read back. */
import { describe, expect, it } from 'vitest';
import { CLIENT_PAYS_EXTENSION, clientPaymentOf, clientPaymentRequest } from '../../src/bridge/client-pays.ts';

const HASH = 'd848935604249eae042a3a2e3977f1a58b220c63ae410b9b8a3e4bf91af12c8c';

describe('client pays', () => {
  it('asks for the price, to the agent, on the rail', () => {
    const request = clientPaymentRequest({ taskId: 't', rail: 'lez', payTo: 'agent', amount: '25' });
    expect(request.parts[0]).toEqual({ text: expect.stringMatching(/^This task costs 25 LEZ: pay agent and answer/) });
    expect(request.metadata).toEqual({
      'lez.payment.status': 'payment-required',
      'lez.payment.required': {
        rail: 'lez',
        payTo: 'agent',
        amount: '25',
        taskId: 't',
        extension: CLIENT_PAYS_EXTENSION,
      },
    });
    const again = clientPaymentRequest(
      { taskId: 't', rail: 'lez', payTo: 'agent', amount: '25' },
      'It did not verify.',
    );
    expect(again.metadata?.['lez.payment.status']).toBe('payment-rejected');
    expect(again.parts[0]).toEqual({ text: expect.stringMatching(/^It did not verify\. This task costs/) });
  });

  it('reads the client’s transaction and account, and nothing else', () => {
    expect(clientPaymentOf({ 'lez.payment.payload': { txHash: HASH, from: 'client', extra: 1 } })).toEqual({
      txHash: HASH,
      from: 'client',
    });
    for (const payload of [
      undefined,
      null,
      'x',
      [HASH, 'client'],
      { txHash: HASH.toUpperCase(), from: 'client' },
      { txHash: HASH, from: '' },
      { txHash: HASH, from: 'x'.repeat(129) },
      { txHash: HASH },
    ]) {
      expect(clientPaymentOf({ 'lez.payment.payload': payload })).toBeUndefined();
    }
    expect(clientPaymentOf(undefined)).toBeUndefined();
  });
});
