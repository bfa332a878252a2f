/**
 * `--networks-file FILE` of `logos-a2a agent` and `logos-a2a publish`: the peer bindings' networks the agent is
 * announced on as well (issue #27), as the gateway's `networks` setting writes them (docs/bindings/networks.md), in
 * a JSON file: an array of networks. Each cluster gets a node of the process's own; the agent's faces speak on them
 * (src/logos/bindings/agent-faces.ts).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { PeerNetworksConfig } from '../gateway/config.ts';
import type { FaceNetwork } from '../logos/bindings/agent-faces.ts';
import { openPeerNetworks } from '../logos/peer-networks.ts';
import { UsageError } from './errors.ts';

export interface OpenedNetworks {
  readonly networks: readonly FaceNetwork[];
  /** Where the peers of each network dial the process's node: a line per network, for the start banner. */
  banner(): string[];
  stop(): Promise<void>;
}

/** Reads and checks the file (a UsageError names what is wrong), then starts a node per cluster. */
export async function openNetworksFile(file: string, prefix: string): Promise<OpenedNetworks> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`${prefix}: --networks-file ${file}: ${(error as Error).message}`);
  }
  const parsed = PeerNetworksConfig.safeParse(json);
  if (!parsed.success) {
    throw new UsageError(`${prefix}: --networks-file ${file}: ${z.prettifyError(parsed.error)}`);
  }
  const opened = await openPeerNetworks(parsed.data);
  return {
    networks: parsed.data.map(({ name, binding, discoveryTopic }) => ({
      name,
      binding,
      discoveryTopic,
      node: opened.nodeOf(name)!.transport,
    })),
    banner: () =>
      opened.nodes.map((node) => `  on ${node.networks.join(', ')}: join at ${node.joinAddresses().join(', ')}`),
    stop: () => opened.stop(),
  };
}
