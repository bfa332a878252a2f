/**
 * A publication killed mid-task (kill -9) and started again with the same data goes on with the task: it kept the
 * HTTP agent's task id, the gateway asks the restarted agent about the task, and the task completes with what the
 * HTTP agent did meanwhile, instead of failing as unknown.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetTaskRequest, TaskState, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.ts';
import { cliEntry } from '../cli/dist.ts';
import { stopChild, untilPrinted } from '../support/child-process.ts';
import { clientFor, eventually, textMessage } from '../support/gateway.ts';
import { startHttpAgent, type HttpAgent } from '../support/http-agent.ts';
import { startWakuGateway } from '../support/waku-gateway.ts';

let dir: string;
let gateway: Gateway;
let http: HttpAgent;
let publisher: ChildProcess | undefined;

async function startPublisher(): Promise<void> {
  const child = spawn(
    process.execPath,
    [cliEntry(), 'publish', http.url, '--peer', gateway.network.joinAddresses()[0]!, '--data', join(dir, 'publisher')],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  publisher = child;
  const printed = await untilPrinted(child, /is the Logos agent (\S+) at/, 'logos-a2a publish', 60_000);
  if (!printed.match) throw new Error(`logos-a2a publish exited:\n${printed.output}`);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-publish-restart-'));
  gateway = await startWakuGateway(dir);
  http = await startHttpAgent();
}, 60_000);

afterAll(async () => {
  await stopChild(publisher);
  await gateway?.stop();
  await http?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a publication killed mid-task', () => {
  it('goes on with the task after it is started again', async () => {
    await startPublisher();
    await eventually(async () => {
      const { agents } = (await (await fetch(`${gateway.url}/agents`)).json()) as { agents: { id: string }[] };
      return agents.some((agent) => agent.id === 'weather-desk') ? true : undefined;
    }, 60_000);
    const client = await clientFor(`${gateway.url}/agents/weather-desk`);
    const started = (await client.sendMessage(
      textMessage('wait', { configuration: { returnImmediately: true } }),
    )) as Task;
    await eventually(async () => {
      const now = await client.getTask(GetTaskRequest.fromJSON({ id: started.id }));
      return now.status?.state === TaskState.TASK_STATE_WORKING ? true : undefined;
    }, 30_000);

    await stopChild(publisher, 'SIGKILL');
    await startPublisher();

    const done = await eventually(async () => {
      const now = await client.getTask(GetTaskRequest.fromJSON({ id: started.id }));
      return now.status?.state === TaskState.TASK_STATE_WORKING ? undefined : now;
    }, 60_000);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts.map((artifact) => artifact.parts.map((part) => part.content?.value).join(''))).toEqual([
      'waited',
    ]);
  }, 150_000);
});
