/**
 * Two gateways on one PostgreSQL database, as two replicas behind a load balancer: what one records, the other
 * serves. (Each has its own in-process echo agent at the same Logos address, as replicas reach the same agents.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetTaskRequest, ListTasksRequest, TaskState, type Task } from '@a2a-js/sdk';
import { loadConfig } from '../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../src/gateway/gateway.ts';
import { echoAgent } from '../../src/logos/agents/echo.ts';
import type { LogosAgent } from '../../src/logos/agent-runtime.ts';
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import { clientFor, textMessage } from '../support/gateway.ts';
import { createTestDatabase, postgresAdminUrl, type TestDatabase } from '../support/postgres.ts';

describe.skipIf(postgresAdminUrl === undefined)('replicas on one PostgreSQL', () => {
  let database: TestDatabase;
  const replicas: Gateway[] = [];
  const agents: LogosAgent[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    for (let index = 0; index < 2; index++) {
      const network = new MemoryNetwork();
      const agent = echoAgent(network.node('agent:echo'));
      await agent.start();
      agents.push(agent);
      const config = loadConfig({
        env: {},
        overrides: {
          port: 0,
          host: '127.0.0.1',
          database: database.url,
          // Replicas sign cards with one key; none is kept on disk here.
          cardSigningKeyFile: undefined,
          agents: [],
          shutdownGraceMs: 1_000,
          transport: { kind: 'memory' },
        },
      });
      replicas.push(await startGateway(config, { network, agents: [agent], log: () => undefined }));
    }
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await Promise.all(agents.map((agent) => agent.stop()));
    await database?.drop();
  });

  it('answers GetTask and ListTasks on either replica for tasks created on the other', async () => {
    const [a, b] = await Promise.all(replicas.map((replica) => clientFor(replica.url)));
    const taskA = (await a!.sendMessage(textMessage('on a'))) as Task;
    const taskB = (await b!.sendMessage(textMessage('on b'))) as Task;
    expect(taskA.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const seenFromB = await b!.getTask(GetTaskRequest.fromJSON({ id: taskA.id }));
    expect(seenFromB).toMatchObject({ id: taskA.id, status: { state: TaskState.TASK_STATE_COMPLETED } });
    expect(seenFromB.artifacts).toEqual(taskA.artifacts);
    const seenFromA = await a!.getTask(GetTaskRequest.fromJSON({ id: taskB.id }));
    expect(seenFromA.id).toBe(taskB.id);
    for (const client of [a!, b!]) {
      const listed = await client.listTasks(ListTasksRequest.fromJSON({ pageSize: 10 }));
      expect(listed.tasks.map((task) => task.id).sort()).toEqual([taskA.id, taskB.id].sort());
    }
  });
});
