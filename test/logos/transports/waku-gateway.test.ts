/**
 * The gateway and Logos agents as separate processes, connected only by Waku Relay on 127.0.0.1: discovery, tasks,
 * streams, cancels, TCK scenarios, a relay hop, an agent killed and restarted mid-task, a forged reply.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../../src/gateway/gateway.ts';
import { encodeEnvelope, taskStatusTopic } from '../../../src/logos/envelope.ts';
import { statusKeyBytes } from '../../../src/logos/status-key.ts';
import { WakuTransport } from '../../../src/logos/transports/waku.ts';
import { verifyProjectedCard } from '../../../src/a2a/card-jws.ts';
import { clientFor, collect, eventually, rpc, textMessage } from '../../support/gateway.ts';
import { stopChild } from '../../support/child-process.ts';
import { startWakuGateway } from '../../support/waku-gateway.ts';
import { cliEntry } from '../../cli/dist.ts';

// dist/cli/main.js when dist/ is the build of the sources as they are (it starts quicker), else src/cli/main.ts.
const cli = cliEntry();
let dir: string;
let gateway: Gateway;
let relay: WakuTransport;
const agents = new Map<string, ChildProcess>();

/** Starts `logos-a2a agent KIND` as its own process, joined through `peer`. */
function startAgentProcess(kind: string, id: string, peer: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    // --data: the card's LEZ key goes to the test's folder, not to .data/ in the checkout.
    [
      cli,
      'agent',
      kind,
      '--id',
      id,
      '--peer',
      peer,
      '--key-file',
      join(dir, `${id}.key`),
      '--data',
      dir,
      '--announce-every',
      '300',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  agents.set(id, child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`agent ${id} did not start:\n${output}`)), 40_000);
    child.stdout!.on('data', () => {
      if (output.includes('Ctrl-C')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.on('exit', (code) => reject(new Error(`agent ${id} exited with ${code}:\n${output}`)));
  });
}

const stopAgentProcess = (id: string, signal?: NodeJS.Signals) => stopChild(agents.get(id), signal);

