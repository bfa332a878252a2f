/**
 * What the `logos-a2a` command prints when it cannot go on: one line that names the setting at fault and what to do,
 * never a stack for a mistake the user can fix. Exit code 2 for a usage error (the command line), 1 for a failure
 * at run time (a setting, a port in use, a host that does not resolve). Errors nobody foresaw keep their stack.
 */
import { multiaddr } from '@multiformats/multiaddr';

/** A mistake on the command line: printed as is, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A failure whose message says it all: printed as is, exit code 1. */
export class CliFailure extends Error {
  override readonly name = 'CliFailure';
}

/** Where the values a command listens with come from, so a failure can name the setting. */
export interface FailureContext {
  /** What each line starts with, e.g. `logos-a2a serve`. */
  prefix: string;
  /** Ports this command listens on with the setting each comes from; other ports are the gateway's HTTP port. */
  ports?: { port: number; setting: string }[];
  /** The setting of the HTTP port (when the command has one). */
  portSetting?: string;
  /** The setting of the HTTP host (when the command has one). */
  hostSetting?: string;
  /** The setting the Logos network's (Waku) listen addresses come from. */
  listenSetting?: string;
  /** The setting the Logos network's relay peers come from. */
  peerSetting?: string;
}

export interface Failure {
  message: string;
  exitCode: 1 | 2;
}

/** The settings of the gateway commands (serve, demo), as failures name them. */
export const SERVE_SETTINGS = {
  portSetting: `PORT or the config's "port"`,
  hostSetting: `HOST or the config's "host"`,
  listenSetting: `LOGOS_A2A_WAKU_LISTEN or the config's "transport.listen"`,
  peerSetting: `LOGOS_A2A_WAKU_PEERS or the config's "transport.peers"`,
} as const;

const EXAMPLE_MULTIADDR = '/ip4/127.0.0.1/tcp/60000';

/**
 * Throws a one-line error when a value is not a multiaddr: a UsageError for a command-line option (exit 2), a
 * CliFailure for a setting (exit 1).
 */
export function checkMultiaddrs(
  values: readonly string[],
  setting: string,
  prefix: string,
  kind: 'option' | 'setting',
): void {
  for (const value of values) {
    try {
      multiaddr(value);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const what = kind === 'option' ? `${setting} "${value}"` : `"${value}" (${setting})`;
      const message = `${prefix}: ${what} is not a multiaddr (${reason}); write it like ${EXAMPLE_MULTIADDR}`;
      throw kind === 'option' ? new UsageError(message) : new CliFailure(message);
    }
  }
}

interface ErrnoLike {
  code?: unknown;
  syscall?: unknown;
  port?: unknown;
  address?: unknown;
  hostname?: unknown;
  path?: unknown;
}

/** The line to print for an error, or undefined when it is not one the user can fix from here (print its stack). */
export function describeFailure(error: unknown, context: FailureContext): Failure | undefined {
  const { prefix } = context;
  if (!(error instanceof Error)) return undefined;
  if (error instanceof UsageError) return { message: error.message, exitCode: 2 };
  if (error instanceof CliFailure) return { message: error.message, exitCode: 1 };
  // config.ts's ConfigError: its message names the setting already (matched by name, so this module needs no config).
  if (error.name === 'ConfigError') return { message: error.message, exitCode: 1 };
  if (
    typeof (error as ErrnoLike).code === 'string' &&
    String((error as ErrnoLike).code).startsWith('ERR_PARSE_ARGS_')
  ) {
    return { message: `${prefix}: ${error.message.split('. ')[0]}; see ${prefix} --help`, exitCode: 2 };
  }
  const errno = error as Error & ErrnoLike;
  const code = typeof errno.code === 'string' ? errno.code : undefined;
  if (code && (errno.syscall === 'listen' || errno.syscall === 'bind')) {
    const port = typeof errno.port === 'number' ? errno.port : undefined;
    const setting = context.ports?.find((p) => p.port === port)?.setting ?? context.portSetting;
    const named = setting ? ` (${setting})` : '';
    if (code === 'EADDRINUSE')
      return {
        message: `${prefix}: port ${port} is in use${named}; pick another port, or stop what holds it`,
        exitCode: 1,
      };
    if (code === 'EACCES') {
      return {
        message: `${prefix}: not allowed to listen on port ${port}${named}; ports below 1024 need privileges, pick one above`,
        exitCode: 1,
      };
    }
    if (code === 'EADDRNOTAVAIL') {
      const hostNamed = context.hostSetting ? ` (${context.hostSetting})` : '';
      return {
        message: `${prefix}: ${String(errno.address)} is not an address of this machine${hostNamed}; use 127.0.0.1, 0.0.0.0 or one of its own`,
        exitCode: 1,
      };
    }
  }
  if (code && errno.syscall === 'getaddrinfo' && context.hostSetting) {
    const host = String(errno.hostname);
    const why = code === 'EAI_AGAIN' ? 'the name service did not answer for' : 'cannot resolve';
    return {
      message: `${prefix}: ${why} the host "${host}" (${context.hostSetting}); use an IP address: 127.0.0.1 for this machine only, 0.0.0.0 for every interface`,
      exitCode: 1,
    };
  }
  const listen = describeListenFailure(error, context);
  if (listen) return listen;
  if (error.name === 'InvalidMultiaddrError' || /multiaddr/i.test(error.name)) {
    const settings = [context.listenSetting, context.peerSetting].filter(Boolean).join(' or ');
    return {
      message: `${prefix}: a multiaddr is not valid (${error.message})${settings ? ` in ${settings}` : ''}; write it like ${EXAMPLE_MULTIADDR}`,
      exitCode: 1,
    };
  }
  if (
    code &&
    typeof errno.path === 'string' &&
    ['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'ENOTDIR', 'EISDIR'].includes(code)
  ) {
    return {
      message: `${prefix}: cannot ${String(errno.syscall ?? 'use')} ${errno.path} (${code}); check the path and its permissions`,
      exitCode: 1,
    };
  }
  return undefined;
}

/** libp2p's refusal to listen on the Waku addresses: its message lists each address with the socket error. */
function describeListenFailure(error: Error, context: FailureContext): Failure | undefined {
  if (!/ListenAddress|NoValidAddresses/.test(error.name)) return undefined;
  const { prefix } = context;
  const named = context.listenSetting ? ` (${context.listenSetting})` : '';
  const failed = /(\/\S+): \w*Error: listen (E[A-Z]+)/.exec(error.message);
  if (failed?.[2] === 'EADDRINUSE') {
    return {
      message: `${prefix}: the Logos network address ${failed[1]} is in use${named}; pick another port (another logos-a2a may be running), or /tcp/0 for any free one`,
      exitCode: 1,
    };
  }
  if (failed)
    return {
      message: `${prefix}: cannot listen on the Logos network address ${failed[1]} (${failed[2]})${named}`,
      exitCode: 1,
    };
  // Each refused address on a line of its own: "  /ip4/…/udp/5000: UnsupportedListenAddressError: No transport was …".
  const refused = /^\s*(\/\S+): \w*Error: (.+)$/m.exec(error.message);
  const what = refused ? `address ${refused[1]} (${refused[2]})` : 'addresses';
  return {
    message: `${prefix}: cannot listen on the Logos network ${what}${named}; use TCP addresses like ${EXAMPLE_MULTIADDR}, or with /ws for WebSocket`,
    exitCode: 1,
  };
}
