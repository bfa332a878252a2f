/**
 * The gRPC binding, on a port of its own: the SDK's gRPC services (v1.0 `lf.a2a.v1.A2AService`, and v0.3
 * `a2a.v1.A2AService` through its compat layer) on each agent's request handler, behind the guards of the HTTP face.
 *
 * Every agent is served on the one port. A v1.0 call names its agent in the request's `tenant`, which each card's
 * GRPC interface carries (card-projection.ts), so an official client made from the card sends it by itself; an empty
 * tenant means the default agent. v0.3 requests have no tenant, so v0.3 gRPC serves the default agent only.
 *
 * Before a call reaches an agent: refused while the gateway shuts down (UNAVAILABLE), without a valid API key from
 * the `x-api-key` or `authorization: Bearer` metadata (UNAUTHENTICATED), over a rate limit (RESOURCE_EXHAUSTED), for
 * an agent not served here (NOT_FOUND); messages over maxBodyBytes are refused by gRPC itself (RESOURCE_EXHAUSTED).
 * Then grpc-handler.ts checks the request as the HTTP bindings do, and the SDK maps A2A errors to status codes as
 * the specification's table does (TaskNotFound → NOT_FOUND, a malformed request → INVALID_ARGUMENT, …).
 */
import * as grpc from '@grpc/grpc-js';
import { LegacyA2AService, legacyGrpcService } from '@a2a-js/sdk/compat/v0_3/server/grpc';
import { A2AService, grpcService, UserBuilder, type GrpcServiceOptions } from '@a2a-js/sdk/server/grpc';
import { ServerCallContext, type ServerCallContextBuilder, type User } from '@a2a-js/sdk/server';
import { VersionNotSupportedError } from '@a2a-js/sdk/errors';
import type { AgentDirectory, DirectoryEntry } from '../logos/directory.ts';
import { agentRequestHandler } from '../bridge/request-handler.ts';
import type { TaskEngine } from '../bridge/task-engine.ts';
import { CALL_ABORT_KEY } from '../bridge/call-abort.ts';
import type { TaskStore } from '../store/task-store.ts';
import type { PushNotificationService } from '../push/push-service.ts';
import type { ApiKeys } from './api-keys.ts';
import { INTERNAL_ERROR_MESSAGE, type ErrorLog } from './errors.ts';
import { GrpcRequestHandler } from './grpc-handler.ts';
import { negotiateVersion, type ProtocolVersion } from './protocol-version.ts';
import { refusal, type RateLimiter } from './rate-limit.ts';
import { entryCards } from './served-cards.ts';
import type { Logger } from '../observability/logger.ts';
import { metrics } from '../observability/metrics.ts';

export interface GrpcOptions {
  host: string;
  /** 0 picks a free one. */
  port: number;
  /** Where clients reach the bound port, as the cards list it (`host:port`). */
  addressOf: (boundPort: number) => string;
  directory: AgentDirectory;
  engine: TaskEngine;
  store: TaskStore;
  /** The HTTP face's public base URL: the cards the handlers hold list its interfaces too. */
  publicBaseUrl: string;
  defaultAgentId: string | undefined;
  apiKeys: ApiKeys;
  /** The largest request message, in bytes (the HTTP face's maxBodyBytes). */
  maxMessageBytes: number;
  push?: PushNotificationService;
  /** Aborted when the gateway starts shutting down: new calls are refused, open streams end (request-handler.ts). */
  shutdown?: AbortSignal;
  rateLimit?: { limiter: RateLimiter; trustProxy: boolean };
  log: ErrorLog;
  /** The JSON logger: one line per call, as the HTTP face writes one per request. */
  logger?: Logger;
}

export interface GrpcServer {
  readonly port: number;
  /** `host:port`, as the cards list it. */
  readonly address: string;
  /** Lets calls in flight finish for at most `graceMs`, then cuts them. */
  stop(graceMs: number): Promise<void>;
}

type Call = grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>;
type Refusal = Partial<grpc.StatusObject> & { code: grpc.status; details: string };
type Admitted = { entry: DirectoryEntry; user: User | undefined };

/** Binds the gRPC server and serves every agent of the directory on it. */
export async function listenGrpc(options: GrpcOptions): Promise<GrpcServer> {
  const server = new grpc.Server({ 'grpc.max_receive_message_length': options.maxMessageBytes });
  // Known once bound, which is before any call can arrive; the handlers' cards list it.
  let address = '';
  const handlers = new AgentHandlers(options, () => address);
  const serve = (version: ProtocolVersion) => (call: Call, admitted: Admitted) => {
    const abort = new AbortController();
    // A client that goes away ends its stream's wait for the task's next change (call-abort.ts).
    call.on('cancelled', () => abort.abort());
    const serviceOptions: GrpcServiceOptions = {
      requestHandler: handlers.handler(admitted.entry),
      userBuilder: admitted.user ? async () => admitted.user! : UserBuilder.noAuthentication,
      contextBuilder: contextBuilder(version, abort.signal),
    };
    return version === '1.0' ? grpcService(serviceOptions) : legacyGrpcService(serviceOptions);
  };
  server.addService(A2AService, guarded(A2AService, options, '1.0', serve('1.0')));
  server.addService(LegacyA2AService, guarded(LegacyA2AService, options, '0.3', serve('0.3')));
  const port = await bind(server, options.host, options.port);
  address = options.addressOf(port);
  return { port, address, stop: (graceMs) => shutdown(server, graceMs) };
}

