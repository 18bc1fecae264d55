/**
 * Cold start of the deployed artifact: each function built by infra/bundle.ts (the build the CDK stack
 * deploys), then, in a fresh Node process per run, the time to import its `index.mjs` and the time of the
 * first request after it (which loads the chunks that request needs). The requests need no reachable service
 * (DynamoDB points at a closed port, no credentials are sought): an unauthenticated GraphQL `{ __typename }`
 * (401: the schema, the server and the request context are built), an account sign-in without an allowed
 * Origin (403), a SCIM list without a token (401) and an empty webhook stream batch.
 *
 * `npm run bench:cold-start` runs it alone; `npm run bench` includes it. test/infra/bundles.test.ts uses
 * `serveFirstRequest` to prove every bundle loads and answers.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Metafile } from 'esbuild';
import { buildFunctionBundle, projectRoot } from '../../infra/bundle.js';

export const handlerNames = ['graphql', 'auth', 'scim', 'webhooks', 'jobs'] as const;
export type HandlerName = (typeof handlerNames)[number];

/** The targets of the hardening issue: what a cold Lambda loads and how long it takes. */
export const BUNDLE_TARGET_BYTES = 1_000_000;
export const MODULE_LOAD_TARGET_MS = 120;
/** Issue 25, item 4: the GraphQL function's import on a quiet machine. */
export const GRAPHQL_TARGET_BYTES = 900_000;
export const GRAPHQL_TARGET_MS = 200;

const apiEvent = (method: string, rawPath: string, headers: Record<string, string>, body?: string) => ({
  version: '2.0',
  routeKey: `${method} ${rawPath}`,
  rawPath,
  rawQueryString: '',
  headers: { host: 'api.example.com', 'x-forwarded-proto': 'https', ...headers },
  requestContext: {
    accountId: '123456789012',
    apiId: 'api',
    domainName: 'api.example.com',
    domainPrefix: 'api',
    http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '192.0.2.1', userAgent: 'cold-start' },
    requestId: 'cold-start',
    routeKey: `${method} ${rawPath}`,
    stage: '$default',
    time: '01/Jan/2026:00:00:00 +0000',
    timeEpoch: 1767225600000,
  },
  body,
  isBase64Encoded: false,
});

/** The first request each handler serves, and the answer it must give. */
export const firstRequests: Record<HandlerName, { event: unknown; expect: (result: Record<string, unknown>) => boolean; describe: string }> = {
  graphql: {
    event: apiEvent('POST', '/graphql', { 'content-type': 'application/json' }, JSON.stringify({ query: '{ __typename }' })),
    expect: (result) => result.statusCode === 401,
    describe: 'POST /graphql { __typename } without credentials: 401',
  },
  auth: {
    event: apiEvent('POST', '/auth/signin', { 'content-type': 'application/json' }, '{}'),
    expect: (result) => result.statusCode === 403 && String(result.body).includes('AUTH_ORIGIN_REJECTED'),
    describe: 'POST /auth/signin without an allowed Origin: 403',
  },
  scim: {
    event: apiEvent('GET', '/scim/v2/Users', {}),
    expect: (result) => result.statusCode === 401,
    describe: 'GET /scim/v2/Users without a token: 401',
  },
  webhooks: {
    event: { Records: [] },
    expect: (result) => result.delivered === 0,
    describe: 'an empty stream batch: { delivered: 0 }',
  },
  jobs: {
    event: { Records: [] },
    expect: (result) => Array.isArray(result.jobs) && result.jobs.length === 0,
    describe: 'an empty stream batch: { jobs: [] }',
  },
};

