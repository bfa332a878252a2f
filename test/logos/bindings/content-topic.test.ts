import { contentTopicToShardIndex } from '@waku/utils';
import { describe, expect, it } from 'vitest';
import {
  contentTopic,
  pubsubTopicOf,
  shardOf,
  topicApplication,
} from '../../../src/logos/bindings/common/content-topic.ts';
import * as logosAgent from '../../../src/logos/bindings/logos-agent/wire.ts';
import * as lp0008 from '../../../src/logos/bindings/lp-0008/wire.ts';
import * as pilot from '../../../src/logos/bindings/pilot/wire.ts';

describe('peer binding topics and shards', () => {
  it('puts each binding on the shard its peers use, as @waku/utils computes it', () => {
    expect(logosAgent.SHARD).toBe(4);
    expect(pilot.SHARD).toBe(7);
    expect(lp0008.SHARD).toBe(6);
    expect(shardOf('logos', '1', 8)).toBe(3);
    for (const [app, version] of [
      ['logos-agent', '1'],
      ['pilot', '1'],
      ['lp-0008', '1'],
      ['logos-a2a', '1'],
      ['x', '22'],
    ]) {
      for (const shards of [1, 3, 8, 64]) {
        expect(shardOf(app!, version!, shards)).toBe(contentTopicToShardIndex(`/${app}/${version}/t/proto`, shards));
      }
    }
  });

  it('names the pubsub topic of a content topic by its network', () => {
    expect(
      pubsubTopicOf(logosAgent.inboxTopic('Ds8q5PjLcKwwV97Zi7duhRVF9uwA2PuYMoLL7FwCzsXE'), logosAgent.NETWORK),
    ).toBe('/waku/2/rs/2/4');
    expect(pubsubTopicOf(pilot.replyTopic('ab-cd'), pilot.NETWORK)).toBe('/waku/2/rs/2/7');
    expect(pubsubTopicOf(lp0008.taskTopic('9Xpk', 'a1'), lp0008.NETWORK)).toBe('/waku/2/rs/3/6');
  });

  it('builds only four-segment topics, and reads only those', () => {
    expect(contentTopic('a', '1', 'n', 'proto')).toBe('/a/1/n/proto');
    expect(() => contentTopic('a', '1', 'x/y', 'proto')).toThrow(/slash/);
    expect(() => contentTopic('a', '', 'n', 'proto')).toThrow(/empty/);
    // The six-segment inbox an older logos-agent used: unroutable.
    expect(topicApplication('/logos-agent/1/a2a/acct/inbox/proto')).toBeUndefined();
    expect(() => pubsubTopicOf('/logos-agent/1/a2a/acct/inbox/proto', logosAgent.NETWORK)).toThrow(/four-segment/);
    expect(() => lp0008.taskTopic('acct', 'has space')).toThrow(/identifier/);
  });
});
