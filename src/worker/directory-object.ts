/**
 * The Worker's agent directory, in one Durable Object: what the Node gateway's discovery listener does, over the
 * node's REST API. Woken by the first request that asks for the directory, it listens on the discovery topic,
 * polling on its alarm, and keeps what it heard in its storage so that an eviction forgets nobody.
 *
 * It polls only while the directory is read: once nobody has asked for it for LOGOS_A2A_DIRECTORY_IDLE_MS (every
 * call the front answers does, and a task's object as it opens), the alarm is not set again, and the object costs
 * nothing. The next read polls the node
 * once before it answers (the node keeps what it relayed meanwhile, and agents announce every 30 s by default), then
 * polling goes on.
 */
import type { DurableObjectState } from '@cloudflare/workers-types/index.ts';
import { DiscoveryListener } from '../logos/discovery.ts';
import type { AgentDirectory } from '../logos/directory.ts';
import type { NwakuRestTransport } from '../logos/transports/nwaku-rest.ts';
import { directoryFromSnapshot, directorySnapshot, type DirectorySnapshotEntry } from './directory-snapshot.ts';
import { cannotStart, objectTransport } from './logos-node.ts';
import { workerSettings, type WorkerEnv, type WorkerSettings } from './worker-env.ts';

const SNAPSHOT_KEY = 'agents';

interface Listening {
  settings: WorkerSettings;
  directory: AgentDirectory;
  transport: NwakuRestTransport;
}

export class DirectoryObject {
  private readonly state: DurableObjectState;
  private readonly env: WorkerEnv;
  private listening: Promise<Listening> | undefined;
  /** The snapshot last written to storage, as JSON: written again only when something changed. */
  private stored = '';
  /** When the directory was last asked for (epoch ms); an object evicted and woken by its alarm has heard no read. */
  private lastReadAt = 0;

  constructor(state: DurableObjectState, env: WorkerEnv) {
    this.state = state;
    this.env = env;
  }

  /** Any request: the directory as it stands (directory-snapshot.ts). */
  async fetch(): Promise<Response> {
    let listening: Listening;
    try {
      listening = await this.listen();
    } catch (error) {
      return cannotStart(error);
    }
    this.lastReadAt = Date.now();
    if ((await this.state.storage.getAlarm()) === null) {
      // Not polling (the first read, or the first after an idle spell): hear what the node kept before answering.
      await this.hear(listening).catch((error: unknown) => console.error(`the directory's poll: ${String(error)}`));
      await this.state.storage.setAlarm(Date.now() + listening.settings.pollIntervalMs);
    }
    return Response.json(directorySnapshot(listening.directory));
  }

  async alarm(): Promise<void> {
    const listening = await this.listen();
    const { settings } = listening;
    try {
      await this.hear(listening);
    } finally {
      if (Date.now() - this.lastReadAt < settings.directoryIdleMs) {
        await this.state.storage.setAlarm(Date.now() + settings.pollIntervalMs);
      }
    }
  }

  /** Polls the node, and keeps what changed. */
  private async hear({ transport, directory }: Listening): Promise<void> {
    await transport.poll();
    const snapshot = JSON.stringify(directorySnapshot(directory));
    if (snapshot !== this.stored) {
      await this.state.storage.put(SNAPSHOT_KEY, snapshot);
      this.stored = snapshot;
    }
  }

  private listen(): Promise<Listening> {
    this.listening ??= this.open().catch((error: unknown) => {
      this.listening = undefined;
      throw error;
    });
    return this.listening;
  }

  private async open(): Promise<Listening> {
    const settings = workerSettings(this.env);
    this.stored = (await this.state.storage.get<string>(SNAPSHOT_KEY)) ?? '[]';
    const directory = directoryFromSnapshot(
      JSON.parse(this.stored) as DirectorySnapshotEntry[],
      settings.config.offlineAfterMs,
    );
    const transport = await objectTransport(this.state.storage, settings);
    new DiscoveryListener(transport, directory, settings.config.discoveryTopic).start();
    await transport.start();
    return { settings, directory, transport };
  }
}
