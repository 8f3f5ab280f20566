// Runs before each e2e test file (vitest setupFiles): what a file started for all its tests ends with it.
import { afterAll } from 'vitest';
import { closeSharedHttpServer } from './harness.js';

afterAll(closeSharedHttpServer);
