/** The main job out of the box: `logos-a2a demo` serves the echo agent, and the curl example it prints works. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const cli = new URL('../../src/cli.ts', import.meta.url).pathname;
let child: ChildProcess;
let output = '';
let url = '';

beforeAll(async () => {
  const database = join(mkdtempSync(join(tmpdir(), 'logos-a2a-cli-')), 'demo.db');
  child = spawn(process.execPath, [cli, 'demo'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOGOS_A2A_DATABASE: database,
      LOGOS_A2A_WAKU_LISTEN: '/ip4/127.0.0.1/tcp/0',
      LOGOS_A2A_DEVNET_PORT: '0',
      LOGOS_A2A_WAKU_KEY_FILE: join(dirname(database), 'gateway.key'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`demo did not start:\n${output}`)), 15_000);
    child.stdout!.on('data', () => {
      const match = /listening at (http:\/\/\S+)/.exec(output);
      if (match && output.includes('Ctrl-C')) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
  });
});

afterAll(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
});

describe('logos-a2a demo', () => {
  it('prints the URLs and no experimental-feature noise', () => {
    expect(output).toContain(`${url}/agents/conformance/.well-known/agent-card.json`);
    expect(output).not.toMatch(/ExperimentalWarning/);
  });

  it('serves the echo card at the root, and the printed curl example returns a completed task with the echo', async () => {
    const card = await (await fetch(`${url}/.well-known/agent-card.json`)).json();
    expect(card.name).toBe('Echo');
    // Run exactly the example the demo printed.
    const example = /curl -s (\S+) -H '([^']+)' -H '([^']+)' \\\n\s+-d '([^']+)'/.exec(output);
    expect(example).not.toBeNull();
    const [, target, h1, h2, body] = example!;
    const headers = Object.fromEntries([h1!, h2!].map((h) => h.split(': ') as [string, string]));
    const response = await (await fetch(target!, { method: 'POST', headers, body })).json();
    expect(response.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(response.result.task.artifacts[0].parts[0].text).toBe('hello');
  });

  it('charges the paid agent’s price on the devnet, as the printed example shows', async () => {
    const example = /(curl -s \S+\/agents\/paid .*\n.*"skill":"echo".*)/.exec(output);
    expect(example).not.toBeNull();
    const devnet = /LEZ devnet:\s+(\S+)/.exec(output)![1]!;
    const agentAccount = /paid agent (\S+)/.exec(output)![1]!;
    const balance = async () => {
      const response = await fetch(devnet, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAccountBalance', params: [agentAccount] }) });
      return Number((await response.json()).result);
    };
    const before = await balance();
    const task = await (
      await fetch(`${url}/agents/paid`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'cli-paid', role: 'ROLE_USER', parts: [{ text: 'hi' }], metadata: { skill: 'echo' } } } }),
      })
    ).json();
    expect(task.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.result.task.metadata.lez.status).toBe('paid');
    expect(await balance()).toBe(before + 5);
  });

  it('stops cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('logos-a2a serve', () => {
  it('refuses a bad setting with a message that names it, and exits 1', async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const run = spawn(process.execPath, [cli, 'serve'], { env: { ...process.env, PORT: 'eighty' }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      run.stderr!.on('data', (chunk) => (stderr += chunk));
      run.on('exit', (code) => resolve({ code, stderr }));
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/port \(env PORT\)/);
  });

  it('explains an unknown command', async () => {
    const code = await new Promise<number | null>((resolve) => spawn(process.execPath, [cli, 'fly'], { stdio: 'ignore' }).on('exit', resolve));
    expect(code).toBe(2);
  });
});

describe('logos-a2a keys', () => {
  const run = (args: string[], env: Record<string, string>, input?: string) =>
    new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, [cli, 'keys', ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      child.stdout!.on('data', (chunk) => (out += chunk));
      child.stderr!.on('data', (chunk) => (out += chunk));
      child.stdin!.end(input ?? '');
      child.on('exit', (code) => resolve({ code, out }));
    });

  it('new, show and import agree on the account; a wrong passphrase is refused', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'logos-a2a-keys-'));
    const file = join(folder, 'wallet.json');
    const created = await run(['new', '--file', file], { LOGOS_A2A_WALLET_PASSPHRASE: 'correct horse' });
    expect(created.code).toBe(0);
    const account = /account\s+(\S+)/.exec(created.out)![1]!;
    const phrase = /write it down[^\n]*\n\s+(.+)\n/.exec(created.out)![1]!;
    expect(phrase.split(' ')).toHaveLength(24);
    const shown = await run(['show', '--file', file], { LOGOS_A2A_WALLET_PASSPHRASE: 'correct horse' });
    expect(shown.out).toContain(account);
    expect(shown.out).not.toContain(phrase);
    const wrong = await run(['show', '--file', file], { LOGOS_A2A_WALLET_PASSPHRASE: 'wrong' });
    expect(wrong.code).toBe(1);
    expect(wrong.out).toMatch(/passphrase/i);
    const imported = await run(['import', '--file', join(folder, 'copy.json'), '--mnemonic-file', '-'], { LOGOS_A2A_WALLET_PASSPHRASE: 'other' }, phrase);
    expect(imported.code).toBe(0);
    expect(imported.out).toContain(account);
    const noPassphrase = await run(['show', '--file', file], { LOGOS_A2A_WALLET_PASSPHRASE: '' });
    expect(noPassphrase.out).toMatch(/LOGOS_A2A_WALLET_PASSPHRASE/);
  }, 30_000);
});
