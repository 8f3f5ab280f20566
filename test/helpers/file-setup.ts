// Runs before each test file (vitest setupFiles): what a file started for all its tests ends with it — its shared
// HTTP server, then every temp dir tempDir() made (tests that reopen a closed harness's dirs leave them to this).
import { afterAll } from 'vitest';
import { closeSharedHttpServer, removeTempDirs } from './harness.js';

afterAll(async () => {
  await closeSharedHttpServer();
  await removeTempDirs();
});
