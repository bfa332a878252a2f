/**
 * Gateway B publishes an HTTP agent (its `published` setting) and is restarted while one of the agent's tasks runs;
 * gateway A, whose client started the task over Waku, sees it complete: B kept the HTTP agent's task id beside its
 * database, its stop cancelled nothing at the HTTP agent, and the restarted publication followed the HTTP task again
 * when A asked about it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetTaskRequest, TaskState, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.ts';
import { freePort } from '../support/free-port.ts';
import { clientFor, eventually, textMessage } from '../support/gateway.ts';
import { startHttpAgent, type HttpAgent } from '../support/http-agent.ts';
import { startWakuGateway } from '../support/waku-gateway.ts';

let dir: string;
let http: HttpAgent;
let gatewayA: Gateway;
let gatewayB: Gateway;
let startB: () => Promise<Gateway>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-published-restart-'));
  http = await startHttpAgent();
  // A fixed port: A's node dials B's again at the same address after the restart.
  const listen = `/ip4/127.0.0.1/tcp/${await freePort()}`;
  startB = () =>
    startWakuGateway(join(dir, 'b'), {
      overrides: {
        published: [{ url: http.url }],
        transport: { kind: 'waku', listen: [listen], keyFile: join(dir, 'b', 'gateway.key') },
      },
    });
  gatewayB = await startB();
  gatewayA = await startWakuGateway(join(dir, 'a'), {
    overrides: {
      transport: {
        kind: 'waku',
        listen: ['/ip4/127.0.0.1/tcp/0'],
        keyFile: join(dir, 'a', 'gateway.key'),
        peers: gatewayB.network.joinAddresses(),
      },
    },
  });
  await eventually(async () => {
    const { agents } = (await (await fetch(`${gatewayA.url}/agents`)).json()) as { agents: { id: string }[] };
    return agents.some((agent) => agent.id === 'weather-desk') ? true : undefined;
  }, 90_000);
}, 150_000);

afterAll(async () => {
  await gatewayA?.stop();
  await gatewayB?.stop();
  await http?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a publishing gateway restarted mid-task', () => {
  it('goes on with the task, which completes for the caller of the other gateway', async () => {
    const client = await clientFor(`${gatewayA.url}/agents/weather-desk`);
    const started = (await client.sendMessage(
      textMessage('wait', { configuration: { returnImmediately: true } }),
    )) as Task;
    await eventually(async () => {
      const now = await client.getTask(GetTaskRequest.fromJSON({ id: started.id }));
      return now.status?.state === TaskState.TASK_STATE_WORKING ? true : undefined;
    }, 30_000);

    await gatewayB.stop();
    gatewayB = await startB();

    const done = await eventually(async () => {
      const now = await client.getTask(GetTaskRequest.fromJSON({ id: started.id }));
      return now.status?.state === TaskState.TASK_STATE_WORKING ? undefined : now;
    }, 90_000);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts.map((artifact) => artifact.parts.map((part) => part.content?.value).join(''))).toEqual([
      'waited',
    ]);
    // Stopping B cancelled nothing at the HTTP agent.
    expect(http.output()).not.toMatch(/cancelled/);
  }, 180_000);
});
