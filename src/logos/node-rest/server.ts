/**
 * The nwaku REST API of an embedded node on a port of its own (nwaku's default is 8645; ours is off unless asked
 * for). Like nwaku's, it has no authentication: bind it to loopback or a private network.
 */
import { serve, type ServerType } from '@hono/node-server';
import { createNodeRestApp, type NodeRestOptions, type RestRelayNode } from './app.ts';

export interface NodeRestSettings extends NodeRestOptions {
  port: number;
  host: string;
}

export interface NodeRestServer {
  /** Where the API is, e.g. http://127.0.0.1:8645 (the bound port when 0 was asked for). */
  readonly url: string;
  stop(): Promise<void>;
}

export async function startNodeRestServer(node: RestRelayNode, settings: NodeRestSettings): Promise<NodeRestServer> {
  const rest = createNodeRestApp(node, settings);
  let server: ServerType;
  try {
    server = await new Promise<ServerType>((resolve, reject) => {
      const s = serve({ fetch: rest.app.fetch, port: settings.port, hostname: settings.host }, () => resolve(s));
      s.once('error', reject);
    });
  } catch (error) {
    rest.close();
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  return {
    url: `http://${host}:${port}`,
    stop: () => {
      rest.draining();
      return new Promise<void>((resolve) => {
        server.close(() => {
          rest.close();
          resolve();
        });
        const http = server as ServerType & { closeAllConnections?: () => void };
        // Pollers hold keep-alive connections; nothing they wait for is worth delaying the stop.
        http.closeAllConnections?.();
      });
    },
  };
}
