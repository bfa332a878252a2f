/**
 * `logos-a2a agent echo --networks-file FILE` as an operator runs it (issue #27): the built-in echo agent, its own
 * process, announced on an lp-0008 network as well; its banner says where that network's node is joined and its log
 * the key its lp-0008 card is signed with, and an outside lp-0008 caller (stock packages) that knows only those
 * verifies its card and gets an echo over Waku.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { cliEntry } from '../../cli/dist.ts';
import { stopChild, untilPrinted } from '../../support/child-process.ts';
import { eventually } from '../../support/eventually.ts';
import { lp0008Caller, lp0008State } from '../../support/peer-agents/peer-callers.ts';

const BOARD = '/lp-0008/1/discovery-agents/json';
const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-agent-side-cli-'));
const stops: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

it('announces the agent on the networks of --networks-file, where a peer calls it', async () => {
  // Loopback only: no fleet entry node.
  writeFileSync(
    join(dir, 'networks.json'),
    JSON.stringify([{ name: 'lp-0008', entryNodes: [], discoveryTopic: BOARD }]),
  );
  const child = spawn(
    process.execPath,
    [
      cliEntry(),
      'agent',
      'echo',
      '--data',
      dir,
      '--networks-file',
      join(dir, 'networks.json'),
      '--announce-every',
      '500',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  stops.push(() => stopChild(child));
  const { match, output } = await untilPrinted(child, /Ctrl-C stops it/, 'logos-a2a agent');
  expect(match, output).toBeDefined();
  const [, kid, key] = /signed by (\S+), key ([0-9a-f]{64})/.exec(output)!;
  const [, joinAt] = /on lp-0008: join at (\S+)/.exec(output)!;

  const caller = await lp0008Caller(joinAt!, BOARD);
  stops.push(() => caller.stop());
  const card = await eventually(() => caller.verifiedCard(key!), 30_000);
  expect(card['x-logos']).toEqual({ lezAccount: kid });
  const task = await caller.task(kid!, 'echo', { text: 'from the command line' });
  const done = await eventually(() => task.updates().find((u) => lp0008State(u).state === 'completed'), 30_000);
  expect(lp0008State(done).text).toBe('from the command line');
}, 90_000);
