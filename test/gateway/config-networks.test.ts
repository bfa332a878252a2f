import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type GatewayConfigInput } from '../../src/gateway/config.ts';
import { NETWORK_PRESETS } from '../../src/logos/network-presets.ts';

const load = (networks: unknown) => loadConfig({ env: {}, overrides: { networks } as GatewayConfigInput });

describe('the networks setting', () => {
  it('is empty by default', () => {
    expect(loadConfig({ env: {} }).networks).toEqual([]);
  });

  it('resolves the peer bindings’ presets by name, and a fleet’s or a custom cluster', () => {
    const networks = load([
      {
        name: 'logos-agent',
        bootstrap: ['/ip4/10.0.0.5/tcp/60000/p2p/16Uiu2HAmTUbnxLGT9JvV6mu9oPyDjqHK4Phs1VDJNUgESgNSkuby'],
      },
      { name: 'pilot' },
      { name: 'lp-0008', cardKeys: { '5Sa1kvosC14TKTNZAoUdKXJwCheJ3dF8u3Xoojfv1FaE': 'AB'.repeat(32) } },
      { name: 'dev', preset: 'logos.dev', entryNodes: [] },
      { name: 'lab', clusterId: 7, shards: 4, listen: ['/ip4/127.0.0.1/tcp/0'] },
    ]).networks;
    expect(networks[0]).toMatchObject({
      name: 'logos-agent',
      clusterId: 2,
      shards: 8,
      entryNodes: [],
      peerExchange: false,
    });
    expect(networks[0]!.bootstrap).toHaveLength(1);
    expect(networks[1]).toMatchObject({ name: 'pilot', clusterId: 2, shards: 8 });
    expect(networks[2]).toMatchObject({ name: 'lp-0008', clusterId: 3, shards: 8, peerExchange: true });
    expect(networks[2]!.entryNodes).toEqual(NETWORK_PRESETS['logos.dev'].entryNodes);
    expect(networks[2]!.cardKeys).toEqual({ '5Sa1kvosC14TKTNZAoUdKXJwCheJ3dF8u3Xoojfv1FaE': 'ab'.repeat(32) });
    expect(networks[3]).toMatchObject({ name: 'dev', clusterId: 3, entryNodes: [] });
    expect(networks[4]).toMatchObject({ name: 'lab', clusterId: 7, shards: 4, entryNodes: [], bootstrap: [] });
  });

  it('refuses a network with neither preset nor cluster, a name used twice, and one cluster with two shard counts', () => {
    expect(() => load([{ name: 'somewhere' }])).toThrow(/name a preset or a clusterId/);
    expect(() => load([{ name: 'pilot' }, { name: 'pilot', clusterId: 4 }])).toThrow(/named twice/);
    expect(() => load([{ name: 'pilot' }, { name: 'lab', clusterId: 2, shards: 16 }])).toThrow(ConfigError);
    expect(() => load([{ name: 'pilot' }, { name: 'lab', clusterId: 2, shards: 16 }])).toThrow(/share cluster 2/);
    expect(() => load([{ name: 'x', preset: 'logos.nowhere' }])).toThrow(ConfigError);
    expect(() => load([{ name: 'lp-0008', cardKeys: { kid: '02'.repeat(33) } }])).toThrow(/x-only key/);
  });
});
