/**
 * A request's text, carried once (docs/binding.md §4.8, `text_in_params`). `params.text` is the texts of the caller's
 * text parts joined with "\n" (§7.1), and `message` carries the same parts again: a long text would travel twice and
 * fit one Logos message only at half its size. When a request does not fit whole, the gateway sends the text parts
 * of `message` with their text left out and says so; the agent's runtime puts them back from `params.text` before a
 * skill sees the message. Requests that fit go as before, so an agent that reads `message` alone still gets them.
 */
import { isPlainObject } from '../json-object.ts';
import { encodeOwn } from './envelope.ts';

interface CarriesMessage {
  type: 'task_request' | 'task_input';
  params: Record<string, unknown>;
  message?: Record<string, unknown> | undefined;
  text_in_params?: true | undefined;
}

const textParts = (message: Record<string, unknown>): Record<string, unknown>[] =>
  (Array.isArray(message.parts) ? message.parts : []).filter(
    (part): part is Record<string, unknown> => isPlainObject(part) && typeof part.text === 'string',
  );

/**
 * The envelope as sent and its bytes: whole when it fits `maxBytes`, else with its message's text left to
 * `params.text` when that can be undone exactly (the parts' texts joined are `params.text`, and there is one text
 * part or none holds a line break to split at); else whole, for the caller to refuse as too large.
 */
export function fittingText<T extends CarriesMessage>(envelope: T, maxBytes: number): Encoded<T> {
  const whole = encoded(envelope);
  const message = envelope.message;
  if (whole.bytes.byteLength <= maxBytes || !message) return whole;
  const texts = textParts(message).map((part) => part.text as string);
  const splittable = texts.length === 1 || (texts.length > 1 && texts.every((text) => !text.includes('\n')));
  if (!splittable || envelope.params.text !== texts.join('\n')) return whole;
  const parts = (message.parts as unknown[]).map((part) =>
    isPlainObject(part) && typeof part.text === 'string' ? { ...part, text: '' } : part,
  );
  return encoded({ ...envelope, message: { ...message, parts }, text_in_params: true });
}

interface Encoded<T> {
  envelope: T;
  json: string;
  bytes: Uint8Array;
}

function encoded<T extends CarriesMessage>(envelope: T): Encoded<T> {
  const json = JSON.stringify(envelope);
  return { envelope, json, bytes: encodeOwn(envelope, json) };
}

/** The envelope with its message whole again: the text parts' texts taken back from `params.text`. */
export function withMessageText<T extends CarriesMessage>(envelope: T): T {
  if (!('text_in_params' in envelope)) return envelope; // sent whole, as nearly every request is
  const { text_in_params: textInParams, ...rest } = envelope;
  const message = envelope.message;
  if (!textInParams || !message || typeof envelope.params.text !== 'string') return rest as unknown as T;
  const texts = envelope.params.text.split('\n');
  const count = textParts(message).length;
  let next = 0;
  const parts = (message.parts as unknown[]).map((part) => {
    if (!isPlainObject(part) || typeof part.text !== 'string') return part;
    // One text part takes the whole text, line breaks and all; several take a line each.
    const text = count === 1 ? (envelope.params.text as string) : (texts[next] ?? '');
    next++;
    return { ...part, text };
  });
  return { ...rest, message: { ...message, parts } } as unknown as T;
}
