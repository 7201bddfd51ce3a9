import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.{ts,tsx}'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    unstubEnvs: true,
    // Tests spawn the built CLI and loopback servers; keep parallelism modest on 2-core machines.
    maxWorkers: 2,
  },
});
