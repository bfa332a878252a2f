/**
 * A restarted gateway listed a verified agent `verified: false`, its served card without `logosCardSignature`,
 * until the agent announced itself again: the directory kept the card without its signature. Now it keeps the card
 * as signed and verifies it again at start; a stored card that no longer verifies is left out.
 */
import { randomBytes } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogosAgentCard } from '../../src/logos/card.ts';
import { signLogosCard } from '../../src/logos/card-signature.ts';
import { DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement } from '../../src/logos/discovery.ts';
import { eventually, startTestBed, type TestBed } from '../support/gateway.ts';

let bed: TestBed;
beforeAll(async () => (bed = await startTestBed()));
afterAll(() => bed.close());

const signedCard = (id: string) =>
  signLogosCard(
    LogosAgentCard.parse({
      id,
      name: `Agent ${id}`,
      description: 'verified, then the gateway restarts',
      version: '1',
      skills: [{ id: 'echo', name: 'Echo', description: '' }],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: `agent:${id}` }],
    }),
    randomBytes(32),
  );

/** What the gateway says of the agent: its index entry, and the signature its served card carries. */
async function standing(id: string) {
  const { agents } = (await (await fetch(`${bed.gateway.url}/agents`)).json()) as {
    agents: { id: string; verified: boolean }[];
  };
  const response = await fetch(`${bed.gateway.url}/agents/${id}/.well-known/agent-card.json`);
  if (response.status !== 200) return { listed: agents.find((a) => a.id === id), status: response.status };
  const card = (await response.json()) as {
    capabilities: { extensions: { uri: string; params?: { logosCardSignature?: { account: string } } }[] };
  };
  const logos = card.capabilities.extensions.find((e) => e.uri === 'urn:logos-a2a:ext:logos-agent:v1');
  return { listed: agents.find((a) => a.id === id), status: 200, signature: logos?.params?.logosCardSignature };
}

describe('a verified agent across a gateway restart', () => {
  it('stays verified, its card signed, before it announces itself again', async () => {
    const card = signedCard('kept-verified');
    const node = bed.network.node('agent:kept-verified');
    await node.start();
    await node.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(card));
    await eventually(() => bed.gateway.directory.get('kept-verified'));
    const before = await standing('kept-verified');
    expect(before.listed?.verified).toBe(true);
    expect(before.signature?.account).toBe(card['x-lez-identity'].account_id);

    await bed.restartGateway();
    const after = await standing('kept-verified');
    expect(after.listed?.verified).toBe(true);
    expect(after.signature).toEqual(before.signature);
  });

  it('leaves out a stored card that no longer verifies', async () => {
    const node = bed.network.node('agent:tampered');
    await node.start();
    await node.publish(DEFAULT_DISCOVERY_TOPIC, encodeAnnouncement(signedCard('tampered')));
    await eventually(() => bed.gateway.directory.get('tampered'));
    await bed.stopGateway();
    const db = new DatabaseSync(bed.database);
    try {
      const { card_json } = db.prepare("SELECT card_json FROM agents WHERE id = 'tampered'").get() as {
        card_json: string;
      };
      const changed = { ...JSON.parse(card_json), name: 'Agent tampered, renamed on disk' };
      db.prepare("UPDATE agents SET card_json = ? WHERE id = 'tampered'").run(JSON.stringify(changed));
    } finally {
      db.close();
    }
    await bed.restartGateway();
    expect(await standing('tampered')).toEqual({ listed: undefined, status: 404 });
  });
});
