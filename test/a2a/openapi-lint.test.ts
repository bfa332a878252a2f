/** The OpenAPI document passes Redocly's recommended rules with no error (warnings are reported, not fatal). */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the OpenAPI document under redocly lint', () => {
  it('has no error under the recommended rules', async () => {
    const run = await promisify(execFile)(
      process.execPath,
      [
        'node_modules/@redocly/cli/bin/cli.js',
        'lint',
        'openapi/openapi.json',
        '--extends=recommended',
        '--format=json',
      ],
      { cwd: root, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    ).catch((failure: { stdout: string; stderr: string }) => failure);
    const report = JSON.parse(run.stdout) as {
      totals: { errors: number };
      problems: { severity: string; message: string }[];
    };
    expect(report.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 60_000);
});
