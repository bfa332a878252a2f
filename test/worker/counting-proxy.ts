/**
 * A plain HTTP proxy on 127.0.0.1 in front of a service (a node's nwaku REST API, the LEZ sequencer), counting the
 * requests that pass and keeping their bodies: what the Worker asks, seen from outside. When the service is gone,
 * the connection is dropped, as the service's own would be. It can also cut the Worker off at a chosen request: that
 * request still reaches the service, but its answer is lost and every later connection is dropped, until `reconnect`.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingProxy {
  url: string;
  /** How many requests so far were `METHOD path`. */
  count(method: string, path: string): number;
  /** The bodies of every request so far, in order. */
  bodies(): string[];
  /** Resolves once a request whose body `matches` has reached the service and the Worker is cut off. */
  cutOffAfter(matches: (body: string) => boolean): Promise<void>;
  /** Passes requests on again. */
  reconnect(): void;
  stop(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const seen = new Map<string, number>();
  const bodies: string[] = [];
  let cut: { matches: (body: string) => boolean; done: () => void } | undefined;
  let cutOff = false;
  const server = createServer((request, response) => {
    if (cutOff) return void response.destroy();
    const key = `${request.method} ${request.url}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    void (async () => {
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await bodyOf(request);
      bodies.push(body?.toString() ?? '');
      const cutHere = cut !== undefined && body !== undefined && cut.matches(body.toString());
      const contentType = request.headers['content-type'];
      const answer = await fetch(`${target}${request.url}`, {
        method: request.method!,
        ...(contentType ? { headers: { 'content-type': contentType } } : {}),
        ...(body ? { body: new Uint8Array(body) } : {}),
      });
      if (cutHere) {
        cutOff = true;
        cut!.done();
        cut = undefined;
        return void response.destroy();
      }
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
      response.end(Buffer.from(await answer.arrayBuffer()));
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: (method, path) => seen.get(`${method} ${path}`) ?? 0,
    bodies: () => [...bodies],
    cutOffAfter: (matches) => new Promise((done) => (cut = { matches, done })),
    reconnect: () => void (cutOff = false),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
