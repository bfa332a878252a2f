/**
 * deploy/compose.yaml, read as Compose would: two gateway replicas on one PostgreSQL database, an agent process
 * joined to both over Waku, the devnet the gateways pay on; each gateway's settings accepted by the gateway itself.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/gateway/config.ts';

const deploy = join(import.meta.dirname, '../../deploy');
// Compose's merge keys (<<) resolved, as Compose resolves them.
const compose = parse(readFileSync(join(deploy, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, Record<string, any>>;
  configs: Record<string, { file: string }>;
  volumes: Record<string, unknown>;
};
const { services } = compose;

describe('deploy/compose.yaml', () => {
  it('runs two gateways on one PostgreSQL database as one Logos party: one data volume, a port each', () => {
    const gateways = ['gateway-1', 'gateway-2'].map((name) => services[name]!);
    const postgres = services.postgres!.environment;
    for (const gateway of gateways) {
      expect(gateway.build.dockerfile).toBe('deploy/Dockerfile');
      expect(gateway.environment.LOGOS_A2A_DATABASE).toBe(
        `postgres://${postgres.POSTGRES_USER}:${postgres.POSTGRES_PASSWORD}@postgres:5432/${postgres.POSTGRES_DB}`,
      );
      expect(gateway.depends_on.postgres.condition).toBe('service_healthy');
      expect(gateway.environment.LOGOS_A2A_SEQUENCER_URL).toBe(`http://devnet:${services.devnet!.command.at(-1)}`);
    }
    // The volume holds the Logos identity and the card-signing key: a task one replica sent, another can take over.
    expect(gateways.map((g) => g.volumes[0])).toEqual(['gateway:/data', 'gateway:/data']);
    // Only the first creates those keys; the second starts once the first is healthy.
    expect(gateways[1]!.depends_on['gateway-1'].condition).toBe('service_healthy');
    expect(gateways.map((g) => g.ports[0])).toEqual(['8080:8080', '8081:8080']);
    for (const volume of ['postgres', 'gateway', 'agent']) expect(compose.volumes).toHaveProperty(volume);
  });

  it('joins the agent process to both gateways’ Waku nodes, once they are healthy', () => {
    const agent = services.agent!;
    expect(agent.command.slice(0, 2)).toEqual(['agent', 'echo']);
    const peers = agent.command.flatMap((arg: string, i: number) => (agent.command[i - 1] === '--peer' ? [arg] : []));
    expect(peers).toEqual(['/dns4/gateway-1/tcp/60000', '/dns4/gateway-2/tcp/60000']);
    expect(agent.depends_on['gateway-1'].condition).toBe('service_healthy');
    // Its key files are on its own volume, so it keeps its address across restarts.
    expect(agent.command.filter((arg: string) => arg.startsWith('/data/'))).toHaveLength(2);
    expect(services.devnet!.environment.LOGOS_A2A_DEVNET_HOST).toBe('0.0.0.0');
  });

  it('gives the gateways settings they accept: no in-process agents, listening where the agent dials', () => {
    const gateway = services['gateway-1']!;
    const [mounted] = gateway.configs;
    expect(mounted.target).toBe(gateway.environment.LOGOS_A2A_CONFIG);
    const file = join(deploy, compose.configs[mounted.source]!.file);
    const config = loadConfig({ file, env: gateway.environment });
    expect(config.agents).toEqual([]);
    expect(config.defaultAgent).toBe(services.agent!.command[1]);
    expect(config.transport).toMatchObject({ kind: 'waku', listen: ['/ip4/0.0.0.0/tcp/60000'] });
    expect(config.database).toBe(gateway.environment.LOGOS_A2A_DATABASE);
  });
});
