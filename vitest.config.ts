import { defineConfig } from 'vitest/config';

// The AWS SDK warns on every process start that Node 20 support ends in 2027 (architecture.md knows);
// keep the test output readable. Inherited by the forked workers and the local stack.
process.env.NODE_NO_WARNINGS = '1';

export default defineConfig({
  // graphql ships CJS and ESM; @graphql-tools loads one and vite the other unless both resolve to one file.
  resolve: { alias: { graphql: 'graphql/index.js' } },
  test: {
    include: ['test/**/*.test.ts'],
    // One local stack for the whole run; each test file bootstraps its own tenant.
    globalSetup: ['test/support/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 180_000,
    pool: 'forks',
  },
});
