/**
 * The HTTP face: JSON-RPC over POST on a node:http server, answering as jsonrpsee's HTTP server does:
 * 405 for other methods, 415 for a body that is not declared JSON, 413 (with a -32007 JSON-RPC error) for a
 * body over the limit (10 MiB on the real sequencer), 200 for every JSON-RPC answer, errors included. Any path
 * is served, like the real server mounted at `/`.
 *
 * A handler failure is answered with 500/-32603 and logged; a broken connection is ignored. Nothing a client
 * sends can take the process down.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stringifyJson } from '../lez/json.ts';
import { internalError, parseError, requestTooBig, type RpcError } from './rpc-errors.ts';

export interface RpcHttpServerOptions {
  host: string;
  port: number;
  maxBodyBytes: number;
  /** JSON-RPC request text → answer text, or undefined for no answer (notifications). */
  handle: (text: string) => string | undefined;
  log: (line: string) => void;
}

export interface RpcHttpServer {
  url: string;
  host: string;
  port: number;
  /** Stops listening and cuts every open connection; resolves when the server is closed. */
  close(): Promise<void>;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

function sendError(
  res: ServerResponse,
  status: number,
  error: RpcError,
  extraHeaders: Record<string, string> = {},
): void {
  res.writeHead(status, { ...JSON_HEADERS, ...extraHeaders });
  res.end(stringifyJson({ jsonrpc: '2.0', id: null, error }, { bigints: 'number' }));
}

function isJsonContentType(header: string | undefined): boolean {
  const type = header?.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json';
}

/** Reads the body up to `max` bytes; undefined when it is longer (and the rest is never read). */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    req.on('data', (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > max) {
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function serve(options: RpcHttpServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST', 'content-type': 'text/plain' });
    res.end('Method Not Allowed: JSON-RPC is served over POST\n');
    return;
  }
  if (!isJsonContentType(req.headers['content-type'])) {
    res.writeHead(415, { 'content-type': 'text/plain' });
    res.end('Supplied content type is not allowed: use application/json\n');
    return;
  }
  const declared = Number(req.headers['content-length'] ?? NaN);
  const body = declared > options.maxBodyBytes ? undefined : await readBody(req, options.maxBodyBytes);
  if (body === undefined) {
    // Close the connection rather than read the rest of an oversized body.
    sendError(res, 413, requestTooBig(), { connection: 'close' });
    res.on('finish', () => req.destroy());
    return;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    sendError(res, 200, parseError());
    return;
  }
  const answer = options.handle(text);
  res.writeHead(200, JSON_HEADERS);
  res.end(answer ?? '');
}

export function listenRpcHttp(options: RpcHttpServerOptions): Promise<RpcHttpServer> {
  const server = createServer((req, res) => {
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    serve(options, req, res).catch((error: unknown) => {
      options.log(`devnet: HTTP request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) sendError(res, 500, internalError());
      else res.destroy();
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const hostInUrl = options.host.includes(':') ? `[${options.host}]` : options.host;
      let closing: Promise<void> | undefined;
      resolve({
        url: `http://${hostInUrl}:${port}`,
        host: options.host,
        port,
        close: () => {
          closing ??= new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          });
          return closing;
        },
      });
    });
  });
}
