/** The agent directory's ranking of cards: verified (or in-process) first, unverified only when allowed. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { afterEach, describe, expect, it } from 'vitest';
import { peerContext } from '../../src/logos/bindings/peer-context.ts';
import { inboxTopic } from '../../src/logos/bindings/logos-agent/wire.ts';
import { readPeerCard, storedPeerCardReader } from '../../src/logos/peer-card-reading.ts';
import { admitLogosCard, signLogosCard, type UnverifiedLogosCard } from '../../src/logos/card-signature.ts';
import { AgentDirectory } from '../../src/logos/directory.ts';
import { SqliteDirectoryStore } from '../../src/store/sqlite/directory-store.ts';
import { minimalCard } from '../support/cards.ts';
import { seedCard } from '../support/seed-agent.ts';
import { signEd25519Card } from '../support/peer-agents/peer-crypto.ts';

const unverified = (address: string, id = 'shared'): UnverifiedLogosCard =>
  admitLogosCard(
    minimalCard({ id, agentInterfaces: [{ type: 'logos-messaging', version: '1', address }] }),
  ) as UnverifiedLogosCard;

const verified = (address: string, id = 'shared') => {
  const admitted = admitLogosCard(
    signLogosCard(
      minimalCard({ id, agentInterfaces: [{ type: 'logos-messaging', version: '1', address }] }),
      randomBytes(32),
    ),
  );
  if (!admitted.ok || 'unverified' in admitted) throw new Error('expected a verified card');
  return admitted;
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('unverified cards in the directory', () => {
  it('are refused unless the operator allows them', () => {
    const card = unverified('agent:a');
    expect(new AgentDirectory().register(card.card, new Date(), card)).toBeUndefined();
    const entry = new AgentDirectory({ allowUnverified: true }).register(card.card, new Date(), card);
    expect(entry?.unverified).toEqual({ reason: 'The card is not signed.' });
  });

  it('never take the id of a verified agent, nor replace its card from the same address', () => {
    const directory = new AgentDirectory({ allowUnverified: true });
    const held = verified('agent:a');
    expect(directory.register(held.card, new Date(), held)).toBeDefined();
    const other = unverified('agent:b');
    expect(directory.register(other.card, new Date(), other)).toBeUndefined();
    const downgrade = unverified('agent:a');
    expect(directory.register(downgrade.card, new Date(), downgrade)).toBeUndefined();
    expect(directory.get('shared')?.verified).toBe(held);
    // Nor an in-process agent's (registered without a standing).
    directory.register(minimalCard({ id: 'own' }));
    const squatter = unverified('agent:x', 'own');
    expect(directory.register(squatter.card, new Date(), squatter)).toBeUndefined();
  });

  it('lose their id to a verified card; among unverified cards the first keeps it', () => {
    const directory = new AgentDirectory({ allowUnverified: true });
    const first = unverified('agent:a');
    directory.register(first.card, new Date(), first);
    const second = unverified('agent:b');
    expect(directory.register(second.card, new Date(), second)).toBeUndefined();
    const owner = verified('agent:c');
    const entry = directory.register(owner.card, new Date(), owner);
    expect(entry).toMatchObject({ address: 'agent:c', verified: owner });
    expect(entry?.unverified).toBeUndefined();
    // An agent that signs its card later is verified from then on.
    const upgraded = new AgentDirectory({ allowUnverified: true });
    upgraded.register(first.card, new Date(), first);
    const signed = verified('agent:a');
    expect(upgraded.register(signed.card, new Date(), signed)?.unverified).toBeUndefined();
  });

  it('stay marked across restarts, and are not served by a gateway that no longer allows them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-directory-'));
    dirs.push(dir);
    const file = join(dir, 'directory.db');
    const store = new SqliteDirectoryStore(file);
    const seed = admitLogosCard(seedCard('agent:seed')) as UnverifiedLogosCard;
    const first = new AgentDirectory({ store, allowUnverified: true });
    first.register(seed.card, new Date(), seed);
    first.register(minimalCard({ id: 'own' }));
    await first.flush();
    await store.close();

    const reopened = new SqliteDirectoryStore(file);
    const allowing = new AgentDirectory({ store: reopened, allowUnverified: true });
    await allowing.load();
    expect(allowing.get(seed.card.id)?.unverified?.reason).toContain('seed binding');
    expect(allowing.dialectAt('agent:seed')).toBe('seed');
    expect(allowing.dialectAt('agent:own')).toBe('binding');
    const refusing = new AgentDirectory({ store: reopened });
    await refusing.load();
    expect(refusing.get(seed.card.id)).toBeUndefined();
    expect(refusing.get('own')?.unverified).toBeUndefined();
    await reopened.close();
  });
});

describe('peer binding cards in the directory', () => {
  const account = 'Ds8q5PjLcKwwV97Zi7duhRVF9uwA2PuYMoLL7FwCzsXE';
  const network = { name: 'la', binding: 'logos-agent' as const, cardKeys: {} };
  const context = peerContext(undefined);
  /** A logos-agent card as its agent signs it (struct order, Ed25519). */
  const logosAgentCard = (
    secretKey = ed25519.utils.randomSecretKey(),
    { name = 'greeter', description = 'greets' } = {},
  ) =>
    signEd25519Card(
      {
        protocolVersion: '0.3.0',
        name,
        description,
        version: '1.0.0',
        address: inboxTopic(account),
        lezAccount: account,
        capabilities: { streaming: true },
        skills: [{ id: 'demo.echo', name: 'Echo', description: 'echoes', priceLez: '0' }],
        signingPubkey: bytesToHex(ed25519.getPublicKey(secretKey)),
      },
      secretKey,
    );

  async function storeOf(register: (directory: AgentDirectory) => void) {
    const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-directory-'));
    dirs.push(dir);
    const file = join(dir, 'directory.db');
    const store = new SqliteDirectoryStore(file);
    const directory = new AgentDirectory({ store });
    register(directory);
    await directory.flush();
    await store.close();
    return new SqliteDirectoryStore(file);
  }

  async function loaded(store: SqliteDirectoryStore, networks = [network]) {
    const logs: string[] = [];
    const directory = new AgentDirectory({
      store,
      readPeer: storedPeerCardReader(networks, context),
      log: (message) => logs.push(message),
    });
    await directory.load();
    return { directory, logs };
  }

  it('are kept as signed and verified again at start, with their scheme', async () => {
    const read = readPeerCard(logosAgentCard(), network, context);
    if (!read.ok) throw new Error(read.message);
    const store = await storeOf((directory) => directory.register(read.card, new Date(), read.standing));
    const { directory } = await loaded(store);
    const entry = directory.get(read.card.id);
    expect(entry?.peerVerified).toMatchObject({ binding: 'logos-agent', network: 'la', scheme: 'Ed25519' });
    expect(entry?.card.agentInterfaces[0]).toMatchObject({ version: 'logos-agent', network: 'la' });
    await store.close();
  });

  it('are left out, and logged, when the stored card no longer verifies or its network is gone', async () => {
    const read = readPeerCard(logosAgentCard(), network, context);
    if (!read.ok) throw new Error(read.message);
    const store = await storeOf((directory) => directory.register(read.card, new Date(), read.standing));
    const [stored] = await store.all();
    const json = JSON.parse(stored!.cardJson);
    expect(json.peer).toEqual({ binding: 'logos-agent', network: 'la' });

    const gone = await loaded(store, []);
    expect(gone.directory.get(read.card.id)).toBeUndefined();
    expect(gone.logs.join('\n')).toMatch(/left out.*badAddress.*no logos-agent network "la"/);

    json.card.description = 'greets, and more';
    await store.save({ ...stored!, cardJson: JSON.stringify(json) });
    const tampered = await loaded(store);
    expect(tampered.directory.get(read.card.id)).toBeUndefined();
    expect(tampered.logs.join('\n')).toMatch(/left out.*badSignature/);
    await store.close();
  });

  it('pin the first key heard at an address: a card under another key neither replaces it nor lists beside it', () => {
    const directory = new AgentDirectory();
    const ownKey = ed25519.utils.randomSecretKey();
    const read = (card: unknown) => {
      const result = readPeerCard(card, network, context);
      if (!result.ok) throw new Error(result.message);
      return result;
    };
    const first = read(logosAgentCard(ownKey));
    expect(directory.register(first.card, new Date(), first.standing)).toBeDefined();
    // Another key, the same name and account: the same id at the same address, which would take the listing over.
    const takeover = read(logosAgentCard(undefined, { description: 'HIJACKED' }));
    expect(takeover.card.id).toBe(first.card.id);
    const seen = directory.lastSeen(first.card.id);
    expect(directory.register(takeover.card, new Date(Date.now() + 60_000), takeover.standing)).toBeUndefined();
    // Refused, it is no sign of the agent's life.
    expect(directory.lastSeen(first.card.id)).toEqual(seen);
    // Another key and another name at the same address: not listed beside it either.
    const beside = read(logosAgentCard(undefined, { name: 'greeter-pro' }));
    expect(beside.card.id).not.toBe(first.card.id);
    expect(directory.anotherKeyAt(first.card.agentInterfaces[0]!.address, beside.standing.signingKey)).toBe(true);
    expect(directory.register(beside.card, new Date(), beside.standing)).toBeUndefined();
    expect(directory.all().map((entry) => entry.card.description)).toEqual(['greets']);
    // The first key's own new card is taken.
    const updated = read(logosAgentCard(ownKey, { description: 'greets, better' }));
    expect(directory.register(updated.card, new Date(), updated.standing)?.card.description).toBe('greets, better');
  });

  it('release an address’s key when its agent goes unheard for forgetAfterMs: a new key is pinned there then', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-directory-'));
    dirs.push(dir);
    const store = new SqliteDirectoryStore(join(dir, 'directory.db'));
    const forgotten: string[] = [];
    const day = 86_400_000;
    const directory = new AgentDirectory({
      store,
      forgetAfterMs: 30 * day,
      forgotten: (entry) => forgotten.push(entry.id),
    });
    const read = (card: unknown) => {
      const result = readPeerCard(card, network, context);
      if (!result.ok) throw new Error(result.message);
      return result;
    };
    const now = Date.now();
    const old = read(logosAgentCard());
    directory.register(old.card, new Date(now), old.standing);
    const heard = verified('agent:heard', 'heard');
    directory.register(heard.card, new Date(now + 2 * day), heard);
    directory.registerOwn(minimalCard({ id: 'own' }));
    const rotated = read(logosAgentCard(undefined, { description: 'a new key' }));
    expect(directory.register(rotated.card, new Date(now + 3 * day), rotated.standing)).toBeUndefined();
    await directory.flush();

    // Not before the directory has listened for forgetAfterMs.
    expect(directory.forgetUnheard(now + 29 * day)).toEqual([]);
    const later = now + 31 * day;
    expect(directory.forgetUnheard(later)).toEqual([old.card.id]);
    expect(forgotten).toEqual([old.card.id]);
    expect(directory.get(old.card.id)).toBeUndefined();
    expect(directory.get(heard.card.id)).toBeDefined();
    await directory.flush();
    expect((await store.all()).map((agent) => agent.id).sort()).toEqual([heard.card.id, 'own'].sort());
    // The agent's new key is taken now, at the same id and address.
    expect(directory.register(rotated.card, new Date(later), rotated.standing)?.card.description).toBe('a new key');
    // A row another replica heard since is not deleted: the forget is conditional on the row's last-seen time.
    await store.touch(heard.card.id, new Date(later).toISOString());
    await store.forget(heard.card.id, new Date(later - day).toISOString());
    expect((await store.all()).map((agent) => agent.id)).toContain(heard.card.id);
    await store.close();
  });

  it('refuse a card with a lone surrogate in a string: it is no text, and could not be served signed', () => {
    expect(readPeerCard(logosAgentCard(undefined, { name: 'greeter\ud800' }), network, context)).toMatchObject({
      ok: false,
      reason: 'invalid',
      message: expect.stringMatching(/lone surrogate/),
    });
  });

  it('kept only as mapped (by an earlier version) are left out: nothing can verify them again', async () => {
    const read = readPeerCard(logosAgentCard(), network, context);
    if (!read.ok) throw new Error(read.message);
    const store = await storeOf((directory) => directory.register(read.card, new Date()));
    const { directory, logs } = await loaded(store);
    expect(directory.get(read.card.id)).toBeUndefined();
    expect(logs.join('\n')).toContain('cannot be verified again');
    await store.close();
  });
});

