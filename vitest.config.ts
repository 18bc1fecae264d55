import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import SlowestFirst from './test/support/sequencer.js';

// The AWS SDK warns on every process start that Node 20 support ends in 2027 (architecture.md knows);
// keep the test output readable. Inherited by the forked workers and the local stack.
process.env.NODE_NO_WARNINGS = '1';

// A run leaves no scratch behind: every temporary folder of the run (the tests' own, the function bundles',
// the local stack's) is made under one folder, TMPDIR for the workers and the stack, removed when the run
// ends. What must outlast the run (the stack's log when it logged failures: test/support/globalSetup.ts) goes
// to the system's temporary folder, PLM_KEEP_DIR.
if (!process.env.PLM_TEST_SCRATCH) {
  const system = tmpdir();
  const scratch = mkdtempSync(join(system, 'plm-test-run-'));
  Object.assign(process.env, { PLM_TEST_SCRATCH: scratch, PLM_KEEP_DIR: system, TMPDIR: scratch });
  process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
}

export default defineConfig({
  // graphql ships CJS and ESM; @graphql-tools loads one and vite the other unless both resolve to one file.
  resolve: { alias: { graphql: 'graphql/index.js' } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // A worker's process runs file after file with the modules it has loaded (none of the tests mocks a module
    // or leaves state behind for the next file): a file does not pay for a fresh process and module graph.
    isolate: false,
    // The e2e files mostly wait on the local stack (one Node process and DynamoDB Local): three at once keep
    // two cores busy, where vitest's default (cores - 1) runs them one at a time on a 2-core machine.
    maxWorkers: Math.max(3, availableParallelism()),
    sequence: { sequencer: SlowestFirst },
    projects: [
      // Pure tests: no local stack (`npm run test:unit`, the fast loop).
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      // The CDK stack and the function bundles, built in process: no local stack either, but slow.
      { extends: true, test: { name: 'infra', include: ['test/infra/**/*.test.ts'] } },
      // Real HTTP to the local stack: one stack per run; each test file bootstraps its own tenant.
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], globalSetup: ['test/support/globalSetup.ts'] } },
    ],
  },
});
