import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildFunctionBundle } from '../../infra/bundle.js';
import { firstRequests, handlerNames, loadedAtImport, serveFirstRequest, type HandlerName } from '../bench/coldStart.js';

// The local stack runs the TypeScript sources; this builds each function as the CDK stack deploys it
// (infra/bundle.ts) and runs the built code in a fresh Node process, so a broken chunk fails here.

const directory = mkdtempSync(join(tmpdir(), 'plm-bundle-test-'));
const metafiles = {} as Record<HandlerName, Metafile>;

beforeAll(async () => {
  for (const name of handlerNames) metafiles[name] = await buildFunctionBundle(name, join(directory, name));
}, 120_000);

/** Source files the entry loads at import: everything reachable from index.mjs by static imports. */
const inputsLoadedAtImport = (metafile: Metafile) => loadedAtImport(metafile).flatMap((output) => Object.keys(metafile.outputs[output]!.inputs));

const packageOf = (input: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];

/** Loaded on first use only (dynamic imports), in every function. */
const deferred = [
  '@aws-sdk/client-s3',
  '@aws-sdk/s3-request-presigner',
  '@aws-sdk/client-ses',
  '@aws-sdk/client-cognito-identity-provider',
  '@aws-sdk/client-secrets-manager',
  'aws-jwt-verify',
  'yaml',
  'fast-xml-parser',
  'csv-parse',
  'csv-stringify',
];

describe.each(handlerNames)('the %s bundle', (name) => {
  it('is split: an entry and chunks loaded on first use', () => {
    const files = readdirSync(join(directory, name), { recursive: true }).map(String);
    expect(files).toContain('index.mjs');
    expect(files.filter((file) => file.startsWith('chunks/') && file.endsWith('.mjs')).length).toBeGreaterThan(0);
  });

  it('loads none of the deferred modules at import', () => {
    const loaded = new Set(inputsLoadedAtImport(metafiles[name]).map(packageOf));
    expect(deferred.filter((pkg) => loaded.has(pkg))).toEqual([]);
  });

  it("carries zod's English messages only (`import * as z from 'zod'` lets esbuild drop the other locales)", () => {
    const locales = Object.values(metafiles[name].outputs)
      .flatMap((output) => Object.keys(output.inputs))
      .flatMap((input) => /zod\/v4\/locales\/([\w-]+)\.js$/.exec(input)?.[1] ?? []);
    expect(new Set(locales)).toEqual(new Set(['en']));
  });

  it(`loads in a fresh Node process and answers its first request (${firstRequests[name].describe})`, async () => {
    const { result } = await serveFirstRequest(join(directory, name), name);
    expect(firstRequests[name].expect(result), JSON.stringify(result)).toBe(true);
  }, 60_000);
});

describe('the graphql bundle at import (issue 25: at most 900 KB loaded at import)', () => {
  // The schema and the server are built at import; the credential check, the caller's access, lib/store's item
  // code with zod, and file storage load with the first request that needs them.
  const lazy = ['node_modules/zod/', 'lib/store/items.ts', 'lib/store/account.ts', 'lib/access/requestContext.ts', 'lib/people/sessions.ts', 'lib/files/blobStorage.ts'];

  it('loads neither zod, lib/store item code, the credential check nor file storage', () => {
    const loaded = inputsLoadedAtImport(metafiles.graphql);
    expect(lazy.filter((path) => loaded.some((input) => input.includes(path)))).toEqual([]);
  });
});
