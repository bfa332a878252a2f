/**
 * What a flood of announcements under fresh names may make discovery hold and write: the per-address rate tracks a
 * bounded number of addresses, however many arrive in a window, and the drops' log lines are bounded per minute.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AnnouncementRate, FLOOD_LIMIT } from '../../src/logos/announcement-rate.ts';
import { DiscoveryDrops } from '../../src/logos/discovery-drops.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('the per-address announcement rate', () => {
  it('stays bounded when more fresh addresses arrive in one window than it tracks: the longest tracked go first', () => {
    const rate = new AnnouncementRate();
    for (let i = 0; i < FLOOD_LIMIT; i++) expect(rate.flooding('first')).toBe(false);
    // More fresh addresses within the window than are tracked. Before, none was forgotten (their windows still ran),
    // the map grew without end, and each new address scanned all of it.
    for (let i = 0; i < 12_000; i++) rate.flooding(`fresh-${i}`);
    // `first` was forgotten to make room: its count starts again.
    expect(rate.flooding('first')).toBe(false);
    // A recent address is still counted.
    for (let i = 1; i < FLOOD_LIMIT; i++) rate.flooding('fresh-11999');
    expect(rate.flooding('fresh-11999')).toBe(true);
  });
});

describe('the log of dropped announcements', () => {
  it('writes at most 60 lines a minute, then says in one line how many it did not', () => {
    vi.useFakeTimers();
    vi.setSystemTime(Date.parse('2026-12-07T00:00:00Z'));
    const lines: string[] = [];
    const drops = new DiscoveryDrops((line) => lines.push(line));
    // A flood under fresh ids: each is a new agent, and was a line each.
    for (let i = 0; i < 100; i++) drops.drop('directoryFull', `"agent-${i}"`, 'full');
    expect(lines).toHaveLength(60);
    expect(drops.counters.directoryFull).toBe(100);
    vi.setSystemTime(Date.parse('2026-12-07T00:01:00Z'));
    drops.drop('badSignature', '"agent-late"', 'tampered');
    expect(lines.slice(60)).toEqual([
      '[discovery] 40 more dropped card(s) not logged in a minute (logos_a2a_discovery_drops_total counts them)',
      '[discovery] the card of "agent-late" is not served (badSignature): tampered',
    ]);
  });
});