/** The environment of the fresh process: a Lambda-like configuration with nothing reachable behind it. */
const processEnv = {
  PATH: process.env.PATH ?? '',
  NODE_NO_WARNINGS: '1',
  TABLE_NAME: 'plm-cold-start',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'cold-start',
  AWS_SECRET_ACCESS_KEY: 'cold-start',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
  COGNITO_USER_POOL_ID: 'eu-west-1_coldstart',
  COGNITO_CLIENT_ID: 'cold-start',
  APP_URL: 'https://app.example.com',
  AUTH_ALLOWED_ORIGINS: 'https://app.example.com',
  MAIL_FROM: 'no-reply@example.com',
  PASSWORD_POLICY: 'nist',
  WEBHOOK_SIGNING_KEY: 'cold-start-signing-key-cold-start-signing-key',
};

/** Run by `node driver.mjs <index.mjs> <event.json>`: prints the import and first-request times and the result. */
const driverSource = `
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [entry, eventFile] = process.argv.slice(2);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const start = performance.now();
const module = await import(pathToFileURL(entry).href);
const imported = performance.now();
const result = await module.handler(event);
const served = performance.now();
process.stdout.write('\\n' + JSON.stringify({ importMs: imported - start, firstRequestMs: served - imported, result }) + '\\n');
`;

const run = promisify(execFile);

export interface FirstRequest {
  importMs: number;
  firstRequestMs: number;
  result: Record<string, unknown>;
}

/** Imports a built function in a fresh Node process and serves its first request. */
export async function serveFirstRequest(bundleDir: string, handler: HandlerName): Promise<FirstRequest> {
  const scratch = await mkdtemp(join(tmpdir(), 'plm-first-request-'));
  try {
    const driver = join(scratch, 'driver.mjs');
    const eventFile = join(scratch, 'event.json');
    await writeFile(driver, driverSource);
    await writeFile(eventFile, JSON.stringify(firstRequests[handler].event));
    const { stdout } = await run(process.execPath, [driver, join(bundleDir, 'index.mjs'), eventFile], { env: processEnv, maxBuffer: 16 * 1024 * 1024 });
    return JSON.parse(stdout.trim().split('\n').pop()!) as FirstRequest;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

export interface ColdStartResult {
  handler: HandlerName;
  /** index.mjs alone. */
  entryBytes: number;
  /** index.mjs and the chunks it imports statically: what Node reads and compiles at import. */
  importBytes: number;
  /** Every file of the function's code (entry and chunks). */
  totalBytes: number;
  files: number;
  /** Medians over the runs, each in a fresh process. */
  importMs: number;
  firstRequestMs: number;
  loadAndFirstRequestMs: number;
  answered: boolean;
}

async function directoryBytes(directory: string): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    bytes += (await stat(join(entry.parentPath, entry.name))).size;
    files += 1;
  }
  return { bytes, files };
}

/** Output files reachable from index.mjs by static imports (the chunks behind dynamic imports excluded). */
export function loadedAtImport(metafile: Metafile): string[] {
  const entry = Object.keys(metafile.outputs).find((output) => output.endsWith('/index.mjs'))!;
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length) {
    const output = pending.pop()!;
    if (seen.has(output)) continue;
    seen.add(output);
    for (const imported of metafile.outputs[output]!.imports) if (imported.kind === 'import-statement' && !imported.external) pending.push(imported.path);
  }
  return [...seen];
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Builds every function as the stack does and measures each `runs` times in fresh processes. */
export async function measureColdStart(runs = 5): Promise<ColdStartResult[]> {
  const directory = await mkdtemp(join(tmpdir(), 'plm-bundles-'));
  const results: ColdStartResult[] = [];
  for (const handler of handlerNames) {
    const bundleDir = join(directory, handler);
    const metafile = await buildFunctionBundle(handler, bundleDir);
    const samples: FirstRequest[] = [];
    for (let index = 0; index < runs; index += 1) samples.push(await serveFirstRequest(bundleDir, handler));
    const { bytes, files } = await directoryBytes(bundleDir);
    results.push({
      handler,
      entryBytes: (await stat(join(bundleDir, 'index.mjs'))).size,
      importBytes: loadedAtImport(metafile).reduce((sum, output) => sum + metafile.outputs[output]!.bytes, 0),
      totalBytes: bytes,
      files,
      importMs: median(samples.map((sample) => sample.importMs)),
      firstRequestMs: median(samples.map((sample) => sample.firstRequestMs)),
      loadAndFirstRequestMs: median(samples.map((sample) => sample.importMs + sample.firstRequestMs)),
      answered: samples.every((sample) => firstRequests[handler].expect(sample.result)),
    });
  }
  await rm(directory, { recursive: true, force: true });
  return results;
}

