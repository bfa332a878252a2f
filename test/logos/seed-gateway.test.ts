/**
 * The gateway and seed agents on the in-process network: what is refused and counted (unverified agents not
 * allowed, fractional prices), a reply with a fractional price, a follow-up the seed cannot take, and a gateway
 * restart whose `task_get` the agent answers as `{task_id, state, result_or_error}`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DISCOVERY_TOPIC } from '../../src/logos/discovery.ts';
import { gatewayPayer } from '../../src/gateway/payment-wiring.ts';
import { MemoryLedger } from '../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../src/lez/rail/memory-rail.ts';
import { eventually, inProcess, rpc, startTestBed, type TestBed } from '../support/gateway.ts';
import { runSeedAgent, type SeedAgent, type SeedAgentOptions } from '../support/seed-agent.ts';

const beds: TestBed[] = [];
const seeds: SeedAgent[] = [];
afterEach(async () => {
  for (const seed of seeds.splice(0)) seed.stop();
  await Promise.all(beds.splice(0).map((bed) => bed.close()));
});

async function bedWith(allowUnverifiedAgents: boolean, payer?: Parameters<typeof startTestBed>[0]): Promise<TestBed> {
  const bed = await startTestBed({ config: { allowUnverifiedAgents, agentTimeoutMs: 10_000 }, ...payer });
  beds.push(bed);
  return bed;
}

async function seedOn(bed: TestBed, address: string, options: Partial<SeedAgentOptions> = {}): Promise<SeedAgent> {
  const transport = bed.network.node(address);
  await transport.start();
  const seed = runSeedAgent(transport, { discoveryTopic: DEFAULT_DISCOVERY_TOPIC, ...options });
  seeds.push(seed);
  await seed.announce();
  return seed;
}

const servedId = (seed: SeedAgent) => `logos-agent-${String(seed.card.id).slice('logos-agent:'.length, 44)}`;

const send = (bed: TestBed, seed: SeedAgent, skill: string, extra: Record<string, unknown> = {}) =>
  rpc(`${bed.gateway.url}/agents/${servedId(seed)}`, 'SendMessage', {
    message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'hi' }], metadata: { skill } },
    ...extra,
  });

describe('seed agents on the in-process network', () => {
  it('are refused and counted while unverified agents are not allowed', async () => {
    const bed = await bedWith(false);
    const before = bed.gateway.discovery.counters.unverified;
    const seed = await seedOn(bed, 'agent:seed-refused');
    await eventually(() => (bed.gateway.discovery.counters.unverified === before + 1 ? true : undefined));
    expect(bed.gateway.directory.get(servedId(seed))).toBeUndefined();
    const response = await fetch(`${bed.gateway.url}/agents/${servedId(seed)}/.well-known/agent-card.json`);
    expect(response.status).toBe(404);
  });

  it('a card priced in a fraction of a base unit is refused and counted', async () => {
    const bed = await bedWith(true);
    const seed = await seedOn(bed, 'agent:seed-fraction', { price: '2.5' });
    await eventually(() => (bed.gateway.discovery.counters.badPrice === 1 ? true : undefined));
    expect(bed.gateway.directory.get(servedId(seed))).toBeUndefined();
  });

  it('a reply naming a fractional lez_price fails the task, saying why; a whole one is fine', async () => {
    const bed = await bedWith(true);
    const seed = await seedOn(bed, 'agent:seed-quote', { replyPrice: '0.5' });
    await eventually(() => bed.gateway.directory.get(servedId(seed)));
    const { body } = await send(bed, seed, 'quote');
    expect(body.result.task.status.state).toBe('TASK_STATE_FAILED');
    expect(body.result.task.status.message.parts[0].text).toMatch(
      /names lez_price "0\.5": 0\.5 LEZ is not a whole number of base units/,
    );
    expect(body.result.task.metadata.error).toMatchObject({ code: 'bad_price' });

    const whole = await seedOn(bed, 'agent:seed-quote-whole', { replyPrice: '3.0' });
    await eventually(() => bed.gateway.directory.get(servedId(whole)));
    expect((await send(bed, whole, 'quote')).body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a priced seed skill fails before anything is paid: the seed names no LEZ account to pay', async () => {
    const ledger = new MemoryLedger();
    ledger.fund('gateway-wallet', 1_000n);
    const bed = await bedWith(true, { payer: gatewayPayer(new MemoryRail({ ledger, payer: 'gateway-wallet' })) });
    const seed = await seedOn(bed, 'agent:seed-premium');
    await eventually(() => bed.gateway.directory.get(servedId(seed)));
    const { body } = await send(bed, seed, 'premium');
    expect(body.result.task.status.state).toBe('TASK_STATE_FAILED');
    expect(body.result.task.status.message.parts[0].text).toMatch(/publishes no LEZ account .*nothing was paid/);
    expect(ledger.balanceOf('gateway-wallet')).toBe(1_000n);
    // Nor did the request reach the agent: it would have worked unpaid.
    expect(seed.requests.filter((r) => r.skill === 'premium')).toEqual([]);
  });

  it('a task waiting for the seed agent’s owner takes no follow-up, and says why', async () => {
    const bed = await bedWith(true);
    const seed = await seedOn(bed, 'agent:seed-owner');
    await eventually(() => bed.gateway.directory.get(servedId(seed)));
    const { body } = await send(bed, seed, 'approval');
    expect(body.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const followUp = await rpc(`${bed.gateway.url}/agents/${servedId(seed)}`, 'SendMessage', {
      message: { messageId: 'f1', role: 'ROLE_USER', parts: [{ text: 'yes' }], taskId: body.result.task.id },
    });
    expect(followUp.body.error?.message).toMatch(/speaks the seed binding, which takes no input on a task/);
    expect(seed.requests.filter((r) => r.task_id === body.result.task.id).map((r) => r.type)).toEqual(['task_request']);
  });

  it('the open seed topic moves a task along, but only a 1:1 reply from the agent ends it', async () => {
    const bed = await bedWith(true);
    const seed = await seedOn(bed, 'agent:seed-slow');
    await eventually(() => bed.gateway.directory.get(servedId(seed)));
    const { body } = await send(bed, seed, 'slow', { configuration: { returnImmediately: true } });
    const taskId = body.result.task.id as string;
    const stateOf = async () =>
      (await rpc(`${bed.gateway.url}/agents/${servedId(seed)}`, 'GetTask', { id: taskId })).body.result.status.state;
    await eventually(async () => ((await stateOf()) === 'TASK_STATE_WORKING' ? true : undefined));
    const before = bed.gateway.engine.dropped.wrongSender;
    const forger = bed.network.node('agent:forger');
    await forger.start();
    const forged = { type: 'task_result', task_id: taskId, state: 'completed', result: 'forged' };
    await forger.publish(`/agent-task/1/${taskId}/json`, new TextEncoder().encode(JSON.stringify(forged)));
    await eventually(() => (bed.gateway.engine.dropped.wrongSender === before + 1 ? true : undefined));
    expect(await stateOf()).toBe('TASK_STATE_WORKING');
    // 1:1 from another node than the agent is refused too.
    await forger.send(bed.gateway.network.gateway.address, new TextEncoder().encode(JSON.stringify(forged)));
    await eventually(() => (bed.gateway.engine.dropped.wrongSender === before + 2 ? true : undefined));
    expect(await stateOf()).toBe('TASK_STATE_WORKING');
    await forger.stop();
  });

  it('after a gateway restart, the agent’s answer to task_get ({task_id, state, result_or_error}) ends the task', async () => {
    const bed = await bedWith(true);
    const seed = await seedOn(bed, 'agent:seed-held', { holdResults: true });
    await eventually(() => bed.gateway.directory.get(servedId(seed)));
    const { body } = await send(bed, seed, 'echo', { configuration: { returnImmediately: true } });
    const taskId = body.result.task.id as string;
    await eventually(async () => {
      const { body: now } = await rpc(`${bed.gateway.url}/agents/${servedId(seed)}`, 'GetTask', { id: taskId });
      return now.result.status.state === 'TASK_STATE_WORKING' ? true : undefined;
    });
    const gateway = await bed.restartGateway();
    const done = await eventually(async () => {
      const { body: now } = await rpc(`${gateway.url}/agents/${servedId(seed)}`, 'GetTask', { id: taskId });
      return now.result?.status.state === 'TASK_STATE_COMPLETED' ? now.result : undefined;
    });
    expect(done.artifacts[0].parts[0].text).toBe('hi');
    // Asked, never sent the task again: a seed agent would run it twice.
    expect(seed.requests.filter((r) => r.task_id === taskId).map((r) => r.type)).toEqual(['task_request', 'task_get']);
  });

  it('never sends a seed agent a lost request again, nor asks about it: it would run the task a second time', async () => {
    const bed = await bedWith(true);
    const network = inProcess(bed.network);
    const deliver = network.deliver.bind(network);
    let lost = 0;
    network.deliver = (table, name, payload, sender, key) => {
      const request = table === 'direct' && name === 'agent:seed-lost';
      if (request && new TextDecoder().decode(payload).includes('"task_request"') && lost++ === 0) return;
      deliver(table, name, payload, sender, key);
    };
    const seed = await seedOn(bed, 'agent:seed-lost');
    await eventually(() => bed.gateway.directory.get(servedId(seed)));
    const { body } = await send(bed, seed, 'echo', { configuration: { returnImmediately: true } });
    const taskId = body.result.task.id as string;
    // Past the first resend a binding agent would get (2 s).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(lost).toBe(1);
    expect(seed.requests.filter((r) => r.task_id === taskId)).toEqual([]);
  });
});
