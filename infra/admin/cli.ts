/**
 * Operator CLI; every command prints one JSON line. `npm run -s admin -- bootstrap --org-name NAME --org-slug SLUG --library-name NAME
 * --library-slug SLUG --email EMAIL [--plan PLAN]` creates a tenant and prints one JSON line.
 *
 * Target table: the local stack's DynamoDB Local (DYNAMODB_PORT, TABLE_NAME, same defaults as npm start),
 * unless TABLE_NAME is set together with AWS credentials (AWS_PROFILE or AWS_ACCESS_KEY_ID) and no
 * DYNAMODB_ENDPOINT/DYNAMODB_PORT: then the deployed table in AWS_REGION.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { backupLines, prepareRestoreTarget, restoreLines } from '../../lib/store/backup.js';
import { DomainError } from '../../lib/errors.js';
import { cleanupAbandonedWrites } from '../../lib/items/cleanup.js';
import { bootstrapTenant } from '../../lib/orgs/bootstrap.js';
import { addMember, createCreationGrant, listTenants, setPlan, verifyDomain } from '../../lib/orgs/operator.js';
import { findLibraryIdBySlug } from '../../lib/store/library.js';
import { findOrganizationIdBySlug } from '../../lib/store/organization.js';
import { reindexLibrary } from '../../lib/search/table/reindex.js';
import { createStore, type Store } from '../../lib/store/client.js';
import { localConfig } from '../local/config.js';
import { findLocalFederation } from '../local/emulators.js';
import { samlProvidersFromEnv } from '../../lib/saml/providers.js';
import { resyncSamlFederation } from '../../lib/saml/resync.js';
import { scanOrganizations } from '../../lib/store/organization.js';
import { exportLibrary } from '../../lib/transfer/export.js';
import { writeExportDirectory, readImportDirectory } from '../../lib/transfer/files.js';
import { importLibrary, type ImportProgress } from '../../lib/transfer/import.js';
import { abortLibraryImport } from '../../lib/transfer/jobs.js';
import { getLibrary } from '../../lib/store/library.js';
import { getOrganization } from '../../lib/store/organization.js';
import { findUserIdByEmail } from '../../lib/store/user.js';
import { entitlementsOf } from '../../lib/orgs/plans.js';
import { nativePrincipalId } from '../../lib/model/attributeAccess.js';
import { resolve } from 'node:path';
import { sendDueDigests } from '../../lib/notifications/digest.js';
import { mailerFromEnv } from '../../lib/mail/ses.js';
import type { Mailer } from '../../lib/mail/mailer.js';
import { audited } from '../../lib/audit/operations.js';
import { auditCsv, auditJsonLines } from '../../lib/audit/export.js';
import { listAuditEntries, putAuditDigest, sealAuditChain, verifyAuditChain } from '../../lib/store/audit.js';
import { setAuditRetention } from '../../lib/store/organization.js';
import { writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { LocalBlobStorage, localFilesDirectory, S3BlobStorage, type BlobStorage } from '../../lib/files/blobStorage.js';

const usage = `Usage:
  npm run -s admin -- bootstrap --org-name NAME --org-slug SLUG --library-name NAME --library-slug SLUG --email EMAIL [--plan PLAN]
  npm run -s admin -- member add --org-slug SLUG --email EMAIL --role ROLE [--api-key-library SLUG] [--name NAME]
  npm run -s admin -- plan set --org-slug SLUG --plan free|team|enterprise
  npm run -s admin -- grant create --email EMAIL [--expires-days 30]
  npm run -s admin -- domain verify --org-slug SLUG --domain DOMAIN
  npm run -s admin -- cleanup-writes --org-slug SLUG --library-slug SLUG [--older-than-minutes 15]
  npm run -s admin -- reindex-search --org-slug SLUG --library-slug SLUG
  npm run -s admin -- tenants list
  npm run -s admin -- backup --out FILE.jsonl
  npm run -s admin -- restore --in FILE.jsonl [--table NAME]   (into an empty or new table)
  npm run -s admin -- export --org-slug SLUG --library-slug SLUG --out DIR   (uploaded files: FILES_BUCKET or FILES_DIR)
  npm run -s admin -- import --org-slug SLUG --library-slug SLUG --in DIR [--format json|csv] [--email EMAIL] [--legacy]   (--legacy: CSV only; sourcing.csv is a legacy cost sheet, every part and quote isLegacyImport)
  npm run -s admin -- import-abort --org-slug SLUG --library-slug SLUG [--force]
  npm run -s admin -- saml-resync [--scan]   (deployed: COGNITO_USER_POOL_ID and COGNITO_FEDERATED_CLIENT_ID from the stack outputs)
  npm run -s admin -- audit verify --org-slug SLUG [--from ISO] [--to ISO]   (exit 1 naming the first altered, removed or reordered entry)
  npm run -s admin -- audit export --org-slug SLUG --out FILE [--format jsonl|csv] [--from ISO] [--to ISO]
  npm run -s admin -- audit seal|digest --org-slug SLUG   (link pending entries now; keep today's head as a digest)
  npm run -s admin -- audit retention --org-slug SLUG --days N
  npm run -s admin -- digests   (mails the notification digests now, as the daily schedule does; without MAIL_FROM it prints them)`;

function targetEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const deployed = env.TABLE_NAME && (env.AWS_PROFILE || env.AWS_ACCESS_KEY_ID) && !env.DYNAMODB_ENDPOINT && !env.DYNAMODB_PORT;
  if (deployed || env.DYNAMODB_ENDPOINT) return env;
  const config = localConfig(env);
  return { ...env, DYNAMODB_ENDPOINT: `http://127.0.0.1:${config.dynamodbPort}`, TABLE_NAME: config.tableName };
}

function fail(message: string, status: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(status);
}

async function bootstrap(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        'org-name': { type: 'string' },
        'org-slug': { type: 'string' },
        'library-name': { type: 'string' },
        'library-slug': { type: 'string' },
        email: { type: 'string' },
        plan: { type: 'string' },
      },
      strict: true,
    }));
  } catch (error) {
    fail(`${(error as Error).message}\n${usage}`, 2);
  }
  const required = ['org-name', 'org-slug', 'library-name', 'library-slug', 'email'] as const;
  const missing = required.filter((name) => !values[name]);
  if (missing.length) fail(`Missing ${missing.map((m) => `--${m}`).join(', ')}\n${usage}`, 2);

  const store = createStore(targetEnv(process.env));
  try {
    const result = await bootstrapTenant(store, {
      orgName: values['org-name']!,
      orgSlug: values['org-slug']!,
      libraryName: values['library-name']!,
      librarySlug: values['library-slug']!,
      email: values.email!,
      ...(values.plan ? { plan: values.plan } : {}),
    });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (error) {
    if (error instanceof DomainError) fail(`bootstrap refused (${error.code}): ${error.message}`, 2);
    throw error;
  } finally {
    store.ddb.destroy();
  }
}

/** Runs a maintenance task on one library named by --org-slug and --library-slug; prints its JSON result. */
async function libraryTask(
  args: string[],
  extra: Record<string, { type: 'string' | 'boolean' }>,
  task: (store: Store, library: { organizationId: string; libraryId: string }, values: Record<string, string | undefined>) => Promise<unknown>,
): Promise<void> {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({ args, options: { 'org-slug': { type: 'string' }, 'library-slug': { type: 'string' }, ...extra }, strict: true }) as { values: Record<string, string | undefined> });
  } catch (error) {
    fail(`${(error as Error).message}\n${usage}`, 2);
  }
  if (!values['org-slug'] || !values['library-slug']) fail(`Missing --org-slug or --library-slug\n${usage}`, 2);
  const store = createStore(targetEnv(process.env));
  try {
    const organizationId = await findOrganizationIdBySlug(store, values['org-slug']);
    const libraryId = organizationId ? await findLibraryIdBySlug(store, organizationId, values['library-slug']) : undefined;
    if (!organizationId || !libraryId) fail(`No library @${values['org-slug']}/${values['library-slug']}`, 2);
    process.stdout.write(`${JSON.stringify(await task(store, { organizationId, libraryId }, values))}\n`);
  } catch (error) {
    if (error instanceof DomainError) fail(`${args[0] ?? 'command'} refused (${error.code}): ${error.message}${problemLines(error)}`, 2);
    throw error;
  } finally {
    store.ddb.destroy();
  }
}

