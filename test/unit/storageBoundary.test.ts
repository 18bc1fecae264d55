import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * One storage boundary: only lib/store/ and the search table adapter (lib/search/table/) talk to
 * DynamoDB. Domain modules and handlers ask their store in domain words and get domain errors back.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const allowed = ['lib/store/', 'lib/search/table/'];

function sources(directory: string): string[] {
  return readdirSync(join(root, directory), { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the storage boundary', () => {
  const files = [...sources('lib'), ...sources('functions')].map((path) => relative(root, join(root, path)));

  it('finds the sources it checks', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files).toContain('lib/store/client.ts');
  });

  it('only lib/store and lib/search/table import the DynamoDB SDK or send to DynamoDB', () => {
    const offenders = files
      .filter((file) => !allowed.some((prefix) => file.startsWith(prefix)))
      .filter((file) => {
        const text = readFileSync(join(root, file), 'utf8');
        return /from '@aws-sdk\/(client-dynamodb|lib-dynamodb)'/.test(text) || /\.ddb\.send\(/.test(text);
      });
    expect(offenders).toEqual([]);
  });

  it('no module outside them decodes a cancelled transaction: the store throws the domain error its items declare', () => {
    const offenders = files
      .filter((file) => !allowed.some((prefix) => file.startsWith(prefix)))
      .filter((file) => /TransactionCancel|failedConditions|CancellationReasons|ConditionalCheckFailed/.test(readFileSync(join(root, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('no module outside them writes a DynamoDB expression or names the table: items are built in lib/store, in domain words', () => {
    const offenders = files
      .filter((file) => !allowed.some((prefix) => file.startsWith(prefix)))
      .filter((file) => /ConditionExpression|UpdateExpression|KeyConditionExpression|TableName|tableName|TransactionCancelledError/.test(readFileSync(join(root, file), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
