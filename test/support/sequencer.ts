import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, started first, so that on a few cores the run does not end with one of
 * them alone (a fresh clone has no durations cached, and vitest would start the largest files first).
 */
const slowest = [
  'test/e2e/hostileSchema.test.ts', // every operation of the schema with generated input, a tenant each (~100 s in CI)
  'test/e2e/transfer.test.ts', // two imports and an export of 10,000 components
  'test/e2e/searchNameIndex.test.ts', // libraries of tens of thousands of rows, loaded in bulk
  'test/e2e/searchPaging.test.ts', // pages through 10,000 components
  'test/e2e/roleMatrix.test.ts', // every operation as every role (~80 s on a loaded machine)
  'test/e2e/searchIndex.test.ts', // compacts and merges 9,000 components' deltas
  'test/e2e/searchNameIndexMixed.test.ts', // 8,300 rows in indexed, legacy and small blocks, ~250 searches
  'test/infra/stack.test.ts', // synthesizes the CDK stack, bundling each function
  'test/infra/bundles.test.ts', // bundles each function and runs it in fresh processes
  'test/e2e/itemAtomicity.test.ts',
  'test/e2e/deletes.test.ts',
  'test/e2e/inputProperties.test.ts',
  'test/e2e/largeChangeOrders.test.ts', // releases 1,000 components
  'test/e2e/searchFilter.test.ts',
  'test/e2e/changeOrders.test.ts',
  'test/e2e/items.test.ts',
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
