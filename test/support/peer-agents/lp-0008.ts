/**
 * An outside agent of the lp-0008 binding, written from that binding's description with stock packages only: no
 * inbox; a task's request, cancel and status updates share `/lp-0008/1/task-{account}-{taskId}/json`, which this
 * relay node finds among all the messages of its shard. Plain A2A v0.3 JSON: `message/send` and `tasks/cancel` in,
 * `status-update` events out, each naming the agent's account in `metadata["x-logos"].from`. The card is a JWS with
 * a detached payload (BIP-340), its key printed apart (`xOnlyKey`), as the project publishes it beside the card.
 *
 *   node lp-0008.ts '{"peer": MULTIADDR, "clusterId": 3, "namespace": "agents", "tamperCard": false, "pricePerTask": 1}'
 *
 * Skills: `text.echo` (its `params.text`, completed), `text.slow` (working every 500 ms for `slowMs`, then completed;
 * cancellable until then), `text.ask` (input-required, then completed with a greeting of the continuation's
 * `message`). Prints `{"event":"ready","account","paymentAccount","xOnlyKey"}`, then each request.
 */
import { schnorr } from '@noble/curves/secp256k1.js';
import { base58 } from '@scure/base';
import { signBip340Jws, xOnlyPublicHex } from './peer-crypto.ts';
import { agentArguments, joinRelay, print, stopOnSignal } from './relay-node.ts';

const {
  peer,
  clusterId = 3,
  namespace = 'agents',
  tamperCard = false,
  slowMs = 3_000,
  pricePerTask = 1,
  paymentAccount = base58.encode(crypto.getRandomValues(new Uint8Array(32))),
} = agentArguments<{
  peer: string;
  clusterId?: number;
  namespace?: string;
  tamperCard?: boolean;
  slowMs?: number;
  pricePerTask?: number;
  /** The LEZ account it is paid to, and its card's kid (default: a fresh one, which no chain knows). */
  paymentAccount?: string;
}>('lp-0008.ts \'{"peer": MULTIADDR}\'');

const account = base58.encode(crypto.getRandomValues(new Uint8Array(32)));
const cardKey = schnorr.utils.randomSecretKey();
const taskPrefix = `/lp-0008/1/task-${account}-`;
const discovery = `/lp-0008/1/discovery-${namespace}/json`;
const hex32 = () => crypto.randomUUID().replaceAll('-', '');

const card = signBip340Jws(
  {
    protocolVersion: '0.3.0',
    name: 'logos-text-agent',
    description: 'Echoes text, quickly or slowly',
    url: `logos-messaging://${account}`,
    preferredTransport: 'logos-messaging',
    version: '0.1.0',
    provider: { organization: 'peer agents of logos-a2a tests' },
    capabilities: { streaming: true, stateTransitionHistory: true, pushNotifications: false },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: [
      { id: 'text.echo', name: 'text.echo', description: 'Echoes text', tags: ['text'] },
      { id: 'text.slow', name: 'text.slow', description: 'Echoes text after a while', tags: ['text'] },
      { id: 'text.ask', name: 'text.ask', description: 'Asks for a name, then greets it', tags: ['text'] },
    ],
    'x-logos': {
      lezAccount: account,
      paymentAccount: `Public/${paymentAccount}`,
      pricePerTask,
      settlement: 'lez-chained-authenticated-transfer',
    },
  },
  cardKey,
  paymentAccount,
);
const published = tamperCard ? { ...card, name: 'logos-text-agent2' } : card;

const node = await joinRelay(peer, clusterId, discovery);
const encoder = new TextEncoder();
const FINAL = new Set(['completed', 'canceled', 'failed', 'rejected']);

interface Task {
  readonly topic: string;
  readonly contextId: string;
  state: string;
  timer?: NodeJS.Timeout;
}
const tasks = new Map<string, Task>();

async function update(taskId: string, task: Task, state: string, text?: string): Promise<void> {
  task.state = state;
  const message =
    text === undefined
      ? {}
      : {
          message: {
            kind: 'message',
            role: 'agent',
            messageId: hex32(),
            taskId,
            contextId: task.contextId,
            parts: [{ kind: 'text', text }],
          },
        };
  const event = {
    kind: 'status-update',
    taskId,
    contextId: task.contextId,
    final: FINAL.has(state),
    status: { state, ...message },
    metadata: { 'x-logos': { from: account } },
  };
  await node.publish(task.topic, encoder.encode(JSON.stringify(event)));
}

interface Rpc {
  method?: string;
  params?: {
    id?: string;
    message?: {
      taskId?: string;
      contextId?: string;
      parts?: { kind?: string; data?: { skill?: string; message?: unknown; params?: { text?: unknown } } }[];
    };
  };
}

async function handle(topic: string, rpc: Rpc): Promise<void> {
  const taskIdOfTopic = topic.slice(taskPrefix.length, -'/json'.length);
  if (rpc.method === 'tasks/cancel') {
    const task = tasks.get(taskIdOfTopic);
    if (!task || FINAL.has(task.state) || rpc.params?.id !== taskIdOfTopic) return;
    clearInterval(task.timer);
    return update(taskIdOfTopic, task, 'canceled', 'cancelled on request');
  }
  const message = rpc.params?.message;
  if (rpc.method !== 'message/send' || message?.taskId !== taskIdOfTopic || !message.contextId) return;
  const known = tasks.get(taskIdOfTopic);
  if (known) {
    // A continuation: the answer to input-required, on the same task and context.
    const answer = message.parts?.find((part) => part.kind === 'data')?.data?.message;
    if (known.state !== 'input-required' || message.contextId !== known.contextId || typeof answer !== 'string') return;
    return update(taskIdOfTopic, known, 'completed', `hello, ${answer}`);
  }
  const task: Task = { topic, contextId: message.contextId, state: 'submitted' };
  tasks.set(taskIdOfTopic, task);
  const data = message.parts?.find((part) => part.kind === 'data')?.data;
  const text = typeof data?.params?.text === 'string' ? data.params.text : '';
  if (data?.skill === 'text.echo') return update(taskIdOfTopic, task, 'completed', text);
  if (data?.skill === 'text.ask') return update(taskIdOfTopic, task, 'input-required', 'what is your name?');
  if (data?.skill !== 'text.slow') return update(taskIdOfTopic, task, 'rejected', `no skill ${String(data?.skill)}`);
  await update(taskIdOfTopic, task, 'working', 'started');
  const started = Date.now();
  task.timer = setInterval(() => {
    if (Date.now() - started < slowMs) return void update(taskIdOfTopic, task, 'working', 'still working');
    clearInterval(task.timer);
    void update(taskIdOfTopic, task, 'completed', text);
  }, 500);
}

node.onMessage((topic, payload) => {
  if (!topic.startsWith(taskPrefix) || !topic.endsWith('/json')) return;
  let rpc: Rpc & { kind?: string };
  try {
    rpc = JSON.parse(new TextDecoder().decode(payload)) as Rpc & { kind?: string };
  } catch {
    return;
  }
  if (rpc.kind === 'status-update') return; // its own, relayed back by a peer
  print({ event: 'request', topic, method: rpc.method });
  void handle(topic, rpc).catch((failure: unknown) => print({ event: 'error', message: String(failure) }));
});

const announce = () => node.publish(discovery, encoder.encode(JSON.stringify(published)));
await announce();
const announcing = setInterval(() => void announce(), 1_000);
print({ event: 'ready', account, paymentAccount, xOnlyKey: xOnlyPublicHex(cardKey) });
stopOnSignal(node, announcing);
