/**
 * The `published` setting: a list in the file, comma-separated URLs in LOGOS_A2A_PUBLISHED, checked at the edge;
 * prices need a sequencer, the entry's or the gateway's.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/gateway/config.ts';

describe('the published setting', () => {
  it('takes entries with auth and limits, with defaults', () => {
    const config = loadConfig({
      env: {},
      overrides: {
        published: [
          { url: 'https://agent.example/', auth: { bearer: 'token' } },
          { url: 'http://127.0.0.1:9000', id: 'desk', auth: { header: 'X-API-Key', value: 'k' }, maxConcurrent: 2 },
          {
            url: 'http://127.0.0.1:9001',
            rateLimit: 30,
            prices: { echo: '5' },
            cardKeyFile: 'keys/desk.lez.key',
            sequencerUrl: 'http://127.0.0.1:3040',
          },
        ],
      },
    });
    expect(config.published).toEqual([
      {
        url: 'https://agent.example/',
        auth: { bearer: 'token' },
        cardPolicy: 'refuse-bad-signature',
        maxConcurrent: 8,
        rateLimitWindowMs: 60_000,
      },
      {
        url: 'http://127.0.0.1:9000',
        id: 'desk',
        auth: { header: 'X-API-Key', value: 'k' },
        cardPolicy: 'refuse-bad-signature',
        maxConcurrent: 2,
        rateLimitWindowMs: 60_000,
      },
      {
        url: 'http://127.0.0.1:9001',
        cardPolicy: 'refuse-bad-signature',
        maxConcurrent: 8,
        rateLimit: 30,
        rateLimitWindowMs: 60_000,
        prices: { echo: '5' },
        cardKeyFile: 'keys/desk.lez.key',
        sequencerUrl: 'http://127.0.0.1:3040',
      },
    ]);
  });

  it('reads comma-separated URLs from LOGOS_A2A_PUBLISHED', () => {
    const config = loadConfig({ env: { LOGOS_A2A_PUBLISHED: 'http://a.example, http://b.example' } });
    expect(config.published.map((entry) => entry.url)).toEqual(['http://a.example', 'http://b.example']);
  });

  it('refuses what is not an http(s) agent, naming the setting', () => {
    expect(() => loadConfig({ env: { LOGOS_A2A_PUBLISHED: 'ftp://a.example' } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { LOGOS_A2A_PUBLISHED: 'ftp://a.example' } })).toThrow(
      /published.*LOGOS_A2A_PUBLISHED/s,
    );
    expect(() =>
      loadConfig({ env: {}, overrides: { published: [{ url: 'http://a.example', id: 'Bad Id' }] } }),
    ).toThrow(/published\.0\.id/);
  });

  it('refuses prices without a sequencer to be paid on, and amounts that are not base units', () => {
    const priced = { url: 'http://a.example', prices: { echo: '5' } };
    expect(() => loadConfig({ env: {}, overrides: { published: [priced] } })).toThrow(
      /published\.0\.prices.*sequencer/,
    );
    // The gateway's sequencer will do.
    const config = loadConfig({
      env: {},
      overrides: { published: [priced], payments: { sequencerUrl: 'http://127.0.0.1:3040' } },
    });
    expect(config.published[0]!.prices).toEqual({ echo: '5' });
    expect(() =>
      loadConfig({
        env: {},
        overrides: { published: [{ ...priced, prices: { echo: '0.5' }, sequencerUrl: 'http://127.0.0.1:3040' }] },
      }),
    ).toThrow(/published\.0\.prices\.echo/);
    expect(() =>
      loadConfig({ env: {}, overrides: { published: [{ url: 'http://a.example', rateLimit: 0 }] } }),
    ).toThrow(/published\.0\.rateLimit/);
  });
});
