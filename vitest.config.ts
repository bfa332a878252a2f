import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, roughly longest first. They start before all others, so that with two workers none of
 * them is left running alone at the end. The rest follow in vitest's own order (by their last duration when vitest has
 * a cache of it, else larger files first).
 */
const SLOWEST_FIRST = [
  'test/crash/paid-tasks-crash.test.ts',
  'test/crash/replicas-crash.test.ts',
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
  'test/lez/private/agent-receives.test.ts',
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

/**
 * End-to-end files that run a second time with every envelope on the stock Waku wire (LOGOS_A2A_TEST_WIRE=waku, see
 * test/support/gateway.ts): the official clients of both generations, both bindings, streams, push, the conformance
 * scenarios, payments on the devnet and the regressions of the A2A face. The other files that start a test bed tap or
 * forge what crosses the in-process network, so they run on it only.
 */
const OVER_WAKU = [
  'test/a2a/client-generations.test.ts',
  'test/a2a/client-v1.test.ts',
  'test/a2a/client-v03.test.ts',
  'test/a2a/rest.test.ts',
  'test/a2a/rest-v03.test.ts',
  'test/a2a/streams.test.ts',
  'test/a2a/errors.test.ts',
  'test/a2a/push.test.ts',
  'test/logos/agents/conformance.test.ts',
  'test/bridge/paid-tasks-on-devnet.test.ts',
  'test/regression/payments.test.ts',
  'test/regression/sse.test.ts',
  'test/regression/client-mistakes.test.ts',
  'test/regression/a2a-face.test.ts',
];

/**
 * Files that take over about a second and a half on two cores (processes, Waku networks, PostgreSQL, the devnet,
 * builds): `npm run test:quick` (LOGOS_A2A_QUICK=1) leaves them out, for the edit-and-test loop. `npm test` runs
 * everything.
 */
const SLOW = [
  'test/logos/transports/waku-light-load.test.ts',
  'test/a2a/client-generations.test.ts',
  'test/a2a/directory-page.test.ts',
  'test/a2a/grpc.test.ts',
  'test/a2a/postman.test.ts',
  'test/a2a/push.test.ts',
  'test/a2a/rate-limit.test.ts',
  'test/bridge/durability.test.ts',
  'test/bridge/lease-renewal.test.ts',
  'test/bridge/paid-tasks-on-devnet.test.ts',
  'test/bridge/paid-tasks-with-fees.test.ts',
  'test/bridge/paid-tasks.test.ts',
  'test/cli/agent-light.test.ts',
  'test/cli/agent-paid-fees.test.ts',
  'test/cli/agent-private.test.ts',
  'test/cli/cli.test.ts',
  'test/cli/devnet-fees.test.ts',
  'test/crash/paid-tasks-crash.test.ts',
  'test/crash/replicas-crash.test.ts',
  'test/deploy/dockerfile.test.ts',
  'test/devnet/devnet.test.ts',
  'test/devnet/private.test.ts',
  'test/examples/stock-agent.test.ts',
  'test/gateway/peer-networks.test.ts',
  'test/gateway/shutdown.test.ts',
  'test/gateway/slow-clients.test.ts',
  'test/gateway/wallet-payer-profile.test.ts',
  'test/lez/official-wallet-storage.test.ts',
  'test/lez/rail/contract.test.ts',
  'test/lez/rail/devnet-kill.test.ts',
  'test/lez/rail/lez-rail.test.ts',
  'test/logos/agent-runtime/caller.test.ts',
  'test/logos/agent-runtime/hire-over-waku.test.ts',
  'test/logos/agent-runtime/hire-paid-devnet.test.ts',
  'test/logos/agent-runtime/hire-task.test.ts',
  'test/logos/agents/conformance.test.ts',
  'test/logos/bindings/agent-side-cli.test.ts',
  'test/logos/bindings/agent-side.test.ts',
  'test/logos/bindings/logos-agent-gateway.test.ts',
  'test/logos/bindings/logos-agent-paid.test.ts',
  'test/logos/bindings/logos-agent-peer.test.ts',
  'test/logos/bindings/lp-0008-gateway.test.ts',
  'test/logos/bindings/lp-0008-paid.test.ts',
  'test/logos/bindings/lp-0008-peer.test.ts',
  'test/logos/bindings/pilot-gateway.test.ts',
  'test/logos/bindings/pilot-peer.test.ts',
  'test/logos/bindings/published-on-peers.test.ts',
  'test/logos/discovery.test.ts',
  'test/logos/seed-agent.test.ts',
  'test/logos/bindings/seed-face.test.ts',
  'test/publish/seed-face.test.ts',
  'test/logos/bindings/seed-face-cli.test.ts',
  'test/logos/seed-gateway.test.ts',
  'test/logos/transports/contract.test.ts',
  'test/logos/transports/nwaku-rest.test.ts',
  'test/logos/transports/replica-peers.test.ts',
  'test/logos/transports/stock-light-client.test.ts',
  'test/logos/transports/waku-gateway.test.ts',
  'test/logos/transports/waku-light-stop.test.ts',
  'test/logos/transports/waku-light.test.ts',
  'test/logos/transports/waku-peer-exchange.test.ts',
  'test/logos/transports/waku-size-limits.test.ts',
  'test/logos/transports/waku.test.ts',
  'test/observability/probes.test.ts',
  'test/observability/tracing.test.ts',
  'test/package.test.ts',
  'test/publish/paid-publish-command.test.ts',
  'test/publish/paid-publish.test.ts',
  'test/publish/paid-published-rate-limit.test.ts',
  'test/publish/paid-published-setting.test.ts',
  'test/publish/publish-command.test.ts',
  'test/publish/publish-restart.test.ts',
  'test/publish/publish.test.ts',
  'test/publish/published-gateway-restart.test.ts',
  'test/publish/published-private.test.ts',
  'test/publish/published-rate-limit.test.ts',
  'test/publish/two-worlds.test.ts',
  'test/regression/a2a-face.test.ts',
  'test/regression/agent-restart.test.ts',
  'test/regression/client-mistakes.test.ts',
  'test/regression/hostile-input.test.ts',
  'test/regression/lost-request.test.ts',
  'test/regression/payments.test.ts',
  'test/regression/races.test.ts',
  'test/regression/seed-card-address.test.ts',
  'test/regression/sse.test.ts',
  'test/regression/transport-switch.test.ts',
  'test/regression/verified-after-restart.test.ts',
  'test/replicas/claimed-then-killed.test.ts',
  'test/replicas/ended-receipts.test.ts',
  'test/replicas/kill-replica.test.ts',
  'test/replicas/killed-after-save.test.ts',
  'test/replicas/priced-retries.test.ts',
  'test/replicas/shared-tasks.test.ts',
  'test/replicas/shared-wallet.test.ts',
  'test/store/contract.test.ts',
  'test/store/replica-store.test.ts',
  'test/worker/bundle.test.ts',
  'test/worker/d1-spending-gate.test.ts',
  'test/worker/payment-resume.test.ts',
  'test/worker/payments.test.ts',
  'test/worker/wallet-fees.test.ts',
  'test/worker/worker.test.ts',
];

const QUICK = process.env.LOGOS_A2A_QUICK === '1';

export default defineConfig({
  test: {
    projects: QUICK
      ? [{ extends: true, test: { name: 'quick', include: ['test/**/*.test.ts'], exclude: SLOW } }]
      : [
          { extends: true, test: { name: 'memory', include: ['test/**/*.test.ts'] } },
          { extends: true, test: { name: 'waku', include: OVER_WAKU, env: { LOGOS_A2A_TEST_WIRE: 'waku' } } },
        ],
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