describe('the bound on agents heard on the network', () => {
  it('refuses a new agent once full, while the agents it lists keep updating and the gateway’s own always fit', () => {
    const directory = new AgentDirectory({ maxAgents: 2 });
    const [a, b, c] = [verified('agent:a', 'a'), verified('agent:b', 'b'), verified('agent:c', 'c')];
    expect(directory.register(a.card, new Date(), a)).toBeDefined();
    expect(directory.full('c')).toBe(false);
    expect(directory.register(b.card, new Date(), b)).toBeDefined();
    expect(directory.full('c')).toBe(true);
    expect(directory.full('a')).toBe(false);
    expect(directory.register(c.card, new Date(), c)).toBeUndefined();
    expect(directory.get('c')).toBeUndefined();
    // A listed agent's new card is taken.
    const renamed = verified('agent:a', 'a');
    const changed = { ...renamed.card, name: 'renamed' };
    expect(directory.register(changed)?.card.name).toBe('renamed');
    // The operator's own agents are not counted, and never refused.
    expect(directory.registerOwn(minimalCard({ id: 'own' })).id).toBe('own');
    expect(directory.all().map((entry) => entry.id)).toEqual(['a', 'b', 'own']);
    expect(directory.full('c')).toBe(true);
  });

  it('finds the binding of a task’s address by its index, as before by the order of listing', () => {
    const directory = new AgentDirectory({ allowUnverified: true });
    directory.register(
      minimalCard({ id: 'ours', agentInterfaces: [{ type: 'logos-messaging', version: '1', address: 'agent:s' }] }),
    );
    const admitted = admitLogosCard(seedCard('agent:s')) as UnverifiedLogosCard;
    directory.register(admitted.card, new Date(), admitted);
    expect(directory.dialectAt('agent:s')).toBe('binding');
    expect(directory.dialectAt('agent:s', admitted.card.id)).toBe('seed');
    expect(directory.dialectAt('agent:nowhere')).toBe('binding');
    expect(directory.networkAt('agent:nowhere')).toBeUndefined();
    // The first agent there moves to another address: the seed card is the first at agent:s now.
    directory.registerOwn(
      minimalCard({ id: 'ours', agentInterfaces: [{ type: 'logos-messaging', version: '1', address: 'agent:t' }] }),
    );
    expect(directory.dialectAt('agent:s')).toBe('seed');
    expect(directory.dialectAt('agent:t')).toBe('binding');
  });

  it('counts an agent’s silence from its start at the earliest: a long downtime forgets nothing at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-directory-'));
    dirs.push(dir);
    const store = new SqliteDirectoryStore(join(dir, 'directory.db'));
    const first = new AgentDirectory({ store });
    const [gone, kept] = [verified('agent:gone', 'gone'), verified('agent:kept', 'kept')];
    first.register(gone.card, new Date(Date.now() - 40 * 86_400_000), gone);
    first.register(kept.card, new Date(), kept);
    await first.flush();
    const logs: string[] = [];
    const waiting = new Set<string>();
    const next = new AgentDirectory({
      store,
      log: (line) => logs.push(line),
      keep: (entry) => waiting.has(entry.id),
    });
    await next.load();
    // Unheard for 40 days by the store, but this gateway has only begun to listen.
    expect(next.all().map((entry) => entry.id)).toEqual(['gone', 'kept']);
    expect(next.forgetUnheard()).toEqual([]);
    // After 30 days of listening, the one still unheard goes, unless a live task waits on it.
    const later = Date.now() + 30 * 86_400_000 + 60_000;
    next.register(kept.card, new Date(later), kept);
    waiting.add('gone');
    expect(next.forgetUnheard(later)).toEqual([]);
    waiting.clear();
    expect(next.forgetUnheard(later)).toEqual(['gone']);
    expect(logs.join('\n')).toContain('1 agent(s) not heard for 30 day(s) forgotten: gone');
    await next.flush();
    expect((await store.all()).map((agent) => agent.id)).toEqual(['kept']);
    await store.close();
  });

  it('frees an address only when no agent listed there remains: its pins stay while another uses it', () => {
    const day = 86_400_000;
    const freed: string[] = [];
    const directory = new AgentDirectory({ forgotten: (entry) => freed.push(entry.id) });
    const now = Date.now();
    const [renamed, current] = [verified('agent:x', 'old-name'), verified('agent:x', 'new-name')];
    directory.register(renamed.card, new Date(now), renamed);
    directory.register(current.card, new Date(now + 20 * day), current);
    expect(directory.forgetUnheard(now + 31 * day)).toEqual(['old-name']);
    expect(freed).toEqual([]);
    expect(directory.dialectAt('agent:x')).toBe('binding');
    expect(directory.forgetUnheard(now + 51 * day)).toEqual(['new-name']);
    expect(freed).toEqual(['new-name']);
  });

  it('does not count the gateway’s own agents’ rows against the bound when it loads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-directory-'));
    dirs.push(dir);
    const store = new SqliteDirectoryStore(join(dir, 'directory.db'));
    const first = new AgentDirectory({ store, maxAgents: 2 });
    for (const id of ['a', 'b']) {
      const card = verified(`agent:${id}`, id);
      first.register(card.card, new Date(Date.now() - 1_000), card);
    }
    // The own agent's row is the newest (it announces itself too).
    first.registerOwn(minimalCard({ id: 'own' }));
    await first.flush();
    const logs: string[] = [];
    const next = new AgentDirectory({ store, maxAgents: 2, ownIds: ['own'], log: (line) => logs.push(line) });
    await next.load();
    // Before, the own row took a heard agent's place: one heard agent was left out at every restart.
    expect(next.all().map((entry) => entry.id)).toEqual(['a', 'b', 'own']);
    expect(logs.join('\n')).not.toContain('left out');
    await store.close();
  });

  it('loads no more stored agents than it holds, those heard last, and says how many it left out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-directory-'));
    dirs.push(dir);
    const store = new SqliteDirectoryStore(join(dir, 'directory.db'));
    const first = new AgentDirectory({ store });
    const now = Date.now();
    for (const [id, ago] of [
      ['a', 1_000],
      ['b', 3_000],
      ['c', 2_000],
    ] as const) {
      const card = verified(`agent:${id}`, id);
      first.register(card.card, new Date(now - ago), card);
    }
    await first.flush();
    const logs: string[] = [];
    const smaller = new AgentDirectory({ store, maxAgents: 2, log: (line) => logs.push(line) });
    await smaller.load();
    expect(smaller.all().map((entry) => entry.id)).toEqual(['a', 'c']);
    expect(logs.join('\n')).toContain('1 stored agent(s) left out: the directory holds at most 2');
    await store.close();
  });
});
