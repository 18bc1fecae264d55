import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { auditOperationOf, operatorCommandNames, type OperatorCommandName } from '../../infra/admin/commands.js';
import { keepAllAuditDigests } from '../../lib/audit/digest.js';
import { audited } from '../../lib/audit/operations.js';
import { transactWrite } from '../../lib/store/items.js';
import { listAuditEntries, type AuditEntryRecord } from '../../lib/store/audit.js';
import { createStore } from '../../lib/store/client.js';
import { adminCli } from '../support/admin.js';

const stack = inject('stack');
const stamp = randomUUID().slice(0, 8);
/** A table of its own (the walk restores into it first), and an operator name of its own. */
const table = `plm-opaudit-${stamp}`;
const operator = `op-${stamp}`;
const slug = `opaudit-${stamp}`;
const email = `owner-${stamp}@opaudit.test`;
const memberEmail = `member-${stamp}@opaudit.test`;
const domain = `opaudit-${stamp}.test`;

const env = { OPERATOR: operator, PORT: stack.env.PORT!, COGNITO_PORT: stack.env.COGNITO_PORT!, DYNAMODB_PORT: stack.env.DYNAMODB_PORT! };
/** Runs a command; a refusal (exit status 1 or 2) is an outcome too: it must be audited like a success. */
const admin = (args: string[]) =>
  adminCli(args, { table, env }).then(
    (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );

function store() {
  return createStore({ DYNAMODB_ENDPOINT: stack.dynamodbEndpoint, TABLE_NAME: table, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' });
}

describe('operator commands are audited (npm run admin)', () => {
  let dir: string;
  let organizationId: string;
  const outcomes = new Map<OperatorCommandName, { code: number; stdout: string; stderr: string }>();
  let orgEntries: AuditEntryRecord[] = [];
  let operatorEntries: AuditEntryRecord[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plm-opaudit-'));
    await writeFile(join(dir, 'empty.jsonl'), '');
    const lib = ['--org-slug', slug, '--library-slug', 'main'];
    // Every command, in an order that lets each do its work: restore creates the table, bootstrap the tenant.
    // The record type makes a command added to infra/admin/commands.ts without a case here a compile error.
    const cases: Record<OperatorCommandName, string[]> = {
      restore: ['restore', '--in', join(dir, 'empty.jsonl')],
      bootstrap: ['bootstrap', '--org-name', 'Ops audit', '--org-slug', slug, '--library-name', 'Main', '--library-slug', 'main', '--email', email],
      'member add': ['member', 'add', '--org-slug', slug, '--email', memberEmail, '--role', 'EDITOR'],
      'plan set': ['plan', 'set', '--org-slug', slug, '--plan', 'team'],
      'grant create': ['grant', 'create', '--email', memberEmail],
      'domain verify': ['domain', 'verify', '--org-slug', slug, '--domain', domain],
      'cleanup-writes': ['cleanup-writes', ...lib],
      'reindex-search': ['reindex-search', ...lib],
      'tenants list': ['tenants', 'list'],
      backup: ['backup', '--out', join(dir, 'backup.jsonl')],
      export: ['export', ...lib, '--out', join(dir, 'export')],
      import: ['import', ...lib, '--in', join(dir, 'export')],
      'import-abort': ['import-abort', ...lib],
      'saml-resync': ['saml-resync'],
      'audit seal': ['audit', 'seal', '--org-slug', slug],
      'audit verify': ['audit', 'verify', '--org-slug', slug],
      'audit export': ['audit', 'export', '--org-slug', slug, '--out', join(dir, 'audit.jsonl')],
      'audit digest': ['audit', 'digest', '--org-slug', slug],
      'audit retention': ['audit', 'retention', '--org-slug', slug, '--days', '500'],
      digests: ['digests'],
      'mails failed': ['mails', 'failed'],
      'mails resend': ['mails', 'resend'],
      'mails backfill': ['mails', 'backfill'],
    };
    for (const name of Object.keys(cases) as OperatorCommandName[]) {
      const outcome = await admin(cases[name]);
      outcomes.set(name, outcome);
      if (name === 'bootstrap') organizationId = JSON.parse(outcome.stdout || '{}').organization?.id ?? expect.fail(`bootstrap: ${outcome.stderr}`);
    }
    const s = store();
    [orgEntries, operatorEntries] = await Promise.all([listAuditEntries(s, `ORG#${organizationId}#AUDIT`), listAuditEntries(s, `USER#${operator}#AUDIT`)]);
    s.ddb.destroy();
  }, 300_000);

  it('every command of the CLI writes an entry, actor the operator', () => {
    expect(operatorCommandNames.length).toBeGreaterThanOrEqual(20);
    const entries = [...orgEntries, ...operatorEntries];
    const missing = operatorCommandNames.filter((name) => !entries.some((entry) => entry.operation === auditOperationOf(name)));
    expect(missing).toEqual([]);
    for (const entry of entries) expect(entry).toMatchObject({ actorType: 'operator', actorId: operator });
    // The commands of an organization are in its chain; the others in the operator's.
    const inOrganization = new Set(orgEntries.map((entry) => entry.operation));
    for (const name of ['bootstrap', 'member add', 'plan set', 'domain verify', 'cleanup-writes', 'reindex-search', 'export', 'import', 'import-abort', 'audit verify', 'audit retention'] as const) {
      expect(inOrganization.has(auditOperationOf(name)), name).toBe(true);
    }
    const withoutOrganization = new Set(operatorEntries.map((entry) => entry.operation));
    for (const name of ['restore', 'grant create', 'tenants list', 'backup', 'saml-resync', 'digests'] as const) expect(withoutOrganization.has(auditOperationOf(name)), name).toBe(true);
  });

  it('records how each ended, with option names and never their values', () => {
    const entries = [...orgEntries, ...operatorEntries];
    const of = (name: OperatorCommandName) => entries.filter((entry) => entry.operation === auditOperationOf(name));
    for (const name of operatorCommandNames) {
      const outcome = outcomes.get(name)!;
      const results = of(name).map((entry) => entry.result);
      // A command that exited 0 succeeded; one refused (exit 2) is not recorded as a success. audit verify and
      // saml-resync exit 1 for a finding, which is a successful run.
      if (outcome.code === 0) expect(results, `${name}: ${outcome.stderr}`).toEqual(['SUCCESS']);
      if (outcome.code === 2) expect(results.at(-1), `${name}: ${outcome.stderr}`).not.toBe('SUCCESS');
    }
    // The walk's commands that change something did their work.
    for (const name of ['restore', 'bootstrap', 'member add', 'plan set', 'grant create', 'domain verify', 'backup', 'export', 'audit retention'] as const) {
      expect(outcomes.get(name)!.code, `${name}: ${outcomes.get(name)!.stderr}`).toBe(0);
    }
    expect(of('bootstrap')[0]).toMatchObject({ organizationId, targets: [organizationId], result: 'SUCCESS' });
    expect(of('member add')[0]!.summary).toBe('--org-slug --email --role');
    expect(of('export')[0]!.targets).toHaveLength(2);
    const text = JSON.stringify(entries);
    for (const value of [memberEmail, email, domain, slug, dir]) expect(text).not.toContain(value);
  });

  it('audit digest keeps the head as the digest item of the day', async () => {
    const digest = JSON.parse(outcomes.get('audit digest')!.stdout).digest;
    expect(digest).toMatchObject({ organizationId, day: new Date().toISOString().slice(0, 10) });
    const s = store();
    const item = await s.ddb.send(new GetCommand({ TableName: table, Key: { PK: `ORG#${organizationId}#AUDIT`, SK: `DIGEST#${digest.day}` } }));
    s.ddb.destroy();
    expect(item.Item).toMatchObject({ seq: digest.seq, hash: digest.hash });
    // Run again the same day: the day's digest is the one kept.
    const again = JSON.parse((await admin(['audit', 'digest', '--org-slug', slug])).stdout).digest;
    expect(again).toMatchObject({ seq: digest.seq, hash: digest.hash });
  });

  it("the daily schedule's run keeps every organization's digest in the sink under audit-digests/<org>/<day>.json, as the day's item says", async () => {
    const objects = new Map<string, string>();
    const s = store();
    const kept = await keepAllAuditDigests(s, { put: async (key, body) => void objects.set(key, body) });
    const day = new Date().toISOString().slice(0, 10);
    const item = await s.ddb.send(new GetCommand({ TableName: table, Key: { PK: `ORG#${organizationId}#AUDIT`, SK: `DIGEST#${day}` } }));
    s.ddb.destroy();
    expect(kept.map((digest) => digest.organizationId)).toEqual([organizationId]);
    expect(JSON.parse(objects.get(`audit-digests/${organizationId}/${day}.json`)!)).toEqual({
      organizationId,
      day,
      chain: `ORG#${organizationId}#AUDIT`,
      seq: item.Item!.seq,
      hash: item.Item!.hash,
      at: item.Item!.at,
    });
  });

  it('a multi-step write waiting for its commit (the CLI import): an earlier transaction carries no entry, the commit does', async () => {
    const s = store();
    const what = { organizationId, actor: { type: 'operator' as const, id: operator }, operation: 'admin.commit-probe', targets: [], summary: '' };
    const key = (sk: string) => ({ PK: `PROBE#${stamp}`, SK: sk });
    await audited(s, what, async (operation) => {
      operation.auditAtCommit = true;
      await transactWrite(s, [{ Put: { Item: key('step') } }]);
      expect(operation.written).toBeFalsy();
      await transactWrite(s, [{ Put: { Item: key('commit') } }], { commit: true });
      expect(operation.written).toBe(true);
    });
    const entries = (await listAuditEntries(s, `ORG#${organizationId}#AUDIT`)).filter((entry) => entry.operation === 'admin.commit-probe');
    s.ddb.destroy();
    expect(entries.map((entry) => entry.result)).toEqual(['SUCCESS']);
  });

  it('a refused command is audited: a bootstrap of a taken slug FAILED in the operator chain, a bad option inside a command with its code', async () => {
    const taken = await admin(['bootstrap', '--org-name', 'Again', '--org-slug', slug, '--library-name', 'Main', '--library-slug', 'main', '--email', email]);
    expect(taken.code).toBe(2);
    const badFormat = await admin(['import', '--org-slug', slug, '--library-slug', 'main', '--in', dir, '--format', 'xml']);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toContain('BAD_USER_INPUT');
    const s = store();
    const [org, own] = await Promise.all([listAuditEntries(s, `ORG#${organizationId}#AUDIT`), listAuditEntries(s, `USER#${operator}#AUDIT`)]);
    s.ddb.destroy();
    expect(own.filter((entry) => entry.operation === 'admin.bootstrap').map((entry) => [entry.result, entry.errorCode])).toEqual([['FAILED', 'ALREADY_EXISTS']]);
    expect(org.filter((entry) => entry.operation === 'admin.import').at(-1)).toMatchObject({ result: 'FAILED', errorCode: 'BAD_USER_INPUT' });
  }, 60_000);
});