/** Settles large item writes a crash left behind in one library (see lib/store/README.md). */
function cleanupWrites(args: string[]): Promise<void> {
  return libraryTask(args, { 'older-than-minutes': { type: 'string' } }, (store, library, values) => {
    const minutes = values['older-than-minutes'] === undefined ? 15 : Number(values['older-than-minutes']);
    if (!Number.isFinite(minutes) || minutes < 0) fail('--older-than-minutes must be a number of minutes', 2);
    return cleanupAbandonedWrites(store, library.organizationId, library.libraryId, minutes * 60_000);
  });
}

/** Rebuilds a library's search index from its components (after restoring data, or for data written before the index existed). */
function reindexSearch(args: string[]): Promise<void> {
  return libraryTask(args, {}, (store, library) => reindexLibrary(store, library));
}

/**
 * The file store export and import copy uploaded files from and to: FILES_BUCKET (deployed), FILES_DIR (a
 * local stack's folder), or PLM_DATA_DIR/files (npm start with a data directory). Undefined when none is
 * set: a library with files then cannot be exported, nor an export with files imported (FILES_UNAVAILABLE).
 */
function cliBlobStorage(): BlobStorage | undefined {
  const env = process.env;
  if (env.FILES_BUCKET) return new S3BlobStorage(env.FILES_BUCKET);
  const directory = env.FILES_DIR || (env.PLM_DATA_DIR ? localFilesDirectory(env.PLM_DATA_DIR, '') : undefined);
  // Only put, get and inspect are used: no URL is handed out, so the base URL and signing secret are unused.
  return directory ? new LocalBlobStorage(directory, 'http://127.0.0.1', 'unused') : undefined;
}

