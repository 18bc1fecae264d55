import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generate } from '../../schema/codegen.js';

describe('generated GraphQL files', () => {
  it('match the SDL in schema/ (run npm run codegen after editing it)', async () => {
    const outputs = await generate();
    for (const [name, content] of Object.entries(outputs)) {
      expect(await readFile(new URL(`../../functions/graphql/generated/${name}`, import.meta.url), 'utf8'), name).toBe(content);
    }
  });
});
