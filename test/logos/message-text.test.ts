/** A request's text carried once when it would not fit twice (docs/binding.md §4.8 `text_in_params`), and put back. */
import { describe, expect, it } from 'vitest';
import { fittingText, withMessageText } from '../../src/logos/message-text.ts';

const request = (
  texts: string[],
  params: Record<string, unknown> = { text: texts.join('\n') },
): {
  type: 'task_request';
  params: Record<string, unknown>;
  message: { messageId: string; role: string; parts: unknown[] };
  text_in_params?: true;
} => ({
  type: 'task_request',
  params,
  message: { messageId: 'm1', role: 'ROLE_USER', parts: [...texts.map((text) => ({ text })), { data: { a: 1 } }] },
});
const sizeOf = (envelope: unknown) => new TextEncoder().encode(JSON.stringify(envelope)).byteLength;

describe('fittingText', () => {
  it('sends a request that fits whole, as before', () => {
    const whole = request(['hello\nworld']);
    const { envelope, json, bytes } = fittingText(whole, 10_000);
    expect(envelope).toBe(whole);
    expect(json).toBe(JSON.stringify(whole));
    expect(bytes.byteLength).toBe(sizeOf(whole));
  });

  it('leaves the text to params.text when twice does not fit, and the runtime puts it back', () => {
    for (const texts of [['a\nlong\ntext'.repeat(50)], ['one'.repeat(100), '', 'three'.repeat(100)]]) {
      const whole = request(texts);
      const { envelope, bytes } = fittingText(whole, sizeOf(whole) - 1);
      expect(envelope.text_in_params).toBe(true);
      expect(envelope.message.parts.slice(0, texts.length)).toEqual(texts.map(() => ({ text: '' })));
      expect(envelope.message.parts.at(-1)).toEqual({ data: { a: 1 } });
      expect(bytes.byteLength).toBe(sizeOf(envelope));
      // Saved: the texts, less the flag's own bytes.
      expect(sizeOf(whole) - bytes.byteLength).toBe(
        JSON.stringify(texts).length - 2 - texts.length * 2 - (texts.length - 1) - ',"text_in_params":true'.length,
      );
      const restored = withMessageText(JSON.parse(new TextDecoder().decode(bytes)) as typeof envelope);
      expect(restored).toEqual(whole);
    }
  });

  it('keeps the text twice when params.text is not the parts joined, or several parts hold line breaks', () => {
    for (const whole of [
      request(['x'.repeat(500)], { text: 'from a data part' }),
      request(['a\nb'.repeat(100), 'c'.repeat(300)]),
    ]) {
      expect(fittingText(whole, 100).envelope).toBe(whole);
    }
  });
});

it('withMessageText leaves an envelope without the flag as it is', () => {
  const whole = request(['hi']);
  expect(withMessageText(whole)).toEqual(whole);
});
