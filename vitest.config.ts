import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // e2e tests spawn servers and touch real temp dirs; two cores on CI.
    pool: 'forks',
    maxWorkers: 2,
  },
});
