/**
 * The hex test vectors of docs/binding.md §2.9, checked on every run so that they cannot drift from the code: what
 * can be recomputed (addresses, topics, shards, the address proof, the card signature) is recomputed and compared;
 * the encrypted payloads (ECIES and AES-GCM draw fresh randomness) are opened with the stock decoders of
 * @waku/message-encryption and with the transport's own code, and must give the documented body and signer.
 *
 * `UPDATE_WIRE_VECTORS=1 npx vitest run test/logos/wire-vectors.test.ts` writes a fresh set into the document.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { createDecoder as createEciesDecoder } from '@waku/message-encryption/ecies';
import { createDecoder as createSymmetricDecoder } from '@waku/message-encryption/symmetric';
import { createRoutingInfo } from '@waku/utils';
import { describe, expect, it } from 'vitest';
import { signLogosCard } from '../../src/logos/card-signature.ts';
import { readAnnouncedCard } from '../../src/logos/card-reading.ts';
import { taskStatusTopic } from '../../src/logos/envelope.ts';
import { statusKeyBytes } from '../../src/logos/status-key.ts';
import {
  addressFromPublicKey,
  inboxTopic,
  proveAddress,
  wakuIdentity,
} from '../../src/logos/transports/waku/identity.ts';
import { openDirect, openKeyed, sealDirect, sealKeyed } from '../../src/logos/transports/waku/payloads.ts';
import { WakuTransport } from '../../src/logos/transports/waku.ts';
import { formatAccountId, publicAccountId } from '../../src/lez/account-id.ts';
import { xOnlyPublicKey } from '../../src/lez/public-key.ts';

const DOC = new URL('../../docs/binding.md', import.meta.url);
const BEGIN = '<!-- wire-vectors:begin -->\n```json\n';
const END = '\n```\n<!-- wire-vectors:end -->';

const GATEWAY_KEY = new Uint8Array(32).fill(0x11);
const AGENT_KEY = new Uint8Array(32).fill(0x22);
const CARD_KEY = new Uint8Array(32).fill(0x44);
const STATUS_KEY = Buffer.alloc(32, 0x33).toString('base64url');
const TASK_ID = '7d3c4b1a-2f6e-4c1d-9b8a-0e5f6a7b8c9d';
const NETWORK = { clusterId: 2, numShardsInCluster: 8 };

const gateway = wakuIdentity(GATEWAY_KEY);
const agent = wakuIdentity(AGENT_KEY);
const account = formatAccountId(publicAccountId(xOnlyPublicKey(CARD_KEY)));
const statusTopic = taskStatusTopic(TASK_ID);
const utf8 = (text: string) => new TextEncoder().encode(text);
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

const REQUEST = JSON.stringify({
  v: 1,
  type: 'task_request',
  id: '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
  task_id: TASK_ID,
  from: gateway.address,
  to: agent.address,
  status_key: STATUS_KEY,
  context_id: 'c0ffee00-0000-4000-8000-000000000001',
  skill: 'shout',
  params: { text: 'hello' },
  lez_price: '0',
});
const RESULT = JSON.stringify({
  v: 1,
  type: 'task_result',
  id: '1a2b3c4d-5e6f-4a0b-8c1d-2e3f4a5b6c7d',
  task_id: TASK_ID,
  seq: 1,
  state: 'completed',
  result: 'HELLO',
});

function card(): Record<string, unknown> {
  return signLogosCard(
    {
      id: 'upper',
      name: 'Upper',
      description: 'Shouts.',
      version: '1.0.0',
      skills: [{ id: 'shout', name: 'Shout', description: 'Upper-cases text', tags: [] }],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: agent.address }],
      'x-issued-at': '2026-01-01T00:00:00.000Z',
      'x-logos-address-proof': proveAddress(AGENT_KEY, account),
    },
    CARD_KEY,
    { auxRand: new Uint8Array(32) },
  );
}

/** What the vectors say that does not depend on randomness. */
function deterministic() {
  const shardOf = (topic: string) => new WakuTransport(NETWORK).pubsubTopicFor(topic);
  return {
    keys: {
      gateway_secret_key: bytesToHex(GATEWAY_KEY),
      agent_secret_key: bytesToHex(AGENT_KEY),
      card_secret_key: bytesToHex(CARD_KEY),
      status_key: STATUS_KEY,
    },
    addresses: {
      gateway: gateway.address,
      agent: agent.address,
      agent_compressed: `waku:${bytesToHex(secp256k1.getPublicKey(AGENT_KEY, true))}`,
      agent_inbox_topic: agent.inboxTopic,
      agent_inbox_pubsub_topic: shardOf(agent.inboxTopic),
    },
    task: { task_id: TASK_ID, status_topic: statusTopic, status_pubsub_topic: shardOf(statusTopic) },
    card: { account_id: account, address_proof: proveAddress(AGENT_KEY, account), announced: card() },
  };
}

