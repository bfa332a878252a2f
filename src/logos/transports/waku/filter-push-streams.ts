/**
 * Closes the light node's side of every Filter push stream as it arrives. `@waku/sdk` 0.0.36 (FilterCore.onRequest)
 * reads a push stream to its end but never closes its writing side, so each push a service node sends leaves a
 * half-open stream at both ends: the light node stops taking pushes at its limit of 100 such streams per connection,
 * and a service node running libp2p's defaults stops opening them at 64. A light node never writes on a push stream,
 * so its writing side is closed at once; the service node's close then ends the stream at both ends.
 */
import type { IncomingStreamData, Libp2p, StreamHandlerRecord } from '@libp2p/interface';
import { FILTER_PUSH_CODEC } from './filter-service.ts';

interface WithRegistrar {
  components?: { registrar?: { getHandler(protocol: string): StreamHandlerRecord } };
}

/** Wraps the stock Filter push handler of a started light node; throws when there is none to wrap. */
export async function closeFilterPushStreams(libp2p: Libp2p): Promise<void> {
  const registrar = (libp2p as unknown as WithRegistrar).components?.registrar;
  if (!registrar) throw new Error('the light node exposes no registrar: its Filter push streams cannot be closed');
  const { handler, options } = registrar.getHandler(FILTER_PUSH_CODEC);
  await libp2p.unhandle(FILTER_PUSH_CODEC);
  await libp2p.handle(
    FILTER_PUSH_CODEC,
    (data: IncomingStreamData) => {
      handler(data);
      data.stream.closeWrite().catch((error: unknown) => data.stream.abort(error as Error));
    },
    options,
  );
}
