/** The seed-literal caller (seed-caller.ts) as a child process of a test: one task, run to its end. */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const SEED_CALLER = fileURLToPath(new URL('./seed-caller.ts', import.meta.url));

export type SeedCallerEvent = Record<string, any>;

export interface SeedCall {
  readonly code: number | null;
  /** What it printed, a JSON object a line: `card`, `sent`, `status`, `reply`. */
  readonly events: SeedCallerEvent[];
  readonly errors: string;
}

/** Calls the agent whose seed card is announced through `peer` (a WebSocket multiaddr of a node serving Filter). */
export function callAsSeed(
  peer: string,
  settings: { skill: string; text: string; cancel?: boolean },
): Promise<SeedCall> {
  const child = spawn(process.execPath, [SEED_CALLER, JSON.stringify({ peer, ...settings })], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: SeedCallerEvent[] = [];
  let errors = '';
  child.stderr!.on('data', (chunk) => (errors += chunk));
  createInterface({ input: child.stdout! }).on('line', (line) => events.push(JSON.parse(line) as SeedCallerEvent));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, events, errors })));
}

/** The agent's last 1:1 reply: the end of the task. */
export const finalReply = (events: SeedCallerEvent[]) =>
  events.filter((event) => event.event === 'reply').at(-1)?.body as SeedCallerEvent;
