/**
 * The JSON log of a real `logos-a2a serve` run with every kind of secret configured and presented: one JSON object
 * a line, request, task and agent ids on them, and not one secret anywhere in the output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEntry } from '../cli/dist.ts';
import { eventually } from '../support/gateway.ts';

const API_KEY = 'sk-live-apikey-ZXCVBNM0123456789';
const ADMIN_TOKEN = 'admin-token-QWERTYUIOP0123456789';
const PASSPHRASE = 'wallet passphrase ASDFGHJKL 0123';
const WRONG_KEY = 'sk-wrong-key-POIUYTREWQ987654321';

describe('JSON logs of a real run', () => {
  let child: ChildProcess;
  let dir: string;
  let output = '';
  let url = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'logos-a2a-logs-'));
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ apiKeys: [{ name: 'alice', key: API_KEY }] }));
    child = spawn(process.execPath, [cliEntry(), 'serve', '--config', config], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        LOGOS_A2A_DATABASE: join(dir, 'gateway.db'),
        LOGOS_A2A_TRANSPORT: 'memory',
        LOGOS_A2A_ADMIN_TOKEN: ADMIN_TOKEN,
        LOGOS_A2A_WALLET_PASSPHRASE: PASSPHRASE,
        LOGOS_A2A_LOG_LEVEL: 'debug',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    url = await eventually(() => /listening at (http:\/\/\S+)/.exec(output)?.[1], 30_000);
  }, 35_000);

  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (headers: Record<string, string>, text: string) =>
    fetch(`${url}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } },
      }),
    });

  it('carries request, task and agent ids, and never a key, token or passphrase', async () => {
    const sent = await call({ Authorization: `Bearer ${API_KEY}`, 'X-Request-Id': 'req-logs-1' }, 'logged');
    const taskId = ((await sent.json()) as { result: { task: { id: string } } }).result.task.id;
    expect((await call({ 'X-API-Key': API_KEY }, 'again')).status).toBe(200);
    expect((await call({ Authorization: `Bearer ${WRONG_KEY}` }, 'refused')).status).toBe(401);
    expect(
      (await fetch(`${url}/admin/approvals`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })).status,
    ).toBe(404);
    expect((await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(200);
    expect((await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${WRONG_KEY}` } })).status).toBe(401);

    const lines = await eventually(() => {
      const parsed = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      return parsed.filter((line) => line.msg === 'request').length >= 6 ? parsed : undefined;
    });
    const sendLine = lines.find((line) => line.requestId === 'req-logs-1');
    expect(sendLine).toMatchObject({
      level: 'info',
      msg: 'request',
      method: 'POST',
      route: '/',
      status: 200,
      agentId: 'echo',
      taskId,
      service: 'logos-a2a',
    });
    expect(typeof sendLine!.durationMs).toBe('number');
    const requestIds = lines.filter((line) => line.msg === 'request').map((line) => line.requestId);
    expect(new Set(requestIds).size).toBe(requestIds.length);

    for (const secret of [API_KEY, ADMIN_TOKEN, PASSPHRASE, WRONG_KEY]) expect(output).not.toContain(secret);
  });
});
