/**
 * `logos-a2a agent echo --transport waku-light`: the built-in agent as its own process and a light node of a
 * gateway's relay node (LightPush out, Filter in, over WebSocket), listed by the gateway and completing a task; and
 * the options a light agent has no use for, refused.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.ts';
import { eventually, rpc } from '../support/gateway.ts';
import { stopChild, untilPrinted } from '../support/child-process.ts';
import { startWakuGateway } from '../support/waku-gateway.ts';
import { cliEntry } from './dist.ts';

const cli = cliEntry();
let dir: string;
let gateway: Gateway;
let agent: ChildProcess | undefined;

/** `logos-a2a agent ARGS…`: resolves with its output once it has printed `until`, or once it has exited. */
async function runAgent(args: string[], until = /(?!)/): Promise<{ code: number | null; output: string }> {
  agent = spawn(process.execPath, [cli, 'agent', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const { code, output } = await untilPrinted(agent, until, `logos-a2a agent ${args.join(' ')}`);
  return { code, output };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-agent-light-'));
  gateway = await startWakuGateway(dir, {
    overrides: {
      agentTimeoutMs: 20_000,
      transport: { kind: 'waku', listen: ['/ip4/127.0.0.1/tcp/0/ws'], keyFile: join(dir, 'gateway.key') },
    },
  });
}, 30_000);

afterAll(async () => {
  await stopChild(agent);
  await gateway?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('logos-a2a agent --transport waku-light', () => {
  it('joins as a light node of the gateway’s node, is listed, and completes a task', async () => {
    const joinAt = gateway.network.joinAddresses()[0]!;
    const started = await runAgent(
      ['echo', '--transport', 'waku-light', '--peer', joinAt, '--id', 'light-echo', '--data', dir],
      /Ctrl-C stops it/,
    );
    expect(started.code, started.output).toBeNull();
    expect(started.output).toContain(`a light node of: ${joinAt}`);
    expect(started.output).not.toMatch(/listening at/);

    await eventually(async () => {
      const response = await fetch(`${gateway.url}/agents/light-echo/.well-known/agent-card.json`);
      return response.status === 200 ? true : undefined;
    }, 20_000);
    const { body } = await rpc(`${gateway.url}/agents/light-echo`, 'SendMessage', {
      message: { messageId: 'light-cli-1', role: 'ROLE_USER', parts: [{ text: 'hello, light agent' }] },
    });
    expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.result.task.artifacts[0].parts[0].text).toBe('hello, light agent');
    await stopChild(agent);
  }, 90_000);

  it('refuses an unknown transport, --listen or --rest-port for a light agent, and one with no service node (exit 2)', async () => {
    const [unknown, listen, rest, alone] = await Promise.all([
      runAgent(['echo', '--transport', 'carrier-pigeon']),
      runAgent(['echo', '--transport', 'waku-light', '--listen', '/ip4/127.0.0.1/tcp/0']),
      runAgent(['echo', '--transport', 'waku-light', '--rest-port', '0']),
      runAgent(['echo', '--transport', 'waku-light']),
    ]);
    expect(alone.code).toBe(2);
    expect(alone.output).toMatch(/^logos-a2a agent: a waku-light agent needs a service node/);
    expect(unknown.code).toBe(2);
    expect(unknown.output).toMatch(/^logos-a2a agent: --transport is waku or waku-light, got "carrier-pigeon"/);
    for (const refused of [listen, rest]) {
      expect(refused.code).toBe(2);
      expect(refused.output).toMatch(/^logos-a2a agent: a waku-light agent has no node of its own/);
    }
  }, 60_000);
});
