/**
 * A process whose only Waku party is a `waku-light` transport ends once the transport has stopped: nothing of the
 * light node (its Filter subscriptions' keep-alive timers) outlives `stop`. It matters now that the transport is
 * public (`logos-a2a/agent`): an agent that stops it must not have to call `process.exit`.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = (path: string) => JSON.stringify(fileURLToPath(new URL(`../../../src/${path}`, import.meta.url)));
const script = `
import { WakuTransport } from ${src('logos/transports/waku.ts')};
import { WakuLightTransport } from ${src('logos/transports/waku-light.ts')};
const service = await WakuTransport.create({ listen: ['/ip4/127.0.0.1/tcp/0/ws'] });
const light = new WakuLightTransport({ servicePeers: service.multiaddrs(), clusterId: 2, numShardsInCluster: 8 });
await light.start();
light.subscribe('/logos-a2a/1/task-stop-test/json', () => undefined);
await light.waitForService();
await new Promise((resolve) => setTimeout(resolve, 1_000));
await light.stop();
await service.stop();
console.log('stopped');
`;

describe('the waku-light transport', () => {
  it('lets its process end once stopped', async () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const ended = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 30_000);
      child.on('exit', () => (clearTimeout(timer), resolve(true)));
    });
    child.kill('SIGKILL');
    expect(output).toContain('stopped');
    expect(ended, `still running 30 s after start:\n${output}`).toBe(true);
  }, 40_000);
});
