import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, roughly longest first. They start before all others, so that with two workers none of
 * them is left running alone at the end. The rest follow in vitest's own order (by their last duration when vitest has
 * a cache of it, else larger files first). lez-rail comes last of them: its test of how many 1 s blocks 100 payments
 * take wants the CPU, so it should not overlap the type check (npm test runs it beside vitest at the start) or the
 * files that start many processes (cli, package, directory-page with its browser, waku-gateway with its agents).
 */
const SLOWEST_FIRST = [
  'test/crash/paid-tasks-crash.test.ts',
  'test/worker/worker.test.ts',
  'test/cli/cli.test.ts',
  'test/regression/payments.test.ts',
  'test/a2a/client-generations.test.ts',
  'test/package.test.ts',
  'test/a2a/directory-page.test.ts',
  'test/bridge/paid-tasks.test.ts',
  'test/logos/transports/waku-gateway.test.ts',
  'test/replicas/kill-replica.test.ts',
  'test/devnet/devnet.test.ts',
  'test/logos/transports/waku.test.ts',
  'test/lez/rail/lez-rail.test.ts',
];

class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = SLOWEST_FIRST.indexOf(relative(this.ctx.config.root, file.moduleId).replaceAll('\\', '/'));
      return index === -1 ? SLOWEST_FIRST.length : index;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Integration files each start their own gateway on a free loopback port; two workers fit a 2-core machine.
    maxWorkers: 2,
    // Each worker runs file after file without reloading the modules they share (most of the suite's CPU time went
    // into loading them again for every file). The test files leave nothing behind: whatever they start, they stop.
    isolate: false,
    sequence: { sequencer: SlowestFirst },
  },
});
