/**
 * `logos-a2a agent echo --seed-dialect` as an operator runs it: the built-in echo agent, its own process, announces a
 * seed card beside its own, and the seed-literal caller (test/support/seed-caller.ts, stock packages only, its own
 * process) that knows only the node to join finds that card and gets an echo over Waku, in the seed's words.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { cliEntry } from '../../cli/dist.ts';
import { stopChild, untilPrinted } from '../../support/child-process.ts';
import { callAsSeed, finalReply } from '../../support/seed-caller-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-seed-face-cli-'));
const stops: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

it('answers a seed-literal caller through the seed card it announces', async () => {
  const child = spawn(
    process.execPath,
    [
      cliEntry(),
      'agent',
      'echo',
      '--data',
      dir,
      '--seed-dialect',
      '--listen',
      '/ip4/127.0.0.1/tcp/0/ws',
      '--announce-every',
      '500',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  stops.push(() => stopChild(child));
  const { match, output } = await untilPrinted(child, /Ctrl-C stops it/, 'logos-a2a agent');
  expect(match, output).toBeDefined();
  const [, peer] = /listening at ([^,\s]+)/.exec(output)!;

  const run = await callAsSeed(peer!, { skill: 'echo', text: 'from the seed side' });
  expect(run.code, `${JSON.stringify(run.events)}\n${run.errors}`).toBe(0);
  const card = run.events.find((event) => event.event === 'card')!.card;
  expect(card.id).toMatch(/^logos-agent:[0-9a-f]{64}$/);
  expect(finalReply(run.events)).toMatchObject({ type: 'task_result', state: 'completed' });
  expect(JSON.stringify(finalReply(run.events).result)).toContain('from the seed side');
}, 90_000);
