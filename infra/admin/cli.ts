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
import { DomainError, InvalidInputError } from '../../lib/errors.js';
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
import { listAuditEntries, sealAuditChain, verifyAuditChain, type AuditActor, type AuditOperation } from '../../lib/store/audit.js';
import { auditDigestSinkFromEnv, keepAuditDigest } from '../../lib/audit/digest.js';
import { auditOperationOf, commandOf, type OperatorCommandName } from './commands.js';
import { randomUUID } from 'node:crypto';
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

/** The options of a command line (strict; a bad one prints the usage and exits 2 before anything runs). */
function optionsOf(args: string[], options: Record<string, { type: 'string' | 'boolean' }>): Record<string, string | boolean | undefined> {
  try {
    return parseArgs({ args, options, strict: true }).values as Record<string, string | boolean | undefined>;
  } catch (error) {
    fail(`${(error as Error).message}\n${usage}`, 2);
  }
}

const text = (values: Record<string, string | boolean | undefined>, option: string): string | undefined => {
  const value = values[option];
  return typeof value === 'string' ? value : undefined;
};

/** Refuses a command whose required options are missing (exit 2, before anything runs). */
function requireOptions(values: Record<string, string | boolean | undefined>, required: readonly string[]): void {
  const missing = required.filter((option) => values[option] === undefined || values[option] === '');
  if (missing.length) fail(`Missing ${missing.map((m) => `--${m}`).join(', ')}\n${usage}`, 2);
}

/** The operator: OPERATOR, else the OS user. */
const operatorActor = (): AuditActor => ({ type: 'operator', id: process.env.OPERATOR || userInfo().username });

/** Puts the operation in an organization's chain (with its retention) and names it among the targets. */
async function inOrganization(store: Store, operation: AuditOperation, organizationId: string | null | undefined): Promise<void> {
  if (!organizationId) return;
  const organization = await getOrganization(store, organizationId);
  operation.organizationId = organizationId;
  operation.retentionDays = organization?.auditRetentionDays;
  if (!operation.targets.includes(organizationId)) operation.targets.unshift(organizationId);
}

/**
 * Runs one operator command as an audited operation (lib/audit/operations.ts): actor the operator,
 * operation `admin.<command>`, the organization of --org-slug (when it names one) as its chain and target,
 * the options given as its summary (names only, never their values). A transaction the task commits
 * carries the entry; a read-only command, or one that writes without a transaction, gets it after the
 * task; a refusal or failure gets a DENIED or FAILED entry with its code. Prints the task's result as one
 * JSON line (nothing when it returns undefined); a refusal prints its code and message on stderr, exit 2.
 */