/**
 * Each agent's request handler for gRPC, made on its first call and again when the directory's entry changes (a
 * new card), as the HTTP face makes its own.
 */
class AgentHandlers {
  readonly #options: GrpcOptions;
  readonly #address: () => string;
  readonly #handlers = new Map<string, { entry: DirectoryEntry; handler: GrpcRequestHandler }>();

  constructor(options: GrpcOptions, address: () => string) {
    this.#options = options;
    this.#address = address;
  }

  handler(entry: DirectoryEntry): GrpcRequestHandler {
    const cached = this.#handlers.get(entry.id);
    if (cached && cached.entry === entry) return cached.handler;
    const options = this.#options;
    // The SDK's services accept the versions this card lists for GRPC: 1.0 for every agent, 0.3 for the default one.
    const cards = entryCards(entry, `${options.publicBaseUrl}/agents/${entry.id}`, {
      apiKeyRequired: options.apiKeys.required,
      pushNotifications: options.push !== undefined,
      grpc: { address: this.#address(), legacy: entry.id === options.defaultAgentId },
    });
    const handler = new GrpcRequestHandler(agentRequestHandler(entry, cards.v1, options), options.log);
    this.#handlers.set(entry.id, { entry, handler });
    return handler;
  }
}

/**
 * A service whose every method first admits the call (guards, then the agent it is for) and then hands it to that
 * agent's service, made by `serve` for the call.
 */
function guarded(
  definition: grpc.ServiceDefinition,
  options: GrpcOptions,
  version: ProtocolVersion,
  serve: (call: Call, admitted: Admitted) => grpc.UntypedServiceImplementation,
): grpc.UntypedServiceImplementation {
  /** Runs `handle` on the admitted call, or answers the refusal; whatever goes wrong here is an internal error. */
  const dispatch = (call: Call, refuse: (refusal: Refusal) => void, handle: (admitted: Admitted) => void) =>
    void admit(call, options, version)
      .then((admitted) => ('code' in admitted ? refuse(admitted) : handle(admitted)))
      .catch((error: unknown) => {
        options.log(`internal error while serving gRPC ${call.getPath()}`, error);
        refuse(refused(grpc.status.INTERNAL, INTERNAL_ERROR_MESSAGE));
      });
  const methods = Object.entries(definition).map(([name, method]) => {
    // As the specification names it (the path's last part: SendMessage), not the handler's key (sendMessage).
    const rpc = method.path.split('/').at(-1) ?? name;
    if (method.responseStream) {
      return [
        name,
        (call: grpc.ServerWritableStream<unknown, unknown>) => {
          // A stream's status: the error it was ended with, CANCELLED when the client went, else OK at its end.
          const done = observed(rpc, options.logger);
          call.once('error', (error: Partial<grpc.StatusObject>) => done(error.code ?? grpc.status.UNKNOWN));
          call.once('cancelled', () => done(grpc.status.CANCELLED));
          call.once('finish', () => done(grpc.status.OK));
          dispatch(
            call,
            (refusal) => {
              // As the SDK's services end a stream that fails.
              call.emit('error', refusal);
              call.end();
            },
            (admitted) => (serve(call, admitted)[name] as grpc.handleServerStreamingCall<unknown, unknown>)(call),
          );
        },
      ];
    }
    return [
      name,
      (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
        const done = observed(rpc, options.logger);
        const answer: grpc.sendUnaryData<unknown> = (error, value) => {
          done(error ? (error.code ?? grpc.status.UNKNOWN) : grpc.status.OK);
          callback(error, value);
        };
        dispatch(
          call,
          (refusal) => answer(refusal),
          (admitted) => (serve(call, admitted)[name] as grpc.handleUnaryCall<unknown, unknown>)(call, answer),
        );
      },
    ];
  });
  return Object.fromEntries(methods) as grpc.UntypedServiceImplementation;
}

/** Counts and logs a call of `method` once, with the first status it ends with, and how long it took. */
function observed(method: string, logger: Logger | undefined): (code: grpc.status) => void {
  const started = performance.now();
  let counted = false;
  return (code) => {
    if (counted) return;
    counted = true;
    const labels = { method, code: grpc.status[code] ?? String(code) };
    const seconds = (performance.now() - started) / 1000;
    metrics.grpcRequests.inc(labels);
    metrics.grpcDuration.observe(labels, seconds);
    logger?.info({ grpcMethod: method, code: labels.code, durationMs: Math.round(seconds * 1000) }, 'grpc call');
  };
}

/** The guards of the HTTP face, in its order, then the agent the call is for. */
async function admit(call: Call, options: GrpcOptions, version: ProtocolVersion): Promise<Admitted | Refusal> {
  if (options.shutdown?.aborted) {
    return refused(
      grpc.status.UNAVAILABLE,
      'The gateway is shutting down; retry in a moment (another replica, or this one after its restart).',
    );
  }
  const auth = options.apiKeys.authenticateCredentials(
    metadataValue(call, 'x-api-key'),
    metadataValue(call, 'authorization'),
  );
  if (!auth.ok) return refused(grpc.status.UNAUTHENTICATED, auth.message);
  if (options.rateLimit) {
    const limited = await rateLimited(call, options.rateLimit, auth.user?.userName, options.log);
    if (limited) return limited;
  }
  const entry = agentOf(call, options, version);
  return 'code' in entry ? entry : { entry, user: auth.user };
}

async function rateLimited(
  call: Call,
  { limiter, trustProxy }: NonNullable<GrpcOptions['rateLimit']>,
  keyName: string | undefined,
  log: ErrorLog,
): Promise<Refusal | undefined> {
  try {
    const decision = await limiter.check({ keyName, address: clientAddress(call, trustProxy) });
    return decision.kind === 'limited' ? refused(grpc.status.RESOURCE_EXHAUSTED, refusal(decision).message) : undefined;
  } catch (error) {
    // As on HTTP: limits protect the gateway, a failing shared store must not take it down.
    log('rate limits could not be checked; letting the call through', error);
    return undefined;
  }
}

function agentOf(call: Call, options: GrpcOptions, version: ProtocolVersion): DirectoryEntry | Refusal {
  const tenant = version === '1.0' ? ((call.request as { tenant?: string } | null)?.tenant ?? '') : '';
  const id = tenant || options.defaultAgentId;
  const entry = id === undefined ? undefined : options.directory.get(id);
  if (entry) return entry;
  if (tenant) {
    const known = options.directory.all().map((agent) => agent.id);
    return refused(
      grpc.status.NOT_FOUND,
      `No agent "${tenant}" here (the request's tenant names the agent). Agents: ${known.length ? known.join(', ') : 'none'}.`,
    );
  }
  return refused(
    grpc.status.NOT_FOUND,
    options.defaultAgentId
      ? `The default agent "${options.defaultAgentId}" has not announced itself yet; name an agent in the request's tenant.`
      : "No default agent is configured (defaultAgent); name an agent in the request's tenant.",
  );
}

/**
 * The SDK's default context, with the call's abort signal in its state. The A2A-Version metadata is read as on HTTP
 * (patch numbers ignored), and each service takes only its own version: a call without one is of the service's
 * version, since its messages can be of no other (the v1.0 HTTP+JSON paths do the same).
 */
function contextBuilder(version: ProtocolVersion, abort: AbortSignal): ServerCallContextBuilder {
  return ({ extensions, user, requestedVersion, tenant }) => {
    const negotiated = negotiateVersion(requestedVersion, version);
    if (!negotiated.ok || negotiated.version !== version) {
      const other: ProtocolVersion = version === '1.0' ? '0.3' : '1.0';
      throw new VersionNotSupportedError(
        `A2A-Version "${requestedVersion}" is not served by ${SERVICE_NAMES[version]}, which speaks ${version} ` +
          `(${SERVICE_NAMES[other]} speaks ${other}).`,
      );
    }
    return new ServerCallContext({
      requestedExtensions: extensions,
      ...(user ? { user } : {}),
      requestedVersion: version,
      ...(tenant ? { tenant } : {}),
      state: new Map([[CALL_ABORT_KEY, abort]]),
    });
  };
}

const SERVICE_NAMES: Record<ProtocolVersion, string> = {
  '1.0': 'lf.a2a.v1.A2AService',
  '0.3': 'a2a.v1.A2AService',
};

function refused(code: grpc.status, details: string): Refusal {
  return { code, details };
}

function metadataValue(call: Call, name: string): string | undefined {
  return call.metadata.get(name)[0]?.toString();
}

/** The client's address without its port; with `trustProxy`, the first `x-forwarded-for` entry (as on HTTP). */
function clientAddress(call: Call, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = metadataValue(call, 'x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  const peer = call.getPeer();
  return /^\[?(.*?)\]?:\d+$/.exec(peer)?.[1] ?? peer;
}

function bind(server: grpc.Server, host: string, port: number): Promise<number> {
  const target = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  return new Promise((resolve, reject) => {
    server.bindAsync(target, grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(new Error(`cannot listen on ${target}: ${error.message}`)) : resolve(bound),
    );
  });
}

function shutdown(server: grpc.Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const deadline = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(deadline);
      resolve();
    });
  });
}