/** Every problem of a refused import, one per line (stderr). */
function problemLines(error: DomainError): string {
  const problems = (error.details.problems as { path: string; code: string; message: string }[] | undefined) ?? [];
  return problems.map((p) => `\n  ${p.path}: ${p.code}: ${p.message}`).join('');
}

/** Writes a library as files (library.json, components.json, components.csv, bom.csv, files/<id>; lib/transfer/format.ts). */
function exportCommand(args: string[]): Promise<void> {
  return libraryTask(args, { out: { type: 'string' } }, async (store, library, values) => {
    if (!values.out) fail(`Missing --out\n${usage}`, 2);
    const started = performance.now();
    const exported = await exportLibrary(store, library);
    const files = await writeExportDirectory(resolve(values.out), exported, cliBlobStorage());
    const durationMs = Math.round(performance.now() - started);
    return { directory: resolve(values.out), files, counts: exported.manifest.counts, durationMs, componentsPerSecond: Math.round(exported.components.length / Math.max(durationMs / 1000, 0.001)) };
  });
}

/**
 * Imports files into an empty library; progress lines (JSON) on stderr. History of a CSV import is recorded
 * as by --email's user (default: the library's creator).
 */
function importCommand(args: string[]): Promise<void> {
  return libraryTask(args, { in: { type: 'string' }, format: { type: 'string' }, email: { type: 'string' }, legacy: { type: 'boolean' } }, async (store, library, values) => {
    if (!values.in) fail(`Missing --in\n${usage}`, 2);
    if (values.format !== undefined && values.format !== 'json' && values.format !== 'csv') fail('--format is json or csv', 2);
    // parseArgs gives a boolean option as true (typed with the string options here).
    const legacy = (values.legacy as unknown) === true;
    if (legacy && values.format === 'json') fail('--legacy applies to a CSV import (sourcing.csv)', 2);
    const [organization, record] = await Promise.all([getOrganization(store, library.organizationId), getLibrary(store, library.organizationId, library.libraryId)]);
    const userId = values.email ? await findUserIdByEmail(store, values.email) : record?.createdBy;
    if (!organization || !userId) fail(values.email ? `No user ${values.email}` : 'The library has no creator to import as: pass --email', 2);
    const source = await readImportDirectory(resolve(values.in), values.format as 'json' | 'csv' | undefined, { legacy });
    let lastReport = 0;
    const report = (progress: ImportProgress) => {
      const now = performance.now();
      if (progress.phase === 'writing' && now - lastReport < 1000 && progress.written < progress.total) return;
      lastReport = now;
      process.stderr.write(`${JSON.stringify({ progress })}\n`);
    };
    const result = await importLibrary(store, library, source, {
      actor: { userId, principalId: nativePrincipalId, actingIntegrationId: null, at: new Date().toISOString() },
      entitlements: entitlementsOf(organization),
      blobs: cliBlobStorage(),
      onProgress: report,
    });
    return { ...result, componentsPerSecond: Math.round(result.components / Math.max(result.durationMs / 1000, 0.001)) };
  });
}

