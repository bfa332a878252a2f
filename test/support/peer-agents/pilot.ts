/**
 * An outside agent of the pilot binding, written from that binding's description with stock packages only:
 * requests arrive ECIES-encrypted on `/pilot/1/inbox-{enc_key}/proto`, each signed (ES256K over sorted compact JSON)
 * by a key pinned to its `sender_npk` at first contact; each gets exactly one reply, signed and encrypted to the
 * sender's `sender_ecies` on its `reply_topic`. The card is signed ES256K and published on `/pilot/1/discovery/proto`.
 *
 *   node pilot.ts '{"peer": MULTIADDR, "clusterId": 2, "tamperCard": false, "slowMs": 3000, "pricing": {"agent-ask": 5}}'
 *
 * Skills: `agent-ask` ({prompt} → {answer: prompt}, priced 5), `slow` (answers {done: true} after `slowMs`, unless
 * cancelled first by its sender), `ping`. Prints `{"event":"ready",…}`, then `{"event":"request"|"dropped",…}`.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { eciesDecrypt, eciesEncrypt, es256kSign, es256kVerify, pilotSign, secp256k1PublicHex } from './peer-crypto.ts';
import { agentArguments, joinRelay, print, stopOnSignal } from './relay-node.ts';

const {
  peer,
  clusterId = 2,
  tamperCard = false,
  slowMs = 3_000,
  pricing = { 'agent-ask': 5 },
} = agentArguments<{
  peer: string;
  clusterId?: number;
  tamperCard?: boolean;
  slowMs?: number;
  pricing?: Record<string, number>;
}>('pilot.ts \'{"peer": MULTIADDR}\'');

const signingKey = secp256k1.utils.randomSecretKey();
const encKey = secp256k1.utils.randomSecretKey();
const encHex = secp256k1PublicHex(encKey);
const inbox = `/pilot/1/inbox-${encHex}/proto`;
const npk = JSON.stringify({ nullifier_public_key: crypto.randomUUID(), viewing_public_key: crypto.randomUUID() });
const DISCOVERY = '/pilot/1/discovery/proto';

const unsignedCard = {
  _logos: {
    enc_key: encHex,
    inbox_topic: inbox,
    npk,
    open_for_hire: true,
    payment: 'lez',
    payment_timing: 'on-acceptance',
    payout: npk,
    pricing,
    signing_key: secp256k1PublicHex(signingKey),
    transport: 'waku',
  },
  authentication: { credentials: `npk:${npk}`, schemes: ['ecies'] },
  capabilities: { pushNotifications: true, stateTransitionHistory: true, streaming: true },
  defaultInputModes: ['application/json'],
  defaultOutputModes: ['application/json'],
  description: 'Sovereign AI agent on LEZ with wallet, storage, and messaging',
  name: 'Pilot Agent',
  skills: [
    { description: 'Answers a prompt', id: 'agent-ask', name: 'Agent Ask', x_access: 'autonomous' },
    { description: 'Takes its time', id: 'slow', name: 'Slow', x_access: 'autonomous' },
    { description: 'Pong', id: 'ping', name: 'Ping', x_access: 'autonomous' },
  ],
  url: `waku:${inbox}`,
  version: '1.0.0',
};
const card = {
  ...unsignedCard,
  signature: {
    alg: 'ES256K',
    publicKey: secp256k1PublicHex(signingKey),
    value: es256kSign(unsignedCard, signingKey, true),
  },
};
const published = tamperCard ? { ...card, description: `${card.description}.` } : card;

const node = await joinRelay(peer, clusterId, inbox);
const encoder = new TextEncoder();

interface Request {
  _logos?: {
    reply_topic?: string;
    sender_ecies?: string;
    sender_npk?: string;
    signature?: string;
    signing_key?: string;
  };
  id?: unknown;
  method?: string;
  params?: { id?: string; message?: { parts?: { text?: unknown }[] }; metadata?: { skill?: string } };
}

/** sender_npk → signing key, first contact wins. */
const pins = new Map<string, string>();
/** task id → its sender and, once answered, the reply it got (a repeated request gets it again). */
const tasks = new Map<string, { sender: string; reply?: Record<string, unknown>; timer?: NodeJS.Timeout }>();

