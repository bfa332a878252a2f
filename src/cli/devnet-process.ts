/**
 * The demo's devnet in a process of its own (`logos-a2a devnet --data DIR`), so that its chain outlives a crash of
 * the demo: after a restart, the gateway and the paid agent still find every payment on it. The child reports its
 * URL over the IPC channel and stops when that channel closes, so a demo killed with SIGKILL leaves no devnet behind.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ProtocolProfile } from '../lez/protocol-profile.ts';

/** What the devnet child sends its parent once it listens. */
export interface DevnetReady {
  kind: 'devnet-ready';
  url: string;
}

export interface DevnetProcess {
  url: string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/** Starts `logos-a2a devnet` as a child; rejects with its output when it exits before it listens. */
export function spawnDevnet(options: {
  port: number;
  dataDir: string | undefined;
  profile?: ProtocolProfile;
}): Promise<DevnetProcess> {
  // This module's sibling main.ts (in a checkout) or main.js (in dist/): the same build as the running command.
  const entry = fileURLToPath(new URL(`./main${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));
  const args = [
    entry,
    'devnet',
    '--port',
    String(options.port),
    ...(options.dataDir ? ['--data', options.dataDir] : []),
    ...(options.profile ? ['--profile', options.profile] : []),
  ];
  const child = spawn(process.execPath, [...process.execArgv, ...args], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(errors.trim() || `the devnet process exited (code ${code}) before it listened`)),
    );
    child.on('message', (message: DevnetReady) => {
      if (message.kind !== 'devnet-ready') return;
      resolve({
        url: message.url,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}
