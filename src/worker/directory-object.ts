/**
 * The Worker's agent directory, in one Durable Object: what the Node gateway's discovery listener does, over the
 * node's REST API. Woken by the first request that asks for the directory, it listens on the discovery topic from
 * then on, polling on its alarm, and keeps what it heard in its storage so that an eviction forgets nobody.
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
    const { directory, settings } = listening;
    if ((await this.state.storage.getAlarm()) === null) {
      await this.state.storage.setAlarm(Date.now() + settings.pollIntervalMs);
    }
    return Response.json(directorySnapshot(directory));
  }

  async alarm(): Promise<void> {
    const { directory, transport, settings } = await this.listen();
    try {
      await transport.poll();
      const snapshot = JSON.stringify(directorySnapshot(directory));
      if (snapshot !== this.stored) {
        await this.state.storage.put(SNAPSHOT_KEY, snapshot);
        this.stored = snapshot;
      }
    } finally {
      await this.state.storage.setAlarm(Date.now() + settings.pollIntervalMs);
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
