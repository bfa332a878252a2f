/** The logger's own guarantees: secrets censored by field and scrubbed from free text, ids from the log context. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { withLogContext } from '../../src/observability/log-context.ts';
import { createLogger } from '../../src/observability/logger.ts';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, destination };
}

describe('logger', () => {
  it('censors secret fields, scrubs configured secrets and bearer tokens from messages and errors', () => {
    const { lines, destination } = capture();
    const secret = 'configured-secret-"quoted"\\0123';
    const logger = createLogger({ level: 'info', secrets: [secret], destination });
    logger.info({ headers: { authorization: 'Bearer abc', 'x-api-key': 'k1' }, adminToken: 't' }, 'fields');
    logger.warn(`the upstream said: Authorization: Bearer tok-123 and ${secret}`);
    logger.error({ err: new Error(`could not use ${secret}`) }, 'failed');
    const output = lines.join('\n');
    expect(output).not.toContain('abc');
    expect(output).not.toContain('k1');
    expect(output).not.toContain('tok-123');
    expect(output).not.toContain('configured-secret');
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toMatchObject([
      { msg: 'fields', adminToken: '[redacted]', headers: { authorization: '[redacted]' } },
      { msg: 'the upstream said: Authorization: Bearer [redacted] and [redacted]' },
      { msg: 'failed', err: { message: 'could not use [redacted]' } },
    ]);
  });

  it('adds the ids of the log context', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'info', destination });
    withLogContext({ requestId: 'r1', agentId: 'echo' }, () =>
      withLogContext({ taskId: 't1' }, () => logger.info('inside')),
    );
    logger.info('outside');
    expect(JSON.parse(lines[0]!)).toMatchObject({ requestId: 'r1', agentId: 'echo', taskId: 't1', msg: 'inside' });
    expect(JSON.parse(lines[1]!)).not.toHaveProperty('requestId');
  });
});
