/**
 * The SDK's codecs assume well-formed JSON shapes and throw TypeErrors on, say, a `null` part, which would surface
 * as internal errors. The shape of a send's params is checked first, so a client mistake gets a client error.
 */
import { isPlainObject } from '../json-object.ts';

/** What is wrong with SendMessage / message/send params, or undefined when their shape is usable. */
export function sendParamsProblem(params: unknown): string | undefined {
  if (!isPlainObject(params)) return 'params must be an object with a message';
  const { message, configuration, metadata } = params;
  if (!isPlainObject(message)) return 'params.message must be an object';
  if (!Array.isArray(message.parts)) return 'message.parts must be an array';
  const bad = message.parts.findIndex((part) => !isPlainObject(part));
  if (bad !== -1) return `message.parts[${bad}] must be an object (one of text, raw, url or data)`;
  if (message.metadata !== undefined && !isPlainObject(message.metadata)) return 'message.metadata must be an object';
  if (configuration !== undefined && !isPlainObject(configuration)) return 'params.configuration must be an object';
  if (metadata !== undefined && !isPlainObject(metadata)) return 'params.metadata must be an object';
  const historyLength = isPlainObject(configuration) ? configuration.historyLength : undefined;
  if (historyLength !== undefined && !(Number.isInteger(historyLength) && (historyLength as number) >= 0)) {
    return 'configuration.historyLength must be a whole number, 0 or more';
  }
  return undefined;
}

export const SEND_METHODS = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']);
