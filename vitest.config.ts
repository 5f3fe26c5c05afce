import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'renderer/src/**/*.test.{ts,tsx}'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Files are isolated by data dir, so they may run in parallel; two cores are the limit.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
