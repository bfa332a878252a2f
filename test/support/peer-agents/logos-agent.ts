/**
 * An outside agent of the logos-agent binding, written from that binding's description with stock packages only:
 * plain JSON told apart by `kind`, requests and cancels on `/logos-agent/1/a2a-{account}-inbox/proto`, updates for
 * every client on `/logos-agent/1/a2a-{account}-updates/proto`, an Ed25519 card over its struct-order JSON. Like the
 * original it reads its inbox in batches and honours a cancel only in the batch of its request.
 *
 * A test decides what one batch holds: the line `hold` on its stdin stops the draining (it prints
 * `{"event":"holding"}`), and `drain` drains what arrived meanwhile as one batch at once (it prints
 * `{"event":"drained","requests":[…],"cancels":[…]}`, task ids) and lets the timer drain again. So a cancel is in its
 * request's batch, or after it, because the test said so, not because the timer happened to tick between the two.
 *
 *   node logos-agent.ts '{"peer": MULTIADDR, "clusterId": 2, "tamperCard": false, "echoPriceLez": "10"}'
 *
 * Skills: `demo.echo` ({text} → {echo: text}); `demo.slow` (working, then {done: true} after `slowMs`). Prints
 * `{"event":"ready","account":…,"signingPubkey":…}`, then `{"event":"request",…}` per inbox message.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';
import { signEd25519Card } from './peer-crypto.ts';
import { agentArguments, joinRelay, print, stopOnSignal } from './relay-node.ts';

const {
  peer,
  clusterId = 2,
  tamperCard = false,
  slowMs = 3_000,
  batchMs = 400,
  echoPriceLez = '10',
  account = base58.encode(crypto.getRandomValues(new Uint8Array(32))),
} = agentArguments<{
  peer: string;
  clusterId?: number;
  tamperCard?: boolean;
  echoPriceLez?: string;
  slowMs?: number;
  batchMs?: number;
  /** The LEZ account it is paid to (default: a fresh one, which no chain knows). */
  account?: string;
}>('logos-agent.ts \'{"peer": MULTIADDR}\'');

const signingKey = ed25519.utils.randomSecretKey();
const inbox = `/logos-agent/1/a2a-${account}-inbox/proto`;
const updates = `/logos-agent/1/a2a-${account}-updates/proto`;
const DISCOVERY = '/logos-agent/1/a2a-discovery/proto';

// Members in the agent's struct order: the signature covers exactly this text.
const card = signEd25519Card(
  {
    protocolVersion: '0.2.5',
    name: 'greeter-agent',
    description: 'Logos-native A2A agent',
    version: '1.0.0',
    address: inbox,
    lezAccount: account,
    capabilities: { streaming: false },
    skills: [
      { id: 'demo.echo', name: 'demo.echo', description: 'Echo back the provided text.', priceLez: echoPriceLez },
      { id: 'demo.slow', name: 'demo.slow', description: 'Works a while, then says it is done.', priceLez: '0' },
    ],
    signingPubkey: bytesToHex(ed25519.getPublicKey(signingKey)),
  },
  signingKey,
);
const published = tamperCard ? { ...card, description: 'Logos-native A2A agent!' } : card;

const node = await joinRelay(peer, clusterId, inbox);
const encoder = new TextEncoder();
const update = (taskId: string, state: string, result: unknown = null) =>
  node.publish(updates, encoder.encode(JSON.stringify({ kind: 'task_update', taskId, state, result })));

interface Inbound {
  kind?: string;
  taskId?: string;
  skill?: string;
  params?: { text?: unknown };
}
let batch: Inbound[] = [];
node.onMessage((topic, payload) => {
  if (topic !== inbox) return;
  try {
    const message = JSON.parse(new TextDecoder().decode(payload)) as Inbound;
    print({ event: 'request', message });
    batch.push(message);
  } catch {
    // The original gives up on the whole batch at a message it cannot parse; this one skips it.
  }
});

async function run(request: Inbound, cancelled: boolean): Promise<void> {
  const taskId = request.taskId!;
  if (cancelled) return update(taskId, 'canceled');
  await update(taskId, 'working');
  if (request.skill === 'demo.echo') return update(taskId, 'completed', { echo: request.params?.text ?? '' });
  if (request.skill === 'demo.slow') {
    await new Promise((resolve) => setTimeout(resolve, slowMs));
    return update(taskId, 'completed', { done: true });
  }
  return update(taskId, 'failed', { error: `unknown skill: ${request.skill}` });
}

/** Drains one batch: a cancel counts only for a request in the same batch. */
function drain(): { requests: string[]; cancels: string[] } {
  const drained = batch;
  batch = [];
  const cancels = new Set(drained.filter((m) => m.kind === 'task_cancel').map((m) => m.taskId));
  const requests = drained.filter((m) => m.kind === 'task_request' && typeof m.taskId === 'string');
  for (const request of requests) void run(request, cancels.has(request.taskId)).catch(() => undefined);
  return { requests: requests.map((m) => m.taskId!), cancels: [...cancels].filter((id) => id !== undefined) };
}

let held = false;
const serving = setInterval(() => {
  if (!held) drain();
}, batchMs);
let command = '';
process.stdin.setEncoding('utf8').on('data', (chunk: string) => {
  const lines = (command + chunk).split('\n');
  command = lines.pop()!;
  for (const line of lines) {
    if (line === 'hold') {
      held = true;
      print({ event: 'holding' });
    } else if (line === 'drain') {
      held = false;
      print({ event: 'drained', ...drain() });
    }
  }
});

const announce = () => node.publish(DISCOVERY, encoder.encode(JSON.stringify(published)));
await announce();
const announcing = setInterval(() => void announce(), 1_000);
print({ event: 'ready', account, signingPubkey: card.signingPubkey });
stopOnSignal(node, serving, announcing);
// Its stdin open keeps nothing alive: the timers do, until SIGTERM.
process.stdin.unref();
