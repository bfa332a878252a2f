import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Integration files each start their own gateway on a free loopback port; two workers fit a 2-core machine.
    maxWorkers: 2,
  },
});
