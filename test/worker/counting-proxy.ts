/**
 * A plain HTTP proxy on 127.0.0.1 in front of a node's nwaku REST API, counting the requests that pass: what the
 * Worker asks of its node, seen from outside. When the node is gone, the connection is dropped, as the node's own
 * would be.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingProxy {
  url: string;
  /** How many requests so far were `METHOD path`. */
  count(method: string, path: string): number;
  stop(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const seen = new Map<string, number>();
  const server = createServer((request, response) => {
    const key = `${request.method} ${request.url}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    void (async () => {
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await bodyOf(request);
      const contentType = request.headers['content-type'];
      const answer = await fetch(`${target}${request.url}`, {
        method: request.method!,
        ...(contentType ? { headers: { 'content-type': contentType } } : {}),
        ...(body ? { body: new Uint8Array(body) } : {}),
      });
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
      response.end(Buffer.from(await answer.arrayBuffer()));
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: (method, path) => seen.get(`${method} ${path}`) ?? 0,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
