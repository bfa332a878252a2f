/**
 * `logos-a2a publish URL` as the README runs it: examples/http-agent.ts (the SDK's own server stack) published by
 * the command, as its own process, on a gateway's Waku network; the gateway serves it and a client's task reaches
 * it. A missing URL and a rate limit that is no limit are usage errors, an agent that cannot be had or refuses the
 * token a one-line failure, and SIGTERM a clean stop.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TaskState, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.ts';
import { cliEntry } from '../cli/dist.ts';
import { stopChild, untilPrinted } from '../support/child-process.ts';
import { freePort } from '../support/free-port.ts';
import { clientFor, eventually, textMessage } from '../support/gateway.ts';
import { startHttpAgent, type HttpAgent } from '../support/http-agent.ts';
import { startWakuGateway } from '../support/waku-gateway.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/http-agent.ts', import.meta.url));
let dir: string;
let gateway: Gateway;
let example: ChildProcess;
let exampleUrl: string;
let guarded: HttpAgent;
const children: ChildProcess[] = [];

const cli = (args: string[]) => spawnSync(process.execPath, [cliEntry(), ...args], { encoding: 'utf8' });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-publish-cli-'));
  gateway = await startWakuGateway(dir);
  example = spawn(process.execPath, [EXAMPLE, String(await freePort())], { stdio: ['ignore', 'pipe', 'pipe'] });
  const printed = await untilPrinted(example, /listening (\S+)/, 'examples/http-agent.ts');
  exampleUrl = printed.match![1]!;
  guarded = await startHttpAgent(['--bearer', 'right-token-0123456789']);
}, 90_000);

afterAll(async () => {
  for (const child of children) await stopChild(child);
  await gateway?.stop();
  await stopChild(example);
  await guarded?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('logos-a2a publish', () => {
  it('publishes an HTTP agent that a gateway then serves, until stopped', async () => {
    const publisher = spawn(
      process.execPath,
      [cliEntry(), 'publish', exampleUrl, '--peer', gateway.network.joinAddresses()[0]!, '--data', dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(publisher);
    const printed = await untilPrinted(publisher, /is the Logos agent (\S+) at/, 'logos-a2a publish', 60_000);
    expect(printed.match?.[1], printed.output).toBe('parrot');
    expect(printed.output).toContain("its card's signature: unsigned");
    await eventually(async () => {
      const { agents } = (await (await fetch(`${gateway.url}/agents`)).json()) as { agents: { id: string }[] };
      return agents.some((agent) => agent.id === 'parrot') ? true : undefined;
    }, 60_000);
    const client = await clientFor(`${gateway.url}/agents/parrot`);
    const task = (await client.sendMessage(textMessage('hi'))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts.map((artifact) => artifact.parts.map((part) => part.content?.value).join(''))).toEqual([
      'you said: hi',
    ]);
    const exited = new Promise<number | null>((resolve) => publisher.once('exit', resolve));
    publisher.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('says what is wrong in one line', async () => {
    const missing = cli(['publish']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^logos-a2a publish: say which HTTP agent/);

    const noLimit = cli(['publish', exampleUrl, '--rate-limit', '0']);
    expect(noLimit.status).toBe(2);
    expect(noLimit.stderr).toMatch(/^logos-a2a publish: --rate-limit takes a whole number above 0, got "0"/);
    const windowAlone = cli(['publish', exampleUrl, '--rate-limit-window', '1000']);
    expect(windowAlone.status).toBe(2);
    expect(windowAlone.stderr).toMatch(/^logos-a2a publish: --rate-limit-window goes with --rate-limit N/);

    const down = cli(['publish', `http://127.0.0.1:${await freePort()}`]);
    expect(down.status).toBe(1);
    expect(down.stderr).toMatch(/^logos-a2a publish: the agent card of .* could not be had: .*ECONNREFUSED/);

    const tokenFile = join(dir, 'wrong-token');
    writeFileSync(tokenFile, 'wrong-token-0123456789\n');
    const refused = cli(['publish', guarded.url, '--bearer-file', tokenFile]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/could not be had: .*401/);
  });
});
