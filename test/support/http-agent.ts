/** The SDK's A2A agent over HTTP (http-agent-process.ts) as a child process of a test. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { stopChild, untilPrinted } from './child-process.ts';

const script = fileURLToPath(new URL('./http-agent-process.ts', import.meta.url));

export interface HttpAgent {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts it with `args` (--tamper, --bearer TOKEN, --port PORT) and resolves once it listens. */
export async function startHttpAgent(args: string[] = []): Promise<HttpAgent> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const printed = await untilPrinted(child, /listening (\S+)/, 'the HTTP agent');
  if (!printed.match) throw new Error(`the HTTP agent exited (${printed.code}):\n${printed.output}`);
  return { url: printed.match[1]!, child, output: () => output, stop: (signal) => stopChild(child, signal) };
}