async function reply(request: Request, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { reply_topic, sender_ecies } = request._logos ?? {};
  if (reply_topic && sender_ecies) {
    const signed = pilotSign({ jsonrpc: '2.0', ...body }, signingKey);
    await node.publish(reply_topic, encoder.encode(eciesEncrypt(sender_ecies, JSON.stringify(signed))));
  }
  return body;
}

const error = (request: Request, code: number, message: string) =>
  reply(request, { id: request.id, error: { code, message } });
const result = (request: Request, taskId: string, state: string, value?: unknown) =>
  reply(request, {
    id: request.id,
    result: { id: taskId, ...(value === undefined ? {} : { result: value }), status: { state } },
  });

function verified(request: Request): boolean {
  const logos = request._logos;
  if (!logos?.signature || !logos.signing_key || !logos.sender_npk) return false;
  const { signature, ...rest } = logos;
  if (!es256kVerify({ ...request, _logos: rest }, signature, logos.signing_key)) return false;
  const pinned = pins.get(logos.sender_npk);
  if (pinned !== undefined && pinned !== logos.signing_key) return false;
  pins.set(logos.sender_npk, logos.signing_key);
  return true;
}

async function handle(request: Request): Promise<void> {
  const taskId = request.params?.id;
  const skill = request.params?.metadata?.skill;
  const sender = request._logos!.sender_npk!;
  if (request.method === 'tasks/cancel') {
    const task = taskId ? tasks.get(taskId) : undefined;
    if (!task) return void (await error(request, -32001, 'task not found'));
    if (task.sender !== sender) return void (await error(request, -32003, 'not the task sender'));
    if (task.reply) return void (await error(request, -32002, 'task not cancelable'));
    clearTimeout(task.timer);
    task.reply = await result(request, taskId!, 'canceled');
    return;
  }
  if (request.method !== 'tasks/send') return void (await error(request, -32601, 'unknown method'));
  if (!taskId || !skill) return void (await error(request, -32602, 'missing task id, skill or sender'));
  const known = tasks.get(taskId);
  if (known?.reply) return void (await reply(request, known.reply));
  if (known) return;
  let input = request.params?.message?.parts?.[0]?.text;
  if (typeof input === 'string') input = JSON.parse(input) as unknown;
  const task: { sender: string; reply?: Record<string, unknown>; timer?: NodeJS.Timeout } = { sender };
  tasks.set(taskId, task);
  if (skill === 'agent-ask')
    task.reply = await result(request, taskId, 'completed', { answer: (input as { prompt?: unknown })?.prompt });
  else if (skill === 'ping') task.reply = await result(request, taskId, 'completed', { pong: true, ts: Date.now() });
  else if (skill === 'slow') {
    task.timer = setTimeout(
      () => void result(request, taskId, 'completed', { done: true }).then((r) => (task.reply = r)),
      slowMs,
    );
  } else task.reply = await error(request, -32004, 'unsupported skill');
}

node.onMessage((topic, payload) => {
  if (topic !== inbox) return;
  const plaintext = eciesDecrypt(encKey, new TextDecoder().decode(payload));
  if (plaintext === undefined) return print({ event: 'dropped', why: 'undecryptable' });
  let request: Request;
  try {
    request = JSON.parse(plaintext) as Request;
  } catch {
    return print({ event: 'dropped', why: 'not json' });
  }
  if (!verified(request)) return print({ event: 'dropped', why: 'unsigned, badly signed or not the pinned key' });
  print({ event: 'request', method: request.method, id: request.params?.id });
  void handle(request).catch((failure: unknown) => print({ event: 'error', message: String(failure) }));
});

const announce = () => node.publish(DISCOVERY, encoder.encode(JSON.stringify(published)));
await announce();
const announcing = setInterval(() => void announce(), 1_000);
print({ event: 'ready', encKey: encHex, signingKey: secp256k1PublicHex(signingKey), npk });
stopOnSignal(node, announcing);
