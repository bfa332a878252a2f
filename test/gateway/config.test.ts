import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, publicBaseUrlOf } from '../../src/gateway/config.ts';

describe('configuration', () => {
  it('runs out of the box', () => {
    const config = loadConfig({ env: {} });
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      transport: { kind: 'waku', listen: ['/ip4/127.0.0.1/tcp/60000'], peers: [], clusterId: 2, shards: 8 },
      agents: [{ builtin: 'echo' }],
    });
  });

  it('takes the card shape, shutdown grace and push settings from the environment, and refuses a bad network', () => {
    const config = loadConfig({
      env: {
        LOGOS_A2A_CARD_SHAPE: 'v1',
        LOGOS_A2A_SHUTDOWN_GRACE_MS: '2500',
        LOGOS_A2A_PUSH_ALLOW_PRIVATE: 'true',
        LOGOS_A2A_PUSH_ALLOW_NETWORKS: '10.20.0.0/16, fd00:1::/64',
      },
    });
    expect(config).toMatchObject({
      cardShape: 'v1',
      shutdownGraceMs: 2500,
      pushAllowPrivate: true,
      pushAllowNetworks: ['10.20.0.0/16', 'fd00:1::/64'],
    });
    expect(loadConfig({ env: {} })).toMatchObject({
      cardShape: 'union',
      pushAllowPrivate: false,
      pushAllowNetworks: [],
    });
    expect(() => loadConfig({ env: { LOGOS_A2A_PUSH_ALLOW_NETWORKS: '10.20.0.0/33' } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { LOGOS_A2A_CARD_SHAPE: 'v2' } })).toThrow(/cardShape/);
  });

  it('bounds the directory: maxAgents and forgetAfterMs from the environment, forgetting no sooner than an hour', () => {
    expect(loadConfig({ env: {} })).toMatchObject({ maxAgents: 10_000, forgetAfterMs: 30 * 86_400_000 });
    expect(loadConfig({ env: { LOGOS_A2A_MAX_AGENTS: '50', LOGOS_A2A_FORGET_AFTER_MS: '3600000' } })).toMatchObject({
      maxAgents: 50,
      forgetAfterMs: 3_600_000,
    });
    expect(() => loadConfig({ env: { LOGOS_A2A_FORGET_AFTER_MS: '1000' } })).toThrow(/at least an hour/);
    expect(() => loadConfig({ env: { LOGOS_A2A_MAX_AGENTS: '0' } })).toThrow(ConfigError);
  });

  it('serves gRPC only when a port is set, and names a public gRPC address that is not host:port', () => {
    expect(loadConfig({ env: {} }).grpcPort).toBeUndefined();
    const config = loadConfig({
      env: { LOGOS_A2A_GRPC_PORT: '50052', LOGOS_A2A_GRPC_PUBLIC_ADDRESS: 'a2a.example.com:443' },
    });
    expect(config).toMatchObject({ grpcPort: 50052, grpcPublicAddress: 'a2a.example.com:443' });
    for (const address of ['https://a2a.example.com:443', 'a2a.example.com']) {
      expect(() => loadConfig({ env: { LOGOS_A2A_GRPC_PUBLIC_ADDRESS: address } })).toThrow(
        /grpcPublicAddress \(env LOGOS_A2A_GRPC_PUBLIC_ADDRESS\): host:port/,
      );
    }
  });

  it('pays on the public LEZ testnet by name, unless a sequencer URL is given', () => {
    expect(loadConfig({ env: { LOGOS_A2A_PAYMENTS_NETWORK: 'testnet' } }).payments).toMatchObject({
      network: 'testnet',
      sequencerUrl: 'https://testnet.lez.logos.co',
    });
    expect(
      loadConfig({ env: { LOGOS_A2A_PAYMENTS_NETWORK: 'testnet', LOGOS_A2A_SEQUENCER_URL: 'http://127.0.0.1:3040' } })
        .payments.sequencerUrl,
    ).toBe('http://127.0.0.1:3040');
    expect(loadConfig({}).payments.sequencerUrl).toBeUndefined();
    expect(() => loadConfig({ env: { LOGOS_A2A_PAYMENTS_NETWORK: 'mainnet' } })).toThrow(/network/);
  });

  it('takes the transport from the environment', () => {
    expect(loadConfig({ env: { LOGOS_A2A_TRANSPORT: 'memory' } }).transport).toEqual({ kind: 'memory' });
    const waku = loadConfig({
      env: {
        LOGOS_A2A_WAKU_PEERS: '/ip4/127.0.0.1/tcp/1, /ip4/127.0.0.1/tcp/2',
        LOGOS_A2A_WAKU_LISTEN: '/ip4/127.0.0.1/tcp/0',
      },
    }).transport;
    expect(waku).toMatchObject({
      kind: 'waku',
      peers: ['/ip4/127.0.0.1/tcp/1', '/ip4/127.0.0.1/tcp/2'],
      listen: ['/ip4/127.0.0.1/tcp/0'],
    });
    expect(() => loadConfig({ env: { LOGOS_A2A_TRANSPORT: 'carrier-pigeon' } })).toThrow(/transport/);
    // A node set up for larger messages than the presets' says so in the file.
    expect(
      loadConfig({
        overrides: { transport: { kind: 'nwaku-rest', url: 'http://127.0.0.1:8645', maxMessageBytes: 1024 * 1024 } },
      }).transport,
    ).toMatchObject({ kind: 'nwaku-rest', maxMessageBytes: 1024 * 1024 });
    // A replica's own node key beside the party key all replicas share.
    expect(
      loadConfig({ env: { LOGOS_A2A_WAKU_KEY_FILE: '/keys/party.key', LOGOS_A2A_WAKU_NODE_KEY_FILE: '/own/node.key' } })
        .transport,
    ).toMatchObject({ kind: 'waku', keyFile: '/keys/party.key', nodeKeyFile: '/own/node.key' });
    // Replicas that find each other by DNS (a Kubernetes headless Service).
    expect(loadConfig({ env: { LOGOS_A2A_WAKU_REPLICA_PEERS: 'logos-a2a-waku-peers:60000' } }).transport).toMatchObject(
      { kind: 'waku', replicaPeers: { host: 'logos-a2a-waku-peers', port: 60000 } },
    );
    expect(() => loadConfig({ env: { LOGOS_A2A_WAKU_REPLICA_PEERS: 'logos-a2a-waku-peers' } })).toThrow(
      /replicaPeers.*a DNS name and a port/s,
    );
  });

  it('joins a network by preset: its cluster, shards, size limit and entry nodes, each overridable', () => {
    expect(loadConfig({ env: {} }).transport).toMatchObject({
      network: 'local',
      clusterId: 2,
      shards: 8,
      maxMessageBytes: 150 * 1024,
      entryNodes: [],
      peerExchange: false,
    });
    const test = loadConfig({ env: { LOGOS_A2A_NETWORK: 'logos.test' } }).transport;
    expect(test).toMatchObject({ kind: 'waku', network: 'logos.test', clusterId: 2, shards: 8 });
    const dev = loadConfig({ env: { LOGOS_A2A_NETWORK: 'logos.dev' } }).transport;
    expect(dev).toMatchObject({ network: 'logos.dev', clusterId: 3, maxMessageBytes: 153_600, peerExchange: true });
    if (dev.kind !== 'waku') throw new Error('expected the waku transport');
    expect(dev.entryNodes).toHaveLength(6);
    for (const node of dev.entryNodes)
      expect(node).toMatch(/^\/dns4\/delivery-0[12]\..*\.logos\.dev\.status\.im\/tcp\/30303\/p2p\/16U/);
    const overridden = loadConfig({
      env: {},
      overrides: {
        transport: { kind: 'waku', network: 'logos.dev', clusterId: 7, entryNodes: [], maxMessageBytes: 65_536 },
      },
    }).transport;
    expect(overridden).toMatchObject({ clusterId: 7, shards: 8, entryNodes: [], maxMessageBytes: 65_536 });
    const withoutExchange = loadConfig({
      env: {},
      overrides: { transport: { kind: 'waku', network: 'logos.test', peerExchange: false } },
    }).transport;
    expect(withoutExchange).toMatchObject({ network: 'logos.test', peerExchange: false });
    expect(() => loadConfig({ env: { LOGOS_A2A_NETWORK: 'logos.prod' } })).toThrow(
      /transport\.network .*logos\.dev.*logos\.test.*local/s,
    );
  });

  it('reads a file, then lets environment variables override it', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'gateway.json');
    writeFileSync(file, JSON.stringify({ port: 9000, agentTimeoutMs: 1234, publicBaseUrl: 'https://a.example/x/' }));
    const config = loadConfig({ file, env: { PORT: '9100' } });
    expect(config.port).toBe(9100);
    expect(config.agentTimeoutMs).toBe(1234);
    expect(config.publicBaseUrl).toBe('https://a.example/x');
  });

  it('names the bad setting and where it came from', () => {
    expect(() => loadConfig({ env: { PORT: 'eighty' } })).toThrow(/port \(env PORT\)/);
    expect(() => loadConfig({ env: { PUBLIC_BASE_URL: 'ftp://x' } })).toThrow(ConfigError);
    const file = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'bad.json');
    writeFileSync(file, JSON.stringify({ prot: 1 }));
    expect(() => loadConfig({ file, env: {} })).toThrow(/file .*bad\.json.*prot/s);
    expect(() => loadConfig({ file: join(tmpdir(), 'does-not-exist.json'), env: {} })).toThrow(
      /Cannot read the config file/,
    );
  });
});

describe('the example configuration', () => {
  it('examples/gateway.json is valid as shipped', () => {
    const file = new URL('../../examples/gateway.json', import.meta.url).pathname;
    expect(loadConfig({ file, env: {} })).toMatchObject({
      port: 8080,
      transport: { kind: 'waku' },
      payments: { rail: 'none' },
    });
  });

  it('examples/gateway.json on another PORT serves URLs of that port (the README runs it so)', () => {
    const file = new URL('../../examples/gateway.json', import.meta.url).pathname;
    const config = loadConfig({ file, env: { PORT: '9090' } });
    expect(config.port).toBe(9090);
    expect(publicBaseUrlOf(config, config.port)).toBe('http://localhost:9090');
  });
});