/**
 * Deletes what a crashed import wrote and reopens the library; an API import's job (if one holds the library)
 * ends FAILED (IMPORT_ABANDONED). A job whose worker is still heard from is refused unless --force.
 */
function importAbortCommand(args: string[]): Promise<void> {
  return libraryTask(args, { force: { type: 'boolean' } }, (store, library, values) => abortLibraryImport(store, library, { force: Boolean(values.force) }));
}

/**
 * An operator command with named options: the required ones must be present; prints the task's result as
 * one JSON line, or the refusal (its code and message) on stderr with exit status 2.
 */
async function operatorTask(
  name: string,
  args: string[],
  options: { required: string[]; optional?: string[] },
  task: (store: Store, values: Record<string, string>) => Promise<unknown>,
): Promise<void> {
  let values: Record<string, string | undefined>;
  try {
    const spec = Object.fromEntries([...options.required, ...(options.optional ?? [])].map((option) => [option, { type: 'string' as const }]));
    ({ values } = parseArgs({ args, options: spec, strict: true }) as { values: Record<string, string | undefined> });
  } catch (error) {
    fail(`${(error as Error).message}\n${usage}`, 2);
  }
  const missing = options.required.filter((option) => !values[option]);
  if (missing.length) fail(`Missing ${missing.map((m) => `--${m}`).join(', ')}\n${usage}`, 2);
  const store = createStore(targetEnv(process.env));
  try {
    // Every operator command is audited: the operator (OPERATOR, else the OS user) in the organization's chain.
    const organizationId = values['org-slug'] ? ((await findOrganizationIdBySlug(store, values['org-slug'])) ?? null) : null;
    const actor = { type: 'operator' as const, id: process.env.OPERATOR || userInfo().username };
    const summary = Object.keys(values)
      .filter((option) => values[option] !== undefined)
      .map((option) => `--${option}`)
      .join(' ');
    const result = await audited(store, { organizationId, actor, operation: `admin.${name.replace(/ /g, '.')}`, summary, targets: organizationId ? [organizationId] : [] }, () =>
      task(store, values as Record<string, string>),
    );
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (error) {
    if (error instanceof DomainError) fail(`${name} refused (${error.code}): ${error.message}`, 2);
    throw error;
  } finally {
    store.ddb.destroy();
  }
}

/**
 * Puts the user pool back in line with the table (lib/saml/resync.ts), as the deployment's trigger does:
 * lost identity providers registered again from the stored metadata, the federated client's list set to the
 * enabled ones. --scan also finds configurations saved before the metadata was stored (a Scan of the table).
 * Deployed: the pool and the federated client come from COGNITO_USER_POOL_ID and COGNITO_FEDERATED_CLIENT_ID
 * (the stack's UserPoolId and FederatedClientId outputs); local: from the running local stack.
 */
/** The daily digest run, by hand: SES when MAIL_FROM is set, otherwise the mails are printed. */
async function digests(): Promise<void> {
  const env = targetEnv(process.env);
  const printer: Mailer = { send: async (mail) => void process.stdout.write(`${JSON.stringify(mail)}\n`) };
  const mailer = env.MAIL_FROM ? mailerFromEnv(env) : printer;
  const store = createStore(env);
  try {
    const sent = await sendDueDigests({ store, mailer, appUrl: env.APP_URL || 'http://localhost:3000' });
    process.stderr.write(`${sent} digest(s) sent\n`);
  } finally {
    store.ddb.destroy();
  }
}

async function samlResync(args: string[]): Promise<void> {
  let scan = false;
  try {
    scan = Boolean(parseArgs({ args, options: { scan: { type: 'boolean' } }, strict: true }).values.scan);
  } catch (error) {
    fail(`${(error as Error).message}\n${usage}`, 2);
  }
  const env = targetEnv(process.env);
  let registryEnv: NodeJS.ProcessEnv = env;
  if (env.DYNAMODB_ENDPOINT && !env.COGNITO_FEDERATION_ENDPOINT) {
    const local = await findLocalFederation(localConfig(process.env));
    registryEnv = {
      ...env,
      COGNITO_USER_POOL_ID: local.userPoolId,
      COGNITO_FEDERATED_CLIENT_ID: local.federatedClientId,
      COGNITO_FEDERATION_ENDPOINT: local.endpoint,
      AWS_REGION: env.AWS_REGION || 'us-east-1',
    };
  }
  if (!registryEnv.COGNITO_USER_POOL_ID || !registryEnv.COGNITO_FEDERATED_CLIENT_ID)
    fail(`Set COGNITO_USER_POOL_ID and COGNITO_FEDERATED_CLIENT_ID (the stack's UserPoolId and FederatedClientId outputs)\n${usage}`, 2);
  const store = createStore(env);
  try {
    const extra = scan ? (await scanOrganizations(store)).filter((organization) => organization.saml).map((organization) => organization.id) : [];
    const result = await resyncSamlFederation(store, samlProvidersFromEnv(registryEnv), { extraOrganizationIds: extra });
    process.stdout.write(`${JSON.stringify(result)}\n`);
    if (result.organizations.some((organization) => organization.problem)) process.exitCode = 1;
  } finally {
    store.ddb.destroy();
  }
}

/** A connection that could not be made (nothing listening, unknown host), however the SDK wrapped it. */
function connectionFailure(error: unknown, depth = 0): { code: string; address?: string } | undefined {
  if (!error || typeof error !== 'object' || depth > 5) return undefined;
  const { code, address, port } = error as { code?: unknown; address?: unknown; port?: unknown };
  if (typeof code === 'string' && ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'].includes(code)) {
    return { code, address: typeof address === 'string' ? `${address}${typeof port === 'number' ? `:${port}` : ''}` : undefined };
  }
  const nested = [(error as { cause?: unknown }).cause, ...(error instanceof AggregateError ? error.errors : [])];
  for (const inner of nested) {
    const found = connectionFailure(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** The table endpoint could not be reached: one line naming it and what to set, exit status 2 (no stack trace). */
function unreachable(failure: { code: string; address?: string }): never {
  const env = targetEnv(process.env);
  const endpoint = env.DYNAMODB_ENDPOINT ?? `DynamoDB in ${env.AWS_REGION || 'the default region'}`;
  const at = failure.address ? ` (${failure.address}: ${failure.code})` : ` (${failure.code})`;
  fail(
    `Cannot reach ${endpoint}${at}. Start the local stack (npm start) or set DYNAMODB_PORT (or DYNAMODB_ENDPOINT) to where its DynamoDB Local listens; for a deployed table set TABLE_NAME and AWS credentials, without DYNAMODB_PORT/DYNAMODB_ENDPOINT.`,
    2,
  );
}

async function auditChainOfSlug(store: Store, slug: string): Promise<string> {
  const organizationId = await findOrganizationIdBySlug(store, slug);
  if (!organizationId) fail(`No organization with slug "${slug}"`, 2);
  return `ORG#${organizationId}#AUDIT`;
}

/** The audit log's operator commands (lib/store/README.md, "Audit log"). verify exits 1 when the chain does not hold. */
async function auditCommand(sub: string, args: string[]): Promise<void> {
  const range = (v: Record<string, string>) => ({ from: v.from, to: v.to });
  if (sub === 'verify') {
    let ok = true;
    await operatorTask('audit verify', args, { required: ['org-slug'], optional: ['from', 'to'] }, async (store, v) => {
      const result = await verifyAuditChain(store, await auditChainOfSlug(store, v['org-slug']!), range(v));
      ok = result.ok;
      return result;
    });
    if (!ok) process.exitCode = 1;
  } else if (sub === 'export') {
    await operatorTask('audit export', args, { required: ['org-slug', 'out'], optional: ['format', 'from', 'to'] }, async (store, v) => {
      const format = v.format ?? 'jsonl';
      if (format !== 'jsonl' && format !== 'csv') fail('--format is jsonl or csv', 2);
      const entries = await listAuditEntries(store, await auditChainOfSlug(store, v['org-slug']!), range(v));
      await writeFile(v.out!, format === 'csv' ? auditCsv(entries) : auditJsonLines(entries));
      return { out: v.out, format, entries: entries.length };
    });
  } else if (sub === 'seal') {
    await operatorTask('audit seal', args, { required: ['org-slug'] }, async (store, v) => ({ sealed: await sealAuditChain(store, await auditChainOfSlug(store, v['org-slug']!)) }));
  } else if (sub === 'digest') {
    await operatorTask('audit digest', args, { required: ['org-slug'] }, async (store, v) => ({ digest: await putAuditDigest(store, await auditChainOfSlug(store, v['org-slug']!)) }));
  } else {
    await operatorTask('audit retention', args, { required: ['org-slug', 'days'] }, async (store, v) => {
      const days = Number(v.days);
      if (!Number.isInteger(days) || days < 1 || days > 3650) fail('--days is a whole number of days from 1 to 3650', 2);
      const organizationId = await findOrganizationIdBySlug(store, v['org-slug']!);
      return { updated: organizationId ? await setAuditRetention(store, organizationId, days) : false, days };
    });
  }
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const subcommand = `${command} ${rest[0] ?? ''}`;
  if (subcommand === 'member add') {
    await operatorTask('member add', rest.slice(1), { required: ['org-slug', 'email', 'role'], optional: ['api-key-library', 'name'] }, (store, v) =>
      addMember(store, { orgSlug: v['org-slug']!, email: v.email!, role: v.role!, apiKeyLibrary: v['api-key-library'], name: v.name }),
    );
  } else if (subcommand === 'plan set') {
    await operatorTask('plan set', rest.slice(1), { required: ['org-slug', 'plan'] }, (store, v) => setPlan(store, v['org-slug']!, v.plan!));
  } else if (subcommand === 'grant create') {
    await operatorTask('grant create', rest.slice(1), { required: ['email'], optional: ['expires-days'] }, (store, v) =>
      createCreationGrant(store, v.email!, v['expires-days'] === undefined ? 30 : Number(v['expires-days'])),
    );
  } else if (subcommand === 'domain verify') {
    await operatorTask('domain verify', rest.slice(1), { required: ['org-slug', 'domain'] }, (store, v) => verifyDomain(store, v['org-slug']!, v.domain!));
  } else if (subcommand === 'tenants list') {
    await operatorTask('tenants list', rest.slice(1), { required: [] }, (store) => listTenants(store));
  } else if (command === 'backup') {
    await operatorTask('backup', rest, { required: ['out'] }, async (store, v) => {
      const out = createWriteStream(v.out!);
      let items = 0;
      for await (const line of backupLines(store)) {
        if (!out.write(`${line}\n`)) await once(out, 'drain');
        items += 1;
        if (items % 10_000 === 0) process.stderr.write(`backup: ${items} items\n`);
      }
      await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
      return { table: store.tableName, out: v.out, items };
    });
  } else if (command === 'restore') {
    await operatorTask('restore', rest, { required: ['in'], optional: ['table'] }, async (store, v) => {
      const target = v.table ? { ...store, tableName: v.table } : store;
      await prepareRestoreTarget(target);
      const lines = createInterface({ input: createReadStream(v.in!), crlfDelay: Infinity });
      return { table: target.tableName, in: v.in, items: await restoreLines(target, lines) };
    });
  } else if (command === 'audit' && ['verify', 'export', 'seal', 'digest', 'retention'].includes(rest[0] ?? '')) {
    await auditCommand(rest[0]!, rest.slice(1));
  } else if (command === 'bootstrap') await bootstrap(rest);
  else if (command === 'cleanup-writes') await cleanupWrites(rest);
  else if (command === 'reindex-search') await reindexSearch(rest);
  else if (command === 'export') await exportCommand(rest);
  else if (command === 'import') await importCommand(rest);
  else if (command === 'import-abort') await importAbortCommand(rest);
  else if (command === 'saml-resync') await samlResync(rest);
  else if (command === 'digests') await digests();
  else fail(command ? `Unknown command "${command}"\n${usage}` : usage, 2);
}

try {
  await main();
} catch (error) {
  const failure = connectionFailure(error);
  if (failure) unreachable(failure);
  throw error;
}
