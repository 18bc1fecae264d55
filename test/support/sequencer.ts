import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, started first, so that on a few cores the run does not end with one of
 * them alone (a fresh clone has no durations cached, and vitest would start the largest files first).
 */
const slowest = [
  // In the order of their wall time in a fresh-clone CI run on 2 cores (seconds, three files at once, as vitest's
  // JSON report gives them: without beforeAll). With beforeAll, under the run's load, some files take far longer
  // (operatorAudit 60 to 70 s, changeOrders and accounts 47 to 64 s); the run still ends on the short unit files.
  'test/e2e/hostileSchema.test.ts', // 140: every operation of the schema with generated input, a tenant each
  'test/e2e/transfer.test.ts', // 86: two imports and an export of 10,000 components
  'test/e2e/searchNameIndexMixed.test.ts', // 60: 8,300 rows in indexed, legacy and small blocks, ~250 searches
  'test/e2e/searchPaging.test.ts', // 58: pages through 10,000 components
  'test/e2e/searchIndex.test.ts', // 50: compacts and merges 9,000 components' deltas
  'test/e2e/inputProperties.test.ts', // 47
  'test/e2e/searchNameIndex.test.ts', // 38: libraries of tens of thousands of rows, loaded in bulk
  'test/e2e/largeChangeOrders.test.ts', // 32: releases 1,000 components
  'test/e2e/changeDepthEdges.test.ts', // 30
  'test/e2e/itemAtomicity.test.ts', // 28
  'test/infra/stack.test.ts', // synthesizes the CDK stack, bundling each function
  'test/infra/bundles.test.ts', // bundles each function and runs it in fresh processes
  'test/e2e/scimConformance.test.ts', // 23: the identity providers' own suites
  'test/e2e/changeRequests.test.ts', // 22
  'test/e2e/bomPages.test.ts', // 22
  'test/e2e/storeTimeouts.test.ts', // 20: waits out the deployed client's timeouts
  'test/e2e/roleMatrix.test.ts', // 17: every operation as every role
  'test/e2e/searchLanguage.test.ts', // 17
  'test/e2e/requestBudget.test.ts', // 15
  'test/e2e/items.test.ts', // 15
  'test/e2e/searchFilter.test.ts', // 15
  'test/e2e/deletes.test.ts',
  'test/e2e/changeOrders.test.ts', // 14
  'test/e2e/accounts.test.ts', // 13
  'test/e2e/operatorAudit.test.ts', // 13
];

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = slowest.findIndex((path) => file.moduleId.endsWith(path));
      return index === -1 ? slowest.length : index;
    };
    return sorted
      .map((file, index) => ({ file, index }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.index - b.index)
      .map(({ file }) => file);
  }
}