async function runCommand(
  name: OperatorCommandName,
  values: Record<string, string | boolean | undefined>,
  task: (store: Store, operation: AuditOperation) => Promise<unknown>,
  options: { organizationOfSlug?: boolean } = {},
): Promise<void> {
  const store = createStore(targetEnv(process.env));
  try {
    const summary = Object.keys(values)
      .filter((option) => values[option] !== undefined && values[option] !== false)
      .map((option) => `--${option}`)
      .join(' ');
    const result = await audited(store, { organizationId: null, actor: operatorActor(), operation: auditOperationOf(name), summary, targets: [] }, async (operation) => {
      const slug = text(values, 'org-slug');
      if (slug && options.organizationOfSlug !== false) await inOrganization(store, operation, await findOrganizationIdBySlug(store, slug));
      return task(store, operation);
    });
    if (result !== undefined) process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (error) {
    if (error instanceof DomainError) fail(`${name} refused (${error.code}): ${error.message}${problemLines(error)}`, 2);
    throw error;
  } finally {
    store.ddb.destroy();
  }
}

/** The organization of --org-slug (BAD_USER_INPUT when there is none). */
async function organizationOfSlug(store: Store, slug: string): Promise<string> {
  const organizationId = await findOrganizationIdBySlug(store, slug);
  if (!organizationId) throw new InvalidInputError(`No organization with slug "${slug}"`);
  return organizationId;
}

/**
 * Creates a tenant in one transaction. Its id is chosen first, so the audit entry lands in the new
 * organization's chain in that transaction; a refused bootstrap (a taken slug) is recorded in the operator's.
 */
async function bootstrap(args: string[]): Promise<void> {
  const values = optionsOf(args, {
    'org-name': { type: 'string' },
    'org-slug': { type: 'string' },
    'library-name': { type: 'string' },
    'library-slug': { type: 'string' },
    email: { type: 'string' },
    plan: { type: 'string' },
  });
  requireOptions(values, ['org-name', 'org-slug', 'library-name', 'library-slug', 'email']);
  const organizationId = randomUUID();
  // The slug is the new organization's: the entry is not filed under an organization that already holds it.
  const options = { organizationOfSlug: false };
  await runCommand(
    'bootstrap',
    values,
    async (store, operation) => {
      operation.organizationId = organizationId;
      operation.targets = [organizationId];
      try {
        return await bootstrapTenant(
          store,
          {
            orgName: text(values, 'org-name')!,
            orgSlug: text(values, 'org-slug')!,
            libraryName: text(values, 'library-name')!,
            librarySlug: text(values, 'library-slug')!,
            email: text(values, 'email')!,
            ...(text(values, 'plan') ? { plan: text(values, 'plan')! } : {}),
          },
          { organizationId },
        );
      } catch (error) {
        operation.organizationId = null;
        operation.targets = [];
        throw error;
      }
    },
    options,
  );
}

/** Runs a maintenance task on one library named by --org-slug and --library-slug, audited in its organization's chain. */
async function libraryTask(
  name: OperatorCommandName,
  args: string[],
  extra: Record<string, { type: 'string' | 'boolean' }>,
  task: (store: Store, library: { organizationId: string; libraryId: string }, values: Record<string, string | boolean | undefined>, operation: AuditOperation) => Promise<unknown>,
): Promise<void> {
  const values = optionsOf(args, { 'org-slug': { type: 'string' }, 'library-slug': { type: 'string' }, ...extra });
  requireOptions(values, ['org-slug', 'library-slug']);
  await runCommand(name, values, async (store, operation) => {
    const organizationId = operation.organizationId;
    const libraryId = organizationId ? await findLibraryIdBySlug(store, organizationId, text(values, 'library-slug')!) : undefined;
    if (!organizationId || !libraryId) throw new InvalidInputError(`No library @${text(values, 'org-slug')}/${text(values, 'library-slug')}`);
    operation.targets.push(libraryId);
    return task(store, { organizationId, libraryId }, values, operation);
  });
}

/** Settles large item writes a crash left behind in one library (see lib/store/README.md). */
function cleanupWrites(args: string[]): Promise<void> {
  return libraryTask('cleanup-writes', args, { 'older-than-minutes': { type: 'string' } }, (store, library, values) => {
    const minutes = values['older-than-minutes'] === undefined ? 15 : Number(values['older-than-minutes']);
    if (!Number.isFinite(minutes) || minutes < 0) throw new InvalidInputError('--older-than-minutes must be a number of minutes');
    return cleanupAbandonedWrites(store, library.organizationId, library.libraryId, minutes * 60_000);
  });
}

/** Rebuilds a library's search index from its components (after restoring data, or for data written before the index existed). */
function reindexSearch(args: string[]): Promise<void> {
  return libraryTask('reindex-search', args, {}, (store, library) => reindexLibrary(store, library));
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
  return libraryTask('export', args, { out: { type: 'string' } }, async (store, library, values) => {
    const out = text(values, 'out');
    if (!out) throw new InvalidInputError('Missing --out');
    const started = performance.now();
    const exported = await exportLibrary(store, library);
    const files = await writeExportDirectory(resolve(out), exported, cliBlobStorage());
    const durationMs = Math.round(performance.now() - started);
    return { directory: resolve(out), files, counts: exported.manifest.counts, durationMs, componentsPerSecond: Math.round(exported.components.length / Math.max(durationMs / 1000, 0.001)) };
  });
}

/**
 * Imports files into an empty library; progress lines (JSON) on stderr. History of a CSV import is recorded
 * as by --email's user (default: the library's creator). The audit entry lands in the import's commit
 * transaction (lib/store/libraryTransfer.ts, commitLibraryImport).
 */
function importCommand(args: string[]): Promise<void> {
  return libraryTask('import', args, { in: { type: 'string' }, format: { type: 'string' }, email: { type: 'string' }, legacy: { type: 'boolean' } }, async (store, library, values, operation) => {
    // Vendors it creates are written before (their own transactions): the entry belongs in the commit.
    operation.auditAtCommit = true;
    const input = text(values, 'in');
    const format = text(values, 'format');
    if (!input) throw new InvalidInputError('Missing --in');
    if (format !== undefined && format !== 'json' && format !== 'csv') throw new InvalidInputError('--format is json or csv');
    const legacy = values.legacy === true;
    if (legacy && format === 'json') throw new InvalidInputError('--legacy applies to a CSV import (sourcing.csv)');
    const email = text(values, 'email');
    const [organization, record] = await Promise.all([getOrganization(store, library.organizationId), getLibrary(store, library.organizationId, library.libraryId)]);
    const userId = email ? await findUserIdByEmail(store, email) : record?.createdBy;
    if (!organization || !userId) throw new InvalidInputError(email ? `No user ${email}` : 'The library has no creator to import as: pass --email');
    const source = await readImportDirectory(resolve(input), format as 'json' | 'csv' | undefined, { legacy });
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
  return libraryTask('import-abort', args, { force: { type: 'boolean' } }, (store, library, values) => abortLibraryImport(store, library, { force: values.force === true }));
}

/**
 * An operator command with named string options: the required ones must be present; the task's result
 * is printed as one JSON line (runCommand).
 */
async function operatorTask(
  name: OperatorCommandName,
  args: string[],
  options: { required: string[]; optional?: string[] },
  task: (store: Store, values: Record<string, string>, operation: AuditOperation) => Promise<unknown>,
): Promise<void> {
  const values = optionsOf(args, Object.fromEntries([...options.required, ...(options.optional ?? [])].map((option) => [option, { type: 'string' as const }])));
  requireOptions(values, options.required);
  await runCommand(name, values, (store, operation) => task(store, values as Record<string, string>, operation));
}

/** The daily digest run, by hand: SES when MAIL_FROM is set, otherwise the mails are printed. */
async function digests(args: string[]): Promise<void> {
  const values = optionsOf(args, {});
  const env = targetEnv(process.env);
  const printer: Mailer = { send: async (mail) => void process.stdout.write(`${JSON.stringify(mail)}\n`) };
  const mailer = env.MAIL_FROM ? mailerFromEnv(env) : printer;
  await runCommand('digests', values, async (store, operation) => {
    const sent = await sendDueDigests({ store, mailer, appUrl: env.APP_URL || 'http://localhost:3000' });
    operation.summary = `sent ${sent}`;
    process.stderr.write(`${sent} digest(s) sent\n`);
    return undefined;
  });
}

/**
 * Puts the user pool back in line with the table (lib/saml/resync.ts), as the deployment's trigger does:
 * lost identity providers registered again from the stored metadata, the federated client's list set to the
 * enabled ones. --scan also finds configurations saved before the metadata was stored (a Scan of the table).
 * Deployed: the pool and the federated client come from COGNITO_USER_POOL_ID and COGNITO_FEDERATED_CLIENT_ID
 * (the stack's UserPoolId and FederatedClientId outputs); local: from the running local stack. One audit
 * entry in the operator's chain, naming the organizations it went through.
 */
async function samlResync(args: string[]): Promise<void> {
  const values = optionsOf(args, { scan: { type: 'boolean' } });
  const env = targetEnv(process.env);
  let problem = false;
  await runCommand('saml-resync', values, async (store, operation) => {
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
      throw new InvalidInputError("Set COGNITO_USER_POOL_ID and COGNITO_FEDERATED_CLIENT_ID (the stack's UserPoolId and FederatedClientId outputs)");
    const extra = values.scan === true ? (await scanOrganizations(store)).filter((organization) => organization.saml).map((organization) => organization.id) : [];
    const result = await resyncSamlFederation(store, samlProvidersFromEnv(registryEnv), { extraOrganizationIds: extra });
    operation.targets = result.organizations.map((organization) => organization.organizationId).slice(0, 50);
    problem = result.organizations.some((organization) => organization.problem);
    return result;
  });
  if (problem) process.exitCode = 1;
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

const chainOf = (organizationId: string) => `ORG#${organizationId}#AUDIT`;

/** The audit log's operator commands (lib/store/README.md, "Audit log"). verify exits 1 when the chain does not hold. */
async function auditCommand(name: OperatorCommandName, args: string[]): Promise<void> {
  const range = (v: Record<string, string>) => ({ from: v.from, to: v.to });
  if (name === 'audit verify') {
    let ok = true;
    await operatorTask(name, args, { required: ['org-slug'], optional: ['from', 'to'] }, async (store, v) => {
      const result = await verifyAuditChain(store, chainOf(await organizationOfSlug(store, v['org-slug']!)), range(v));
      ok = result.ok;
      return result;
    });
    if (!ok) process.exitCode = 1;
  } else if (name === 'audit export') {
    await operatorTask(name, args, { required: ['org-slug', 'out'], optional: ['format', 'from', 'to'] }, async (store, v) => {
      const format = v.format ?? 'jsonl';
      if (format !== 'jsonl' && format !== 'csv') throw new InvalidInputError('--format is jsonl or csv');
      const entries = await listAuditEntries(store, chainOf(await organizationOfSlug(store, v['org-slug']!)), range(v));
      await writeFile(v.out!, format === 'csv' ? auditCsv(entries) : auditJsonLines(entries));
      return { out: v.out, format, entries: entries.length };
    });
  } else if (name === 'audit seal') {
    await operatorTask(name, args, { required: ['org-slug'] }, async (store, v) => ({ sealed: await sealAuditChain(store, chainOf(await organizationOfSlug(store, v['org-slug']!))) }));
  } else if (name === 'audit digest') {
    // Deployed with AUDIT_DIGEST_BUCKET (the stack's AuditDigestBucketName output), also the Object Lock copy.
    await operatorTask(name, args, { required: ['org-slug'] }, async (store, v) => ({
      digest: (await keepAuditDigest(store, await organizationOfSlug(store, v['org-slug']!), auditDigestSinkFromEnv())) ?? null,
    }));
  } else {
    await operatorTask(name, args, { required: ['org-slug', 'days'] }, async (store, v) => {
      const days = Number(v.days);
      if (!Number.isInteger(days) || days < 1 || days > 3650) throw new InvalidInputError('--days is a whole number of days from 1 to 3650');
      return { updated: await setAuditRetention(store, await organizationOfSlug(store, v['org-slug']!), days), days };
    });
  }
}

/** Backup: every item of the table as a typed JSON line. Its audit entry is written after the scan (not in the file). */
function backup(args: string[]): Promise<void> {
  return operatorTask('backup', args, { required: ['out'] }, async (store, v) => {
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
}

/** Restore into an empty or new table; the audit entry goes to the table the CLI targets (TABLE_NAME), not to --table. */
function restore(args: string[]): Promise<void> {
  return operatorTask('restore', args, { required: ['in'], optional: ['table'] }, async (store, v) => {
    const target = v.table ? { ...store, tableName: v.table } : store;
    await prepareRestoreTarget(target);
    const lines = createInterface({ input: createReadStream(v.in!), crlfDelay: Infinity });
    return { table: target.tableName, in: v.in, items: await restoreLines(target, lines) };
  });
}

/** Every command of the CLI (infra/admin/commands.ts): the type makes a new name without a handler a compile error. */
const handlers: Record<OperatorCommandName, (args: string[]) => Promise<void>> = {
  bootstrap,
  'member add': (args) =>
    operatorTask('member add', args, { required: ['org-slug', 'email', 'role'], optional: ['api-key-library', 'name'] }, (store, v) =>
      addMember(store, { orgSlug: v['org-slug']!, email: v.email!, role: v.role!, apiKeyLibrary: v['api-key-library'], name: v.name }),
    ),
  'plan set': (args) => operatorTask('plan set', args, { required: ['org-slug', 'plan'] }, (store, v) => setPlan(store, v['org-slug']!, v.plan!)),
  'grant create': (args) =>
    operatorTask('grant create', args, { required: ['email'], optional: ['expires-days'] }, (store, v) =>
      createCreationGrant(store, v.email!, v['expires-days'] === undefined ? 30 : Number(v['expires-days'])),
    ),
  'domain verify': (args) => operatorTask('domain verify', args, { required: ['org-slug', 'domain'] }, (store, v) => verifyDomain(store, v['org-slug']!, v.domain!)),
  'cleanup-writes': cleanupWrites,
  'reindex-search': reindexSearch,
  'tenants list': (args) => operatorTask('tenants list', args, { required: [] }, (store) => listTenants(store)),
  backup,
  restore,
  export: exportCommand,
  import: importCommand,
  'import-abort': importAbortCommand,
  'saml-resync': samlResync,
  'audit verify': (args) => auditCommand('audit verify', args),
  'audit export': (args) => auditCommand('audit export', args),
  'audit seal': (args) => auditCommand('audit seal', args),
  'audit digest': (args) => auditCommand('audit digest', args),
  'audit retention': (args) => auditCommand('audit retention', args),
  digests,
};

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const command = commandOf(argv);
  if (!command) fail(argv[0] ? `Unknown command "${argv.join(' ')}"\n${usage}` : usage, 2);
  await handlers[command.name](command.args);
}

try {
  await main();
} catch (error) {
  const failure = connectionFailure(error);
  if (failure) unreachable(failure);
  throw error;
}
