/**
 * deploy/compose.yaml, read as Compose would: two gateway replicas on one PostgreSQL database, an agent process
 * joined to both over Waku, the devnet the gateways pay on; each gateway's settings accepted by the gateway itself;
 * no secret written in the file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/gateway/config.ts';

interface Compose {
  services: Record<string, Record<string, any>>;
  configs: Record<string, { file: string }>;
  volumes: Record<string, unknown>;
}

const deploy = join(import.meta.dirname, '../../deploy');
const text = readFileSync(join(deploy, 'compose.yaml'), 'utf8');

/**
 * The file with its variables put in, as Compose puts them in: `${NAME}`, and `${NAME:?message}`, which refuses to
 * start without NAME. Any other form is refused, so the file never relies on one this would get wrong.
 */
function interpolate(env: Record<string, string>): string {
  return text.replace(/\$\{([^}]*)\}/g, (_, expression: string) => {
    const [, name, message] = /^(\w+)(?::\?(.*))?$/.exec(expression) ?? [];
    if (!name) throw new Error(`compose.yaml: unsupported interpolation \${${expression}}`);
    const value = env[name];
    if (value === undefined || (value === '' && message !== undefined)) {
      if (message !== undefined) throw new Error(`required variable ${name} is missing a value: ${message}`);
      return '';
    }
    return value;
  });
}

const read = (env: Record<string, string>) => parse(interpolate(env), { merge: true }) as Compose; // << resolved
const POSTGRES_PASSWORD = 'a-test-password';
const compose = read({ POSTGRES_PASSWORD });
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
    expect(gateways.map((g) => g.ports)).toEqual([
      ['8080:8080', '50051:50051'],
      ['8081:8080', '50052:50051'],
    ]);
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

  it('has no secret written in: the database password is POSTGRES_PASSWORD, without which nothing starts', () => {
    expect(() => read({})).toThrow(/POSTGRES_PASSWORD/);
    expect(() => read({ POSTGRES_PASSWORD: '' })).toThrow(/POSTGRES_PASSWORD/);
    expect(services.postgres!.environment.POSTGRES_PASSWORD).toBe(POSTGRES_PASSWORD);

    // In the file as written, every secret setting and every password in a URL is a variable, never a value.
    const raw = parse(text, { merge: true }) as Compose;
    const settings = Object.entries(raw.services).flatMap(([service, { environment }]) =>
      Object.entries((environment ?? {}) as Record<string, string>).map(([name, value]) => ({ service, name, value })),
    );
    const secret = settings.filter(({ name }) => /PASSWORD|PASSPHRASE|TOKEN|SECRET/.test(name));
    const urls = settings.filter(({ value }) => /^\w+:\/\//.test(String(value)));
    expect(secret.length).toBeGreaterThan(0);
    expect(urls.length).toBeGreaterThan(0);
    for (const { service, name, value } of secret) expect(value, `${service} ${name}`).toMatch(/^\$\{\w+:\?[^}]+\}$/);
    for (const { service, name, value } of urls) {
      const password = /^\w+:\/\/[^:/@]*:(.*)@/.exec(value)?.[1];
      if (password !== undefined) expect(password, `${service} ${name}`).toMatch(/^\$\{\w+:\?[^}]+\}$/);
    }
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
    expect(config.grpcPort).toBe(50051);
    expect(config.database).toBe(gateway.environment.LOGOS_A2A_DATABASE);
  });
});
