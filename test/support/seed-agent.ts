/**
 * A Logos agent written from the seed binding alone (LP-0008's A2A_BINDING.md): nothing of this project's binding,
 * only the seed's fields. Its card is the seed's (`logos-agent:<hex>` id, no description or version, an `a2a`
 * interface, a base64 signature over the card's bytes, decimal prices), posted bare on the discovery topic; it
 * takes `{type, task_id, skill, params, lez_price}` 1:1, posts status on the task's topic, and answers results,
 * failures (`error` a string), `cancel` and `task_get` (`{task_id, state, result_or_error}`) 1:1.
 *
 * The transport is the only thing borrowed: the seed leaves the framing of its chat and delivery modules to them.
 * Skills: `echo` (the text back), `slow` (works until cancelled), `steady` (works for `steadyForMs`, then completes),
 * `fail`, `quote` (completes, naming `replyPrice` as its `lez_price`), `approval` (waits in input-required for its
 * owner), `premium` (priced `price`). With `holdResults`, results are kept for `task_get` only. With `reportEveryMs`,
 * a working task's status is published again, byte for byte, that often (as a seed agent shows it is alive).
 */
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import type { LogosTransport } from '../../src/logos/transport.ts';

export interface SeedAgentOptions {
  discoveryTopic: string;
  /** The `premium` skill's price, decimal LEZ. */
  price?: string;
  /** The `lez_price` the `quote` skill's result names. */
  replyPrice?: string;
  announceEveryMs?: number;
  /** Answer results only when asked (task_get), as if every reply had been lost. */
  holdResults?: boolean;
  /** Publish a working task's unchanged status this often; absent: once. */
  reportEveryMs?: number;
  /** How long the `steady` skill works (default 6 s). */
  steadyForMs?: number;
}

export interface SeedAgent {
  card: Record<string, unknown>;
  /** Every request received, as it came. */
  requests: Record<string, unknown>[];
  announce(): Promise<void>;
  stop(): void;
}

export function seedCard(address: string, price = '5.0'): Record<string, unknown> {
  // The seed's NPK stands in as a hash of the node's address: any 32 bytes in hex name the agent.
  const npk = createHash('sha256').update(address).digest('hex');
  const card: Record<string, unknown> = {
    id: `logos-agent:${npk}`,
    name: 'Seed Agent',
    provider: { organization: 'seed', url: 'https://example.org/seed' },
    capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: true },
    securitySchemes: { lez: { type: 'apiKey', description: 'Transfer x-lez-price LEZ to the agent NPK first.' } },
    agentInterfaces: [{ type: 'a2a', transport: 'logos-messaging', address }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json'],
    'x-lez-identity': { npk, account_id: npk },
    'x-lez-price': '0',
    skills: [
      { id: 'echo', name: 'Echo', description: 'Says it back.', tags: ['demo'], 'x-lez-price': '0.0' },
      { id: 'slow', name: 'Slow', description: 'Works until cancelled.', tags: ['demo'] },
      { id: 'fail', name: 'Fail', description: 'Always fails.', tags: ['demo'] },
      { id: 'quote', name: 'Quote', description: 'Names a price in its reply.', tags: ['demo'] },
      { id: 'approval', name: 'Approval', description: 'Waits for its owner.', tags: ['demo'] },
      { id: 'premium', name: 'Premium', description: 'Costs LEZ.', tags: ['demo'], 'x-lez-price': price },
      { id: 'steady', name: 'Steady', description: 'Works a while, then completes.', tags: ['demo'] },
    ],
  };
  // "The card is signed with the agent's LEZ key": the seed names no algorithm or bytes; ed25519 over the JSON here.
  const { privateKey } = generateKeyPairSync('ed25519');
  card.signature = sign(null, Buffer.from(JSON.stringify(card)), privateKey).toString('base64');
  return card;
}

interface SeedRequest {
  type: string;
  task_id: string;
  skill: string;
  params: { text?: string };
  lez_price: string;
}

export function runSeedAgent(transport: LogosTransport, options: SeedAgentOptions): SeedAgent {
  const card = seedCard(transport.address, options.price);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const json = (value: unknown) => encoder.encode(JSON.stringify(value));
  const requests: Record<string, unknown>[] = [];
  /** What the agent knows of each task, for `task_get`. */
  const tasks = new Map<string, { state: string; result_or_error?: unknown }>();

  const status = (taskId: string, state: string) =>
    transport.publish(`/agent-task/1/${taskId}/json`, json({ type: 'task_status', task_id: taskId, state }));
  /** Reports a working task again and again, until it is no longer working. */
  const keepReporting = (taskId: string) => {
    if (!options.reportEveryMs) return;
    const timer = setInterval(() => {
      if (tasks.get(taskId)?.state !== 'working') return clearInterval(timer);
      void status(taskId, 'working').catch(() => undefined);
    }, options.reportEveryMs);
    timer.unref();
    reporters.add(timer);
  };
  const reporters = new Set<NodeJS.Timeout>();

  const stopDirect = transport.onDirect((payload, { sender }) => {
    if (sender === undefined) return;
    const request = JSON.parse(decoder.decode(payload)) as SeedRequest;
    requests.push(request as unknown as Record<string, unknown>);
    const { task_id } = request;
    const reply = (envelope: Record<string, unknown>) => transport.send(sender, json(envelope));
    const finish = async (state: string, envelope: Record<string, unknown>, resultOrError: unknown) => {
      tasks.set(task_id, { state, result_or_error: resultOrError });
      if (!options.holdResults) await reply({ type: 'task_result', task_id, state, ...envelope });
    };
    switch (request.type) {
      case 'task_request':
        tasks.set(task_id, { state: 'working' });
        keepReporting(task_id);
        void status(task_id, 'working').then(async () => {
          if (request.skill === 'approval') {
            tasks.set(task_id, { state: 'input-required' });
            await status(task_id, 'input-required');
          }
          const text = request.params.text ?? '';
          if (request.skill === 'echo') await finish('completed', { result: text }, text);
          if (request.skill === 'fail') {
            const error = 'the seed agent cannot do that';
            await finish('failed', { error }, error);
          }
          if (request.skill === 'quote')
            await finish('completed', { result: 'quoted', lez_price: options.replyPrice ?? '1.0' }, 'quoted');
          if (request.skill === 'premium') await finish('completed', { result: 'premium' }, 'premium');
          if (request.skill === 'steady') {
            await new Promise((resolve) => setTimeout(resolve, options.steadyForMs ?? 6_000));
            if (tasks.get(task_id)?.state === 'working') await finish('completed', { result: text }, text);
          }
        });
        break;
      case 'cancel':
        tasks.set(task_id, { state: 'canceled' });
        void reply({ type: 'cancelled', task_id });
        break;
      case 'task_get': {
        const known = tasks.get(task_id);
        if (known) void reply({ task_id, ...known });
        break;
      }
    }
  });

  const announce = () => transport.publish(options.discoveryTopic, json(card));
  const timer = setInterval(() => void announce().catch(() => undefined), options.announceEveryMs ?? 30_000);
  timer.unref();
  return {
    card,
    requests,
    announce,
    stop() {
      clearInterval(timer);
      for (const reporter of reporters) clearInterval(reporter);
      stopDirect();
    },
  };
}
