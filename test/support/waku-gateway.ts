/** A fixture for tests whose agents run as their own processes: a gateway on a real Waku node they can join. */
import { join } from 'node:path';
import { loadConfig, type GatewayConfigInput } from '../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../src/gateway/gateway.ts';

/** A gateway on 127.0.0.1 with a free port, its SQLite file and node key in `dir`, and a Waku node others can join. */
export function startWakuGateway(
  dir: string,
  options: { env?: NodeJS.ProcessEnv; overrides?: GatewayConfigInput; log?: (message: string) => void } = {},
): Promise<Gateway> {
  const config = loadConfig({
    env: options.env ?? {},
    overrides: {
      port: 0,
      host: '127.0.0.1',
      database: join(dir, 'gateway.db'),
      agents: [],
      transport: { kind: 'waku', listen: ['/ip4/127.0.0.1/tcp/0'], keyFile: join(dir, 'gateway.key') },
      ...options.overrides,
    },
  });
  return startGateway(config, { log: options.log ?? (() => undefined) });
}
