/**
 * SSRF protection for webhook deliveries. Two checks:
 *   - `urlProblem`, cheap and static, when a client registers a webhook: a URL that can never be delivered to is
 *     refused with a reason the client can read;
 *   - the guarded dispatcher, at connect time: every connection a delivery opens (redirect hops included) resolves
 *     its host through the guard, which refuses the connection before it is made when any address is not allowed.
 *     Checking when connecting, not when registering, is what defeats DNS rebinding: the addresses checked are the
 *     ones connected to.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import type { Agent, buildConnector } from 'undici';
import { AddressPolicy, type AddressPolicyOptions } from '../address-policy.ts';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address a host name resolves to. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true });

export interface WebhookGuardOptions extends AddressPolicyOptions {
  /** Refuse plain http. Defaults to `!allowPrivate`: only development setups post to http receivers. */
  requireHttps?: boolean;
  /** Defaults to the system resolver (`dns.lookup`, every address). */
  resolver?: Resolver;
}

/** A connection the guard refused: permanent, never worth retrying. */
export class WebhookRefusedError extends Error {
  override readonly name = 'WebhookRefusedError';
}

export class WebhookGuard {
  private readonly policy: AddressPolicy;
  private readonly requireHttps: boolean;
  private readonly resolver: Resolver;

  constructor(options: WebhookGuardOptions = {}) {
    this.policy = new AddressPolicy(options);
    this.requireHttps = options.requireHttps ?? !options.allowPrivate;
    this.resolver = options.resolver ?? systemResolver;
  }

  /** Why this URL can never be a webhook (unparseable, wrong scheme, a refused literal address), or undefined. */
  urlProblem(url: string): string | undefined {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return 'the webhook URL is not a valid absolute URL';
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
      return `the webhook URL must use https, not ${parsed.protocol}`;
    if (this.requireHttps && parsed.protocol !== 'https:') return 'the webhook URL must use https';
    // The URL parser has already normalised literal addresses (0x7f.1 is 127.0.0.1); IPv6 ones keep their brackets.
    const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
    return isIP(host) ? this.addressProblem(host) : undefined;
  }

  addressProblem(address: string): string | undefined {
    return this.policy.refusal(address);
  }

  /**
   * A dispatcher whose every connection is checked: a host name is resolved here (`lookup`, which net and tls call
   * just before connecting) and a literal address, which they connect to without a lookup, is checked first.
   */
  async createAgent(connectTimeoutMs: number): Promise<Agent> {
    // undici (some 110 modules) loads with the first delivery, not with every gateway: most never deliver one.
    const undici = await import('./undici.ts');
    const connectChecked = undici.buildConnector({ lookup: this.lookup, timeout: connectTimeoutMs });
    const connect: buildConnector.connector = (options, callback) => {
      const problem = isIP(options.hostname) ? this.addressProblem(options.hostname) : undefined;
      if (problem === undefined) return connectChecked(options, callback);
      process.nextTick(() => callback(new WebhookRefusedError(`webhook address refused: ${problem}`), null));
    };
    return new undici.Agent({ connect });
  }

  /** Resolves, refuses the host when any address is not allowed, else hands the addresses to the connecting socket. */
  private readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolver(hostname).then(
      (resolved) => {
        const problems = resolved
          .map((entry) => this.addressProblem(entry.address))
          .filter((problem) => problem !== undefined);
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
        const usable = resolved.filter((entry) => !family || entry.family === family);
        if (problems.length > 0) {
          callback(
            new WebhookRefusedError(`webhook host ${hostname} resolves to a refused address: ${problems.join('; ')}`),
            '',
          );
        } else if (usable.length === 0) {
          callback(
            Object.assign(new Error(`webhook host ${hostname} has no usable address`), { code: 'ENOTFOUND' }),
            '',
          );
        } else if (options.all) {
          callback(null, usable);
        } else {
          callback(null, usable[0]!.address, usable[0]!.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}