const ms = (value: number) => value.toFixed(1);

/**
 * The files a built function loads at import, read from the files themselves: index.mjs and every chunk it
 * imports statically (`import ... from "./chunks/..."`, `import "./..."`), not those behind `import(...)`.
 * The same set as loadedAtImport's, for a build whose metafile is not at hand (a baseline's).
 */
export async function bytesLoadedAtImport(bundleDir: string): Promise<number> {
  const seen = new Set<string>();
  const pending = [join(bundleDir, 'index.mjs')];
  let bytes = 0;
  while (pending.length) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = await readFile(file, 'utf8');
    bytes += Buffer.byteLength(source);
    for (const match of source.matchAll(/(?:\bfrom\s*|\bimport\s*)["'](\.{1,2}\/[^"']+\.mjs)["']/g)) pending.push(join(file, '..', match[1]!));
  }
  return bytes;
}

/**
 * A git ref's code beside this checkout: its tree extracted (git archive) into a temporary directory that
 * shares this checkout's node_modules. Read-only for the ref: nothing is checked out here.
 */
export async function checkoutRef(ref: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'plm-baseline-'));
  await run('bash', ['-c', `git archive --format=tar ${JSON.stringify(ref)} | tar -x -C ${JSON.stringify(directory)}`], { cwd: projectRoot, maxBuffer: 64 * 1024 * 1024 });
  await symlink(await realpath(join(projectRoot, 'node_modules')), join(directory, 'node_modules'));
  return directory;
}

export interface SideBySide {
  handler: HandlerName;
  baseline: { ref: string; importBytes: number; importMs: number; loadAndFirstRequestMs: number };
  current: { importBytes: number; importMs: number; loadAndFirstRequestMs: number };
  /** Median over the pairs of current / baseline import time (each pair run back to back). */
  importRatio: number;
  runs: number;
}

/**
 * The function as `ref` builds it (with that ref's own infra/bundle.ts) against this checkout's build, in
 * fresh Node processes alternating between the two (the order swapped every pair), so that the machine's
 * load weighs on both alike.
 */
export async function compareColdStart(ref: string, handler: HandlerName = 'graphql', runs = 15): Promise<SideBySide> {
  const baselineSource = await checkoutRef(ref);
  const directory = await mkdtemp(join(tmpdir(), 'plm-bundles-'));
  const baselineDir = join(directory, 'baseline');
  const currentDir = join(directory, 'current');
  await run(process.execPath, ['--import', 'tsx', 'infra/bundle.ts', handler, baselineDir], { cwd: baselineSource, env: { ...process.env, NODE_NO_WARNINGS: '1' } });
  await buildFunctionBundle(handler, currentDir);
  const baseline: FirstRequest[] = [];
  const current: FirstRequest[] = [];
  for (let index = 0; index < runs; index += 1) {
    if (index % 2 === 0) {
      baseline.push(await serveFirstRequest(baselineDir, handler));
      current.push(await serveFirstRequest(currentDir, handler));
    } else {
      current.push(await serveFirstRequest(currentDir, handler));
      baseline.push(await serveFirstRequest(baselineDir, handler));
    }
  }
  for (const sample of [...baseline, ...current]) if (!firstRequests[handler].expect(sample.result)) throw new Error(`${handler}: wrong first answer ${JSON.stringify(sample.result)}`);
  const summary = (samples: FirstRequest[]) => ({ importMs: median(samples.map((s) => s.importMs)), loadAndFirstRequestMs: median(samples.map((s) => s.importMs + s.firstRequestMs)) });
  const [baselineImportBytes, currentImportBytes] = [await bytesLoadedAtImport(baselineDir), await bytesLoadedAtImport(currentDir)];
  await Promise.all([directory, baselineSource].map((path) => rm(path, { recursive: true, force: true })));
  return {
    handler,
    baseline: { ref, importBytes: baselineImportBytes, ...summary(baseline) },
    current: { importBytes: currentImportBytes, ...summary(current) },
    importRatio: median(current.map((sample, index) => sample.importMs / baseline[index]!.importMs)),
    runs,
  };
}

