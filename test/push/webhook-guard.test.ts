import { describe, expect, it } from 'vitest';
import { AddressPolicy, parseAddress, parseNetwork } from '../../src/address-policy.ts';
import { WebhookGuard } from '../../src/push/webhook-guard.ts';
import { backoffDelay, retryAfterDelay } from '../../src/push/retry-timing.ts';

const strict = new AddressPolicy();

describe('webhook address policy', () => {
  it.each([
    ['10.0.0.7', 'a private address (10.0.0.0/8)'],
    ['172.31.255.1', 'a private address (172.16.0.0/12)'],
    ['192.168.1.1', 'a private address (192.168.0.0/16)'],
    ['127.0.0.1', 'a loopback address (127.0.0.0/8)'],
    ['0.0.0.0', 'an unspecified ("this network") address (0.0.0.0/8)'],
    ['169.254.1.1', 'a link-local address (169.254.0.0/16)'],
    ['100.64.0.1', 'a shared (CGNAT) address (100.64.0.0/10)'],
    ['224.0.0.1', 'a multicast address (224.0.0.0/4)'],
    ['240.0.0.1', 'a reserved address (240.0.0.0/4)'],
    ['255.255.255.255', 'the broadcast address (255.255.255.255/32)'],
    ['::1', 'the loopback address (::1/128)'],
    ['::', 'the unspecified address (::/128)'],
    ['fe80::1%eth0', 'a link-local address (fe80::/10)'],
    ['fd12:3456::1', 'a unique-local (private) address (fc00::/7)'],
    ['ff02::1', 'a multicast address (ff00::/8)'],
  ])('refuses %s as %s', (address, kind) => {
    expect(strict.refusal(address)).toBe(`${address} is ${kind}`);
  });

  it('judges IPv4 carried in IPv6 as the IPv4 address it reaches', () => {
    expect(strict.refusal('::ffff:10.0.0.7')).toBe('::ffff:10.0.0.7 is a private address (10.0.0.0/8)');
    expect(strict.refusal('::ffff:7f00:1')).toBe('::ffff:7f00:1 is a loopback address (127.0.0.0/8)');
    expect(strict.refusal('::10.0.0.7')).toBe('::10.0.0.7 embeds 10.0.0.7, a private address (10.0.0.0/8)');
    expect(strict.refusal('64:ff9b::a00:7')).toBe('64:ff9b::a00:7 embeds 10.0.0.7, a private address (10.0.0.0/8)');
    expect(strict.refusal('64:ff9b::127.0.0.1')).toBe(
      '64:ff9b::127.0.0.1 embeds 127.0.0.1, a loopback address (127.0.0.0/8)',
    );
    expect(strict.refusal('2002:c0a8:0101::1')).toBe(
      '2002:c0a8:0101::1 embeds 192.168.1.1, a private address (192.168.0.0/16)',
    );
    expect(strict.refusal('::ffff:8.8.8.8')).toBeUndefined();
    expect(strict.refusal('64:ff9b::808:808')).toBeUndefined();
  });

  it('allows public unicast addresses', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450::1']) {
      expect(strict.refusal(address)).toBeUndefined();
    }
  });

  it('refuses the cloud metadata addresses in every form, whatever the settings', () => {
    const open = new AddressPolicy({ allowPrivate: true, allowNetworks: ['169.254.0.0/16', 'fd00::/8', '::/0'] });
    for (const policy of [strict, open]) {
      expect(policy.refusal('169.254.169.254')).toBe('169.254.169.254 is a cloud metadata address (169.254.169.254)');
      expect(policy.refusal('::ffff:169.254.169.254')).toMatch(/cloud metadata address \(169\.254\.169\.254\)/);
      expect(policy.refusal('64:ff9b::a9fe:a9fe')).toMatch(/cloud metadata address \(169\.254\.169\.254\)/);
      expect(policy.refusal('fd00:ec2::254')).toBe('fd00:ec2::254 is a cloud metadata address (fd00:ec2::254)');
    }
    expect(open.refusal('10.0.0.7')).toBeUndefined();
    expect(open.refusal('::1')).toBeUndefined();
  });

  it('exempts the allowed networks, and only them', () => {
    const policy = new AddressPolicy({ allowNetworks: ['10.1.2.0/24', '127.0.0.1', 'fd12::/16'] });
    expect(policy.refusal('10.1.2.200')).toBeUndefined();
    expect(policy.refusal('::ffff:10.1.2.200')).toBeUndefined();
    expect(policy.refusal('127.0.0.1')).toBeUndefined();
    expect(policy.refusal('fd12:ab::1')).toBeUndefined();
    expect(policy.refusal('10.1.3.1')).toMatch(/private address/);
    expect(policy.refusal('127.0.0.2')).toMatch(/loopback address/);
    expect(policy.refusal('fd13::1')).toMatch(/unique-local/);
  });

  it('refuses what is not an address, and rejects malformed networks', () => {
    expect(strict.refusal('hook.example')).toBe('hook.example is not an IP address');
    for (const bad of ['10.0.0.0/33', '10.0.0/8', 'fd00::/129', '10.0.0.0/8/1', '10.0.0.0/x', 'example.com/8']) {
      expect(() => parseNetwork(bad)).toThrow(`not a CIDR network: ${bad}`);
    }
  });

  it('parses IPv6 in every notation to the same number', () => {
    expect(parseAddress('::ffff:127.0.0.1')).toBe(parseAddress('127.0.0.1'));
    expect(parseAddress('0:0:0:0:0:ffff:7f00:0001')).toBe(parseAddress('::ffff:7f00:1'));
    expect(parseAddress('fe80::1%lo')).toBe(parseAddress('fe80:0::1'));
    expect(parseAddress('1::')).toBe(1n << 112n);
  });
});