const cardOf = (id: string) =>
  eventually(async () => {
    const response = await fetch(`${gateway.url}/agents/${id}/.well-known/agent-card.json`);
    return response.status === 200 ? response.json() : undefined;
  }, 15_000);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-waku-'));
  gateway = await startWakuGateway(dir, { overrides: { agentTimeoutMs: 20_000 } });
  const gatewayAddress = gateway.network.joinAddresses()[0]!;
  // A plain relay node between the gateway and the conformance agent: gateway — relay — agent.
  // A relay node relays only the shards it joined: all of them, as a public relay would.
  relay = new WakuTransport({
    listen: ['/ip4/127.0.0.1/tcp/0'],
    staticPeers: [gatewayAddress],
    relayShards: [0, 1, 2, 3, 4, 5, 6, 7],
  });
  await relay.start();
  await Promise.all([
    startAgentProcess('echo', 'echo', gatewayAddress),
    startAgentProcess('conformance', 'conformance', relay.multiaddrs()[0]!),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([...agents.keys()].map((id) => stopAgentProcess(id)));
  await relay?.stop();
  await gateway?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('over Waku, between processes', () => {
  it('agents announced on the discovery topic appear with their Waku address', async () => {
    const card = await cardOf('echo');
    const params = card.capabilities.extensions.find(
      (e: { uri: string }) => e.uri === 'urn:logos-a2a:ext:logos-agent:v1',
    ).params;
    expect(params.logosInterfaces[0].address).toMatch(/^waku:04[0-9a-f]{128}$/);
    const { agents: listed } = await (await fetch(`${gateway.url}/agents`)).json();
    expect(listed.find((a: { id: string }) => a.id === 'echo')).toMatchObject({ online: true, verified: true });
    // Both signatures check out for a third party: the agent's own over its Logos card, the gateway's JWS.
    expect(params.logosCardSignature.account).toBe(params.payTo);
    const jwks = await (await fetch(`${gateway.url}/.well-known/jwks.json`)).json();
    expect(verifyProjectedCard(card, jwks).ok).toBe(true);
    const page = await (await fetch(`${gateway.url}/`, { headers: { Accept: 'text/html' } })).text();
    expect(page).toContain(`${gateway.url}/agents/echo`);
  });

  it('a blocking SendMessage completes with the echo', async () => {
    await cardOf('echo');
    const { body } = await rpc(`${gateway.url}/agents/echo`, 'SendMessage', {
      message: { messageId: 'w1', role: 'ROLE_USER', parts: [{ text: 'over waku' }] },
    });
    expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.result.task.artifacts[0].parts[0].text).toBe('over waku');
  });

  it('TCK scenarios pass through a relay hop: stream, input-required, message answer, cancel', async () => {
    await cardOf('conformance');
    const client = await clientFor(`${gateway.url}/agents/conformance`);
    const stream = await collect(
      client.sendMessageStream(textMessage('hi', { messageId: 'tck-stream-artifact-chunked-w' })),
    );
    expect(stream.map((e) => e.payload?.$case)).toEqual([
      'task',
      'statusUpdate',
      'artifactUpdate',
      'artifactUpdate',
      'statusUpdate',
    ]); // chunk-1, then chunk-2 as the last chunk
    const waiting = (await client.sendMessage(textMessage('hi', { messageId: 'tck-input-required-w' }))) as {
      id: string;
      status?: { state: number };
    };
    const done = (await client.sendMessage(textMessage('more', { taskId: waiting.id }))) as {
      status?: { state: number };
    };
    expect(done.status?.state).toBe(3); // TASK_STATE_COMPLETED
    const answer = await client.sendMessage(textMessage('hi', { messageId: 'tck-message-response-w' }));
    expect('messageId' in answer).toBe(true);
    const long = (await client.sendMessage(
      textMessage('hi', { messageId: 'test-resubscribe-message-id', configuration: { returnImmediately: true } }),
    )) as { id: string };
    await eventually(async () =>
      (await rpc(`${gateway.url}/agents/conformance`, 'GetTask', { id: long.id })).body.result.status.state ===
      'TASK_STATE_WORKING'
        ? true
        : undefined,
    );
    const cancelled = await rpc(`${gateway.url}/agents/conformance`, 'CancelTask', { id: long.id });
    expect(cancelled.body.result.status.state).toBe('TASK_STATE_CANCELED');
    expect(cancelled.body.result.status.message.parts[0].text).toBe('Task cancelled.'); // the agent confirmed it
  });

  it('a forged reply from another key is dropped', async () => {
    const { body } = await rpc(`${gateway.url}/agents/conformance`, 'SendMessage', {
      message: { messageId: 'test-resubscribe-message-id', role: 'ROLE_USER', parts: [{ text: 'x' }] },
      configuration: { returnImmediately: true },
    });
    const taskId = body.result.task.id;
    const mallory = new WakuTransport({
      listen: ['/ip4/127.0.0.1/tcp/0'],
      staticPeers: gateway.network.joinAddresses(),
    });
    await mallory.start();
    try {
      const before = gateway.engine.dropped.wrongSender;
      const forged = encodeEnvelope({
        v: 1,
        id: 'forged',
        task_id: taskId,
        seq: 1,
        type: 'task_result',
        state: 'completed',
        result: 'forged',
      });
      // Without the task's key, the gateway's node cannot even read it: dropped before the engine sees it.
      const node = gateway.network.gateway as WakuTransport;
      const unreadable = node.dropped.unsigned + node.dropped.undecryptable;
      await eventually(async () => {
        await mallory.publish(taskStatusTopic(taskId), forged);
        await mallory.publish(taskStatusTopic(taskId), forged, { key: new Uint8Array(32).fill(1) });
        return node.dropped.unsigned + node.dropped.undecryptable >= unreadable + 2 ? true : undefined;
      }, 10_000);
      // With the task's key (say it leaked), the signature still names Mallory, not the agent: refused.
      const stored = await gateway.store.get('conformance', taskId);
      const key = statusKeyBytes((JSON.parse(stored!.link.request) as { status_key: string }).status_key);
      await eventually(async () => {
        await mallory.publish(taskStatusTopic(taskId), forged, { key });
        return gateway.engine.dropped.wrongSender > before ? true : undefined;
      }, 10_000);
      const { body: now } = await rpc(`${gateway.url}/agents/conformance`, 'GetTask', { id: taskId });
      expect(now.result.artifacts ?? []).toEqual([]);
    } finally {
      await mallory.stop();
    }
  });

  it('an agent process killed mid-task and restarted: the gateway notices and fails the task it lost, saying so', async () => {
    const { body } = await rpc(`${gateway.url}/agents/conformance`, 'SendMessage', {
      message: { messageId: 'test-resubscribe-message-id', role: 'ROLE_USER', parts: [{ text: 'x' }] },
      configuration: { returnImmediately: true },
    });
    const taskId = body.result.task.id;
    await eventually(async () =>
      (await rpc(`${gateway.url}/agents/conformance`, 'GetTask', { id: taskId })).body.result.status.state ===
      'TASK_STATE_WORKING'
        ? true
        : undefined,
    );
    await stopAgentProcess('conformance', 'SIGKILL');
    await startAgentProcess('conformance', 'conformance', relay.multiaddrs()[0]!);
    const failed = await eventually(async () => {
      const { body: now } = await rpc(`${gateway.url}/agents/conformance`, 'GetTask', { id: taskId });
      return now.result.status.state === 'TASK_STATE_FAILED' ? now.result : undefined;
    }, 30_000);
    expect(failed.status.message.parts[0].text).toMatch(/no record of this task/);
    // The restarted agent (same key, same address) takes new tasks.
    const again = await rpc(`${gateway.url}/agents/conformance`, 'SendMessage', {
      message: { messageId: 'tck-complete-task-w', role: 'ROLE_USER', parts: [{ text: 'x' }] },
    });
    expect(again.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    // A process killed and started again, then a relay mesh to rejoin: slow on a loaded 2-core machine.
  }, 60_000);
});
