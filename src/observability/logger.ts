/**
 * JSON logs (pino), one object a line on stdout. Every line carries the ids of its log context (log-context.ts)
 * and the active trace's ids. Secrets never reach the output: values under the paths below are censored, and
 * anything that reaches a message string is scrubbed of bearer tokens and of the configured secrets themselves
 * (API keys, the admin token, the wallet passphrase), since an error message may quote a header or a setting.
 */
import { trace } from '@opentelemetry/api';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { currentLogContext } from './log-context.ts';

export type { Logger } from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const REDACTED = '[redacted]';

/** Field paths censored wherever they appear (headers, settings, errors' own fields). */
const REDACT_PATHS = [
  'authorization',
  '*.authorization',
  '*.*.authorization',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'apiKey',
  'apiKeys',
  '*.apiKeys',
  'key',
  '*.key',
  'token',
  '*.token',
  'adminToken',
  '*.adminToken',
  'passphrase',
  '*.passphrase',
  'secretKey',
  '*.secretKey',
];

export interface LoggerSettings {
  level: LogLevel;
  /** Literal secrets to scrub from any string logged (the configured keys and tokens). */
  secrets?: readonly string[];
  /** Where lines go; stdout when absent (tests pass a stream to read them back). */
  destination?: DestinationStream;
}

export function createLogger(settings: LoggerSettings): Logger {
  // The line is scrubbed as JSON text, where a secret with quotes or backslashes appears escaped: look for both forms.
  const secrets = (settings.secrets ?? [])
    .filter((secret) => secret.length > 0)
    .flatMap((secret) => [JSON.stringify(secret).slice(1, -1), secret]);
  const scrub = (text: string) => {
    let clean = text.replace(/\bBearer\s+[^\s"',;]+/gi, `Bearer ${REDACTED}`);
    for (const secret of secrets) clean = clean.split(secret).join(REDACTED);
    return clean;
  };
  const options: LoggerOptions = {
    level: settings.level,
    base: { service: 'logos-a2a' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const span = trace.getActiveSpan()?.spanContext();
      return { ...currentLogContext(), ...(span ? { traceId: span.traceId, spanId: span.spanId } : {}) };
    },
    hooks: {
      // Messages and serialized errors are free text: scrub them last, after pino has put the line together.
      streamWrite: scrub,
    },
  };
  return settings.destination ? pino(options, settings.destination) : pino(options);
}
