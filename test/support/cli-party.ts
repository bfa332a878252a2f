/**
 * A party of a crash suite: `logos-a2a ARGS` as a child process with its state on disk, started (again) until it
 * says it is ready, and killed with SIGKILL when the suite says so.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cliEntry } from '../cli/dist.ts';
import { stopChild } from './child-process.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class CliParty {
  /** Every party created, for their output when a test fails. */
  static readonly all: CliParty[] = [];
  private static readonly running = new Set<ChildProcess>();

  private child: ChildProcess | undefined;
  /** Started and said it is ready, and not killed since. */
  private up = false;
  /** Everything it printed, over all its starts. */
  output = '';

  readonly name: string;
  private readonly args: string[];
  private readonly env: Record<string, string>;

  constructor(name: string, args: string[], env: Record<string, string> = {}) {
    this.name = name;
    this.args = args;
    this.env = env;
    CliParty.all.push(this);
  }

  /** Kills every party still running (the suite's end). */
  static killAll(): void {
    for (const child of CliParty.running) child.kill('SIGKILL');
  }

  /** Up and ready: started, not exited since, and it said so (a call to one still starting would be refused). */
  get isUp(): boolean {
    return this.up;
  }

  /** Starts it; resolves once it prints "Ctrl-C" (it is up). */
  async start(): Promise<void> {
    const child = spawn(process.execPath, [cliEntry(), ...this.args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...this.env },
    });
    this.child = child;
    CliParty.running.add(child);
    child.once('exit', () => {
      CliParty.running.delete(child);
      if (this.child === child) this.up = false;
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name} did not start:\n${output}`)), 30_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        this.output += chunk.toString();
        if (!output.includes('Ctrl-C')) return;
        clearTimeout(timer);
        this.up = true;
        resolve();
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => reject(new Error(`${this.name} exited (${code}) before it started:\n${output}`)));
    });
  }

  /** kill -9, then a start on the same data after `downMs`. */
  async crash(downMs: number): Promise<void> {
    await stopChild(this.child, 'SIGKILL');
    console.info(`crash suite: killed the ${this.name}, back in ${downMs} ms`);
    await sleep(downMs);
    await this.start();
  }
}

/** Retries a call until a party answers (it may be down, or restarting): every 250 ms, `attempts` times at most. */
export async function untilAnswered<T>(call: () => Promise<T>, attempts = 200): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await sleep(250);
    }
  }
}
