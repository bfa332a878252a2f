/** A TCP port on 127.0.0.1 that was free a moment ago: for a child process that must be told its port up front. */
import { createServer, type AddressInfo } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