export function renderSideBySide(result: SideBySide): string {
  const row = (name: string, figures: { importBytes: number; importMs: number; loadAndFirstRequestMs: number }) =>
    `${name.padEnd(22)}  ${String(figures.importBytes).padStart(15)}  ${ms(figures.importMs).padStart(9)}  ${ms(figures.loadAndFirstRequestMs).padStart(23)}`;
  const within = result.current.importBytes <= GRAPHQL_TARGET_BYTES && result.current.importMs <= GRAPHQL_TARGET_MS;
  return [
    `[${result.handler}: ${result.baseline.ref} and this checkout side by side, ${result.runs} fresh processes each, alternating; medians]`,
    `${'build'.padEnd(22)}  bytes at import  import ms  load + first request ms`,
    row(`${result.baseline.ref} (baseline)`, result.baseline),
    row('this checkout', result.current),
    `import time, this checkout / baseline (median of the pairs): ${result.importRatio.toFixed(2)}x; target: <= ${GRAPHQL_TARGET_BYTES} B and <= ${GRAPHQL_TARGET_MS} ms at import on a quiet machine: ${within ? 'within' : 'OVER (reported, not failed)'}`,
  ].join('\n');
}

export function renderColdStart(results: ColdStartResult[]): string {
  const lines = [
    `handler   entry bytes  bytes at import  all bytes (files)  import ms  first request ms  load + first request ms  target: < ${BUNDLE_TARGET_BYTES} B and < ${MODULE_LOAD_TARGET_MS} ms at import (graphql: <= ${GRAPHQL_TARGET_BYTES} B, <= ${GRAPHQL_TARGET_MS} ms)`,
  ];
  for (const result of results) {
    const within =
      result.handler === 'graphql'
        ? result.importBytes <= GRAPHQL_TARGET_BYTES && result.importMs <= GRAPHQL_TARGET_MS
        : result.importBytes < BUNDLE_TARGET_BYTES && result.importMs < MODULE_LOAD_TARGET_MS;
    const verdict = !result.answered ? 'WRONG ANSWER' : within ? 'within' : 'OVER (reported, not failed)';
    lines.push(
      `${result.handler.padEnd(8)}  ${String(result.entryBytes).padStart(11)}  ${String(result.importBytes).padStart(15)}  ${`${result.totalBytes} (${result.files})`.padStart(17)}  ${ms(result.importMs).padStart(9)}  ${ms(result.firstRequestMs).padStart(16)}  ${ms(result.loadAndFirstRequestMs).padStart(23)}  ${verdict}`,
    );
  }
  lines.push('First requests: ' + handlerNames.map((name) => `${name}: ${firstRequests[name].describe}`).join('; ') + '.');
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const runs = Number(process.env.BENCH_COLD_START_RUNS ?? 5);
  const results = await measureColdStart(runs);
  console.log(`[cold start: each function as the stack builds it (infra/bundle.ts), median of ${runs} fresh Node ${process.version} processes]`);
  console.log(renderColdStart(results));
  const baselineRef = process.env.BENCH_COLD_START_BASELINE;
  const sideBySide = baselineRef ? await compareColdStart(baselineRef, 'graphql', Number(process.env.BENCH_COLD_START_PAIRS ?? 15)) : undefined;
  if (sideBySide) console.log(`\n${renderSideBySide(sideBySide)}`);
  if (process.argv.includes('--json')) console.log(JSON.stringify(sideBySide ? { results, sideBySide } : results, null, 2));
  process.exitCode = results.every((result) => result.answered) ? 0 : 1;
}
