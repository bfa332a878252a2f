/**
 * A runtime agent hires other agents over real Waku (caller.ts): nodes on 127.0.0.1, the agents' cards heard on the
 * discovery topic, every request encrypted to its agent and every reply under its task's key. The manager, a
 * runtime agent, has one skill, `delegate`, that hires the agent and skill its caller names: (a) a worker on the
 * runtime, and (b) an HTTP A2A agent (the SDK's Express server, its own process) that a gateway publishes on Logos
 * (src/publish). The test itself hires the manager with a LogosCaller on a node of its own, so every call crosses
 * two hires: test → manager → worker or published HTTP agent, with a conversation and failures passed back.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../../src/gateway/gateway.ts';
import { LogosAgent } from '../../../src/logos/agent-runtime.ts';
import { LogosCaller, type HireOutcome } from '../../../src/logos/agent-runtime/caller.ts';
import type { WireArtifact } from '../../../src/logos/envelope.ts';
import { WakuTransport } from '../../../src/logos/transports/waku.ts';
import { eventually } from '../../support/gateway.ts';
import { startHttpAgent, type HttpAgent } from '../../support/http-agent.ts';
import { startWakuGateway } from '../../support/waku-gateway.ts';

let dir: string;
let http: HttpAgent;
let publisher: Gateway;
let worker: LogosAgent;
let manager: LogosAgent;
let managerCaller: LogosCaller;
let testNode: WakuTransport;
let caller: LogosCaller;

const PUBLISHED = 'weather-desk';
const artifactText = (artifacts: WireArtifact[]) =>
  artifacts.flatMap((artifact) => artifact.parts.map((part) => ('text' in part ? part.text : ''))).join('');

/** A runtime agent on a Waku node of its own, joined to the publishing gateway's. */
function nodeBesidePublisher(): WakuTransport {
  return new WakuTransport({ listen: ['/ip4/127.0.0.1/tcp/0'], staticPeers: publisher.network.joinAddresses() });
}

/** What the manager's `delegate` does with an outcome: the result or artifacts' text, or the failure thrown. */
function answerOf(outcome: HireOutcome): string {
  if (outcome.kind === 'failed' || outcome.kind === 'rejected')
    throw new Error(`${outcome.kind}: ${outcome.error.message}`);
  if (outcome.kind === 'refused' || outcome.kind === 'timeout') throw new Error(`${outcome.kind}: ${outcome.message}`);
  if (outcome.kind !== 'completed') throw new Error(outcome.kind);
  return outcome.result !== undefined ? String(outcome.result) : artifactText(outcome.artifacts);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-hire-waku-'));
  http = await startHttpAgent();
  publisher = await startWakuGateway(dir, { overrides: { published: [{ url: http.url }] } });
  const workerTransport = nodeBesidePublisher();
  worker = new LogosAgent({
    transport: workerTransport,
    cardKey: new Uint8Array(randomBytes(32)),
    announceEveryMs: 1_000,
    card: {
      id: 'worker',
      name: 'Worker',
      description: 'Works for hire.',
      version: '1',
      skills: [{ id: 'shout', name: 'Shout', description: 'Upper-cases the text.' }],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: workerTransport.address }],
    },
    skills: { shout: (ctx) => ctx.text.toUpperCase() },
  });
  const managerTransport = nodeBesidePublisher();
  managerCaller = new LogosCaller({ transport: managerTransport, log: () => {} });
  manager = new LogosAgent({
    transport: managerTransport,
    cardKey: new Uint8Array(randomBytes(32)),
    announceEveryMs: 1_000,
    card: {
      id: 'manager',
      name: 'Manager',
      description: 'Hires the agent and skill it is told, and passes its questions on.',
      version: '1',
      skills: [{ id: 'delegate', name: 'Delegate', description: 'params: agent, skill, text' }],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: managerTransport.address }],
    },
    skills: {
      delegate: async (ctx) => {
        let outcome = await managerCaller.hire(String(ctx.params.agent), String(ctx.params.skill), ctx.text, {
          signal: ctx.signal,
          contextId: ctx.contextId,
        });
        while (outcome.kind === 'input-required' || outcome.kind === 'auth-required') {
          const answer = await ctx.requestInput(outcome.prompt ?? 'The hired agent asks for more.');
          outcome = await outcome.reply({
            params: answer.params,
            ...(answer.message ? { message: answer.message } : {}),
          });
        }
        return `${String(ctx.params.agent)} says: ${answerOf(outcome)}`;
      },
    },
  });
  await Promise.all([worker.start(), manager.start()]);
  managerCaller.start();
  testNode = nodeBesidePublisher();
  await testNode.start();
  caller = new LogosCaller({ transport: testNode, log: () => {} });
  caller.start();
  // Every card heard where it is needed: the manager's by the test, the worker's and the published one's by the manager.
  await eventually(
    () => (caller.cardOf('manager') && managerCaller.cardOf('worker') && managerCaller.cardOf(PUBLISHED)) || undefined,
    90_000,
  );
}, 180_000);

afterAll(async () => {
  caller?.stop();
  managerCaller?.stop();
  await testNode?.stop();
  await manager?.stop();
  await worker?.stop();
  await publisher?.stop();
  await http?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

const delegate = (agent: string, skill: string, text: string) =>
  caller.hire('manager', 'delegate', { text, agent, skill });

describe('a runtime agent hiring over Waku', () => {
  it('(a) hires a runtime agent', async () => {
    expect(await delegate('worker', 'shout', 'hello')).toMatchObject({
      kind: 'completed',
      result: 'worker says: HELLO',
    });
  }, 60_000);

  it('(b) hires an HTTP A2A agent published by a gateway', async () => {
    expect(await delegate(PUBLISHED, 'echo', 'hello')).toMatchObject({
      kind: 'completed',
      result: `${PUBLISHED} says: echo: hello`,
    });
    expect(http.output()).toMatch(/heard "hello"/);
  }, 60_000);

  it('(b) a conversation: the HTTP agent’s question reaches the test through the manager, and the answer goes back', async () => {
    const asked = await delegate(PUBLISHED, 'echo', 'ask');
    if (asked.kind !== 'input-required') throw new Error(`not asked: ${JSON.stringify(asked)}`);
    expect(asked.prompt).toMatchObject({ parts: [{ text: 'What is your name?' }] });
    expect(await asked.reply('Ada')).toMatchObject({ kind: 'completed', result: `${PUBLISHED} says: hello, Ada` });
  }, 60_000);

  it('(b) the HTTP agent’s failure comes back as a failed hire, then a failed task of the manager', async () => {
    const failed = await delegate(PUBLISHED, 'echo', 'fail');
    expect(failed).toMatchObject({ kind: 'failed', error: { code: 'skill_failed' } });
    expect((failed as { error: { message: string } }).error.message).toMatch(/^failed: .*it broke/);
  }, 60_000);

  it('the manager’s hire of a skill the agent lacks is refused before anything is sent', async () => {
    const refused = await delegate('worker', 'whisper', 'x');
    expect(refused).toMatchObject({ kind: 'failed' });
    expect((refused as { error: { message: string } }).error.message).toMatch(/^refused: Agent "worker" has no skill/);
  }, 60_000);
});
