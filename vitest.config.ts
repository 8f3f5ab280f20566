import { defineConfig } from 'vitest/config';

/** The install replays: npm pack/ci/install and the Dockerfile's stages, minutes of npm work (`npm run test:install`). */
const INSTALL = ['test/e2e/packaging.test.ts', 'test/e2e/http-docker.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // e2e tests spawn servers and touch real temp dirs. Three workers on CI's two cores: an e2e file spends much of
    // its time waiting on the servers it spawned (402 s with three workers against 628 s with two, each run measured
    // while other work shared the machine).
    pool: 'forks',
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        // Pure functions and adapters on temp dirs: no module-level state in src/ (STYLE.md), so the
        // files share one module graph per worker instead of re-importing it 80 times.
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/property/**/*.test.ts'],
          isolate: false,
          setupFiles: ['test/helpers/file-setup.ts'],
        },
      },
      {
        extends: true,
        // The same for e2e files: they share src/ and the SDK per worker, and test/helpers/file-setup.ts ends
        // what one file started (its shared HTTP server, its temp dirs) before the next.
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: INSTALL,
          isolate: false,
          setupFiles: ['test/helpers/file-setup.ts'],
        },
      },
      { extends: true, test: { name: 'install', include: INSTALL, setupFiles: ['test/helpers/file-setup.ts'] } },
    ],
  },
});