type Vectors = ReturnType<typeof deterministic> & {
  direct: { content_topic: string; version: 1; body: string; payload_hex: string };
  status: { content_topic: string; version: 1; body: string; payload_hex: string };
};

async function generate(): Promise<Vectors> {
  return {
    ...deterministic(),
    direct: {
      content_topic: agent.inboxTopic,
      version: 1,
      body: REQUEST,
      payload_hex: bytesToHex(await sealDirect(GATEWAY_KEY, agent.publicKey, utf8(REQUEST))),
    },
    status: {
      content_topic: statusTopic,
      version: 1,
      body: RESULT,
      payload_hex: bytesToHex(await sealKeyed(AGENT_KEY, statusKeyBytes(STATUS_KEY), utf8(RESULT))),
    },
  };
}

function documented(): Vectors {
  const doc = readFileSync(DOC, 'utf8');
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error('docs/binding.md has no wire-vectors block');
  return JSON.parse(doc.slice(start + BEGIN.length, end)) as Vectors;
}

if (process.env.UPDATE_WIRE_VECTORS === '1') {
  const doc = readFileSync(DOC, 'utf8');
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  const block = JSON.stringify(await generate(), null, 2);
  writeFileSync(DOC, doc.slice(0, start + BEGIN.length) + block + doc.slice(end));
}

describe('the wire vectors of docs/binding.md', () => {
  const vectors = documented();

  it('addresses, topics, shards, the address proof and the signed card are what the code computes', () => {
    expect({ ...vectors, direct: undefined, status: undefined }).toEqual({
      ...deterministic(),
      direct: undefined,
      status: undefined,
    });
    expect(addressFromPublicKey(hexToBytes(vectors.addresses.agent_compressed.slice(5)))).toBe(agent.address);
    expect(inboxTopic(vectors.addresses.agent_compressed)).toBe(vectors.addresses.agent_inbox_topic);
    expect(readAnnouncedCard(vectors.card.announced)).toMatchObject({ ok: true, accountId: account });
  });

  it('the 1:1 payload opens with the stock ECIES decoder and with ours: the request, signed by the gateway', async () => {
    const { direct } = vectors;
    const routing = createRoutingInfo(NETWORK, { contentTopic: direct.content_topic });
    const decoded = await createEciesDecoder(direct.content_topic, routing, AGENT_KEY).fromProtoObj(
      routing.pubsubTopic,
      { payload: hexToBytes(direct.payload_hex), contentTopic: direct.content_topic, version: 1 } as never,
    );
    expect(decoded && text(decoded.payload)).toBe(direct.body);
    expect(decoded?.signaturePublicKey && addressFromPublicKey(decoded.signaturePublicKey)).toBe(gateway.address);
    const opened = await openDirect(AGENT_KEY, agent.address, hexToBytes(direct.payload_hex));
    expect(opened.ok && { body: text(opened.body), sender: opened.sender }).toEqual({
      body: direct.body,
      sender: gateway.address,
    });
  });

  it('the status payload opens with the stock symmetric decoder and with ours: the result, signed by the agent', async () => {
    const { status } = vectors;
    const routing = createRoutingInfo(NETWORK, { contentTopic: status.content_topic });
    const key = statusKeyBytes(vectors.keys.status_key);
    const decoded = await createSymmetricDecoder(status.content_topic, routing, key).fromProtoObj(routing.pubsubTopic, {
      payload: hexToBytes(status.payload_hex),
      contentTopic: status.content_topic,
      version: 1,
    } as never);
    expect(decoded && text(decoded.payload)).toBe(status.body);
    expect(decoded?.signaturePublicKey && addressFromPublicKey(decoded.signaturePublicKey)).toBe(agent.address);
    const opened = await openKeyed(key, hexToBytes(status.payload_hex));
    expect(opened.ok && { body: text(opened.body), sender: opened.sender }).toEqual({
      body: status.body,
      sender: agent.address,
    });
  });
});
