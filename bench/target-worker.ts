/**
 * Worker-thread entry of bench/gateway-vs-sdk.ts: runs one target server on its own event loop (same process), so
 * the load generator on the main thread does not share a JavaScript thread with the server it measures.
 *
 * Protocol with the main thread: → { type: 'ready', url } once listening; ← { type: 'cpu' }; → { type: 'cpu',
 * micros } (this thread's CPU time so far, user + system); ← { type: 'stop' }; → { type: 'stopped' }.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startTarget, type TargetName } from './targets.ts';

if (!parentPort) throw new Error('bench/target-worker.ts must run as a worker thread.');
const port = parentPort;
const { target } = workerData as { target: TargetName };

const running = await startTarget(target);
const onMessage = (message: { type: string }) => {
  if (message.type === 'cpu') {
    const { user, system } = process.threadCpuUsage();
    port.postMessage({ type: 'cpu', micros: user + system });
    return;
  }
  if (message.type !== 'stop') return;
  // off() with the listener itself unrefs the port (removeAllListeners does not), so the thread can end by itself.
  port.off('message', onMessage);
  running.close().then(
    () => port.postMessage({ type: 'stopped' }),
    (error: unknown) => port.postMessage({ type: 'stopped', error: String((error as Error)?.stack ?? error) }),
  );
};
port.on('message', onMessage);
port.postMessage({ type: 'ready', url: running.url });