describe('webhook URL check', () => {
  const production = new WebhookGuard();
  const development = new WebhookGuard({ allowPrivate: true });

  it('accepts https URLs with a host name or a public address', () => {
    expect(production.urlProblem('https://hooks.example.com/a2a?x=1')).toBeUndefined();
    expect(production.urlProblem('https://8.8.8.8/hook')).toBeUndefined();
    expect(production.urlProblem('https://[2606:4700::1]:8443/hook')).toBeUndefined();
  });

  it('explains what is wrong with a URL it refuses', () => {
    expect(production.urlProblem('not a url')).toBe('the webhook URL is not a valid absolute URL');
    expect(production.urlProblem('/relative/hook')).toBe('the webhook URL is not a valid absolute URL');
    expect(production.urlProblem('ftp://hooks.example.com/')).toBe('the webhook URL must use https, not ftp:');
    expect(production.urlProblem('http://hooks.example.com/')).toBe('the webhook URL must use https');
    expect(production.urlProblem('https://10.0.0.7/hook')).toBe('10.0.0.7 is a private address (10.0.0.0/8)');
    expect(production.urlProblem('https://[::1]/hook')).toBe('::1 is the loopback address (::1/128)');
    expect(production.urlProblem('https://[::ffff:a9fe:a9fe]/')).toBe(
      '::ffff:a9fe:a9fe is a cloud metadata address (169.254.169.254)',
    );
    // The URL parser reads other IPv4 notations; the check sees the address they mean.
    expect(production.urlProblem('https://0x7f.1/hook')).toBe('127.0.0.1 is a loopback address (127.0.0.0/8)');
  });

  it('allows http and private addresses in development, never the metadata service', () => {
    expect(development.urlProblem('http://127.0.0.1:8080/hook')).toBeUndefined();
    expect(development.urlProblem('http://169.254.169.254/latest/meta-data/')).toBe(
      '169.254.169.254 is a cloud metadata address (169.254.169.254)',
    );
    expect(new WebhookGuard({ allowPrivate: true, requireHttps: true }).urlProblem('http://127.0.0.1/')).toBe(
      'the webhook URL must use https',
    );
    expect(
      new WebhookGuard({ allowNetworks: ['127.0.0.1/32'], requireHttps: false }).urlProblem('http://127.0.0.1:9/'),
    ).toBeUndefined();
  });
});

describe('retry timing', () => {
  it('doubles the delay with each failure, jittered within its upper half and capped', () => {
    expect(backoffDelay(1, 1000, 60_000, () => 0)).toBe(500);
    expect(backoffDelay(1, 1000, 60_000, () => 1)).toBe(1000);
    expect(backoffDelay(4, 1000, 60_000, () => 1)).toBe(8000);
    expect(backoffDelay(20, 1000, 60_000, () => 0.5)).toBe(45_000);
  });

  it('reads Retry-After in seconds or as a date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterDelay('120', now)).toBe(120_000);
    expect(retryAfterDelay('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterDelay('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(retryAfterDelay('soon', now)).toBeUndefined();
    expect(retryAfterDelay(undefined, now)).toBeUndefined();
  });
});
