import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getNamedType, isNonNullType, isObjectType, type GraphQLInputType, type GraphQLSchema } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildSchema, listOperations } from '../../functions/graphql/schema.js';
import { listAuditEntries, sealAuditChain, verifyAuditChain, type AuditEntryRecord } from '../../lib/store/audit.js';
import { gqlOk, graphql, newTenant, stack, testStore, type Tenant } from '../support/api.js';
import { adminCli } from '../support/admin.js';
import { minimalValue } from '../support/schemaValues.js';
import { memberWithRole, type Member } from './accessHelpers.js';

/** A distinctive value every String argument carries: no audit entry may hold it. */
const marker = `AUDIT-LEAK-${randomUUID().slice(0, 8)}`;

/** A value GraphQL accepts for the type (required input fields only), so the mutation reaches its resolver; strings carry the marker. */
const valueOf = (type: GraphQLInputType) => minimalValue(type, { text: () => marker, dateTime: '2024-01-01T00:00:00.000Z' });

/** A mutation document for an operation path (`organization.teams.create`) with every required argument. */
function mutationOf(schema: GraphQLSchema, path: string): { query: string; variables: Record<string, unknown> } {
  const names = path.split('.');
  let type = schema.getMutationType()!;
  const variables: Record<string, unknown> = {};
  const declarations: string[] = [];
  let body = '';
  const fieldsOnPath = names.map((name) => {
    const field = type.getFields()[name]!;
    const target = getNamedType(field.type);
    if (isObjectType(target)) type = target;
    return field;
  });
  const last = fieldsOnPath[fieldsOnPath.length - 1]!;
  const args = last.args
    .filter((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined)
    .map((arg) => {
      variables[arg.name] = valueOf(arg.type);
      declarations.push(`$${arg.name}: ${arg.type.toString()}`);
      return `${arg.name}: $${arg.name}`;
    });
  const selection = isObjectType(getNamedType(last.type)) ? ' { __typename }' : '';
  body = `${last.name}${args.length ? `(${args.join(', ')})` : ''}${selection}`;
  for (const name of names.slice(0, -1).reverse()) body = `${name} { ${body} }`;
  return { query: `mutation${declarations.length ? `(${declarations.join(', ')})` : ''} { ${body} }`, variables };
}

const chainOf = (tenant: Tenant) => `ORG#${tenant.organization.id}#AUDIT`;
const entriesOf = (tenant: Tenant) => listAuditEntries(testStore(), chainOf(tenant));

describe('audit log', () => {
  let tenant: Tenant;
  let viewer: Member;
  const schema = buildSchema();

  beforeAll(async () => {
    tenant = await newTenant();
    viewer = await memberWithRole(tenant, 'VIEWER');
  });

  it('every mutation of the schema writes an entry, refusals DENIED without the values they were given', async () => {
    const mutations = listOperations(schema).filter((op) => op.operation === 'mutation');
    expect(mutations.length).toBeGreaterThan(80);
    for (const { path } of mutations) {
      const { query, variables } = mutationOf(schema, path);
      const response = await graphql(query, variables, { ...viewer.headers, 'user-agent': 'audit-walker/1' });
      // A document GraphQL refuses before execution would prove nothing: each must reach its resolver.
      expect(
        (response.body.errors ?? []).every((e) => e.extensions?.code !== 'GRAPHQL_VALIDATION_FAILED'),
        `${path}: ${JSON.stringify(response.body.errors)}`,
      ).toBe(true);
    }
    const entries = (await entriesOf(tenant)).filter((e) => e.actorUserId === viewer.userId);
    const byOperation = new Map<string, AuditEntryRecord[]>();
    for (const entry of entries) byOperation.set(entry.operation, [...(byOperation.get(entry.operation) ?? []), entry]);
    const missing = mutations.map((m) => m.path).filter((path) => !byOperation.has(path));
    expect(missing).toEqual([]);
    // A Viewer may not create roles or configure SCIM: refused, recorded as refused, with the code only.
    expect(byOperation.get('roles.create')!.map((e) => [e.result, e.errorCode])).toEqual([['DENIED', 'FORBIDDEN']]);
    expect(byOperation.get('configureScim')![0]!.result).toBe('DENIED');
    for (const entry of entries) {
      expect(entry.actorType).toBe('apiKey');
      expect(entry.userAgent).toBe('audit-walker/1');
      expect(entry.sourceIp).toBeTruthy();
    }
    expect(JSON.stringify(entries)).not.toContain(marker);
    // One call after another over every mutation: on a loaded 2-core machine that nears the default 30 s.
  }, 120_000);

  it('a successful mutation has exactly one SUCCESS entry, written with its change', async () => {
    const team = await gqlOk<{ organization: { teams: { create: { id: string } } } }>(tenant, 'mutation($input: CreateTeamInput!) { organization { teams { create(input: $input) { id } } } }', {
      input: { name: `Team ${randomUUID().slice(0, 6)}` },
    });
    const entries = (await entriesOf(tenant)).filter((e) => e.operation === 'organization.teams.create' && e.actorUserId !== viewer.userId);
    expect(entries.map((e) => e.result)).toEqual(['SUCCESS']);
    expect(entries[0]!.targets).toEqual([]);
    expect(JSON.stringify(entries)).not.toContain(marker);
    expect(team.organization.teams.create.id).toBeTruthy();
  });

  it('organization.auditLog: newest first, filtered and paged, for organization administrators only', async () => {
    const query = `query($filter: AuditLogFilterInput, $pagination: AuditLogPaginationInput) { organization { auditLog(filter: $filter, pagination: $pagination) {
      entries { id seq at actorType actorId actorUserId operation targets summary result errorCode userAgent hash } pageInfo { hasNextPage endCursor } } } }`;
    type Page = {
      organization: { auditLog: { entries: { id: string; at: string; operation: string; result: string; actorUserId: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } };
    };
    const denied = await gqlOk<Page>(tenant, query, { filter: { operation: 'roles.create', actorId: viewer.userId } });
    expect(denied.organization.auditLog.entries.map((e) => [e.operation, e.result])).toEqual([['roles.create', 'DENIED']]);
    const first = await gqlOk<Page>(tenant, query, { filter: { actorId: viewer.userId }, pagination: { first: 10 } });
    expect(first.organization.auditLog.entries).toHaveLength(10);
    expect(first.organization.auditLog.pageInfo.hasNextPage).toBe(true);
    const second = await gqlOk<Page>(tenant, query, { filter: { actorId: viewer.userId }, pagination: { first: 10, after: first.organization.auditLog.pageInfo.endCursor } });
    const times = [...first.organization.auditLog.entries, ...second.organization.auditLog.entries].map((e) => e.at);
    expect(times).toEqual([...times].sort().reverse());
    expect(new Set([...first.organization.auditLog.entries, ...second.organization.auditLog.entries].map((e) => e.id)).size).toBe(20);
    const refused = await graphql(query, {}, viewer.headers);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(refused.body.data).toBeNull();
  });

  describe('the hash chain', () => {
    async function sealedChain(): Promise<AuditEntryRecord[]> {
      await sealAuditChain(testStore(), chainOf(tenant));
      return (await entriesOf(tenant)).filter((e) => e.seq !== undefined).sort((a, b) => a.seq! - b.seq!);
    }

    async function restore(entry: AuditEntryRecord) {
      await testStore().ddb.send(new PutCommand({ TableName: testStore().tableName, Item: entry }));
    }

    it('verifies an intact chain', async () => {
      const chain = await sealedChain();
      expect(chain.length).toBeGreaterThan(80);
      expect(chain.map((e) => e.seq)).toEqual(chain.map((_, i) => i + 1));
      const result = await verifyAuditChain(testStore(), chainOf(tenant));
      expect(result).toMatchObject({ ok: true, checked: chain.length });
    });

    it('names an edited entry', async () => {
      const chain = await sealedChain();
      const target = chain[10]!;
      await testStore().ddb.send(
        new UpdateCommand({
          TableName: testStore().tableName,
          Key: { PK: target.PK, SK: target.SK },
          UpdateExpression: 'SET #r = :r',
          ExpressionAttributeNames: { '#r': 'result' },
          ExpressionAttributeValues: { ':r': 'SUCCESS' === target.result ? 'DENIED' : 'SUCCESS' },
        }),
      );
      try {
        const result = await verifyAuditChain(testStore(), chainOf(tenant));
        expect(result.ok).toBe(false);
        expect(result.firstBad).toMatchObject({ entryId: target.entryId, problem: 'ALTERED' });
      } finally {
        await restore(target);
      }
      expect((await verifyAuditChain(testStore(), chainOf(tenant))).ok).toBe(true);
    });

    it('names the entry after a deleted one', async () => {
      const chain = await sealedChain();
      const removed = chain[20]!;
      await testStore().ddb.send(new DeleteCommand({ TableName: testStore().tableName, Key: { PK: removed.PK, SK: removed.SK } }));
      try {
        const result = await verifyAuditChain(testStore(), chainOf(tenant));
        expect(result.ok).toBe(false);
        expect(result.firstBad).toMatchObject({ entryId: chain[21]!.entryId, problem: 'REMOVED_BEFORE' });
      } finally {
        await restore(removed);
      }
      expect((await verifyAuditChain(testStore(), chainOf(tenant))).ok).toBe(true);
    });

    it('names the first of two swapped entries', async () => {
      const chain = await sealedChain();
      const [a, b] = [chain[30]!, chain[31]!];
      // Swap what the two items hold, keys kept: the order of the log as read is changed.
      const { PK: _pa, SK: _sa, ...contentA } = a;
      const { PK: _pb, SK: _sb, ...contentB } = b;
      await testStore().ddb.send(new PutCommand({ TableName: testStore().tableName, Item: { PK: a.PK, SK: a.SK, ...contentB } }));
      await testStore().ddb.send(new PutCommand({ TableName: testStore().tableName, Item: { PK: b.PK, SK: b.SK, ...contentA } }));
      try {
        const result = await verifyAuditChain(testStore(), chainOf(tenant));
        expect(result.ok).toBe(false);
        expect(result.firstBad).toMatchObject({ seq: a.seq, problem: 'ALTERED' });
        expect(result.firstBad!.sk).toBe(b.SK);
      } finally {
        await restore(a);
        await restore(b);
      }
      const check = await testStore().ddb.send(new GetCommand({ TableName: testStore().tableName, Key: { PK: a.PK, SK: a.SK } }));
      expect(check.Item?.entryId).toBe(a.entryId);
      expect((await verifyAuditChain(testStore(), chainOf(tenant))).ok).toBe(true);
    });
  });

  describe('operator commands', () => {
    const admin = (...args: string[]) => adminCli(args);

    it('audit verify passes on the intact chain, exits 1 naming an edited entry, and is itself audited', async () => {
      await sealAuditChain(testStore(), chainOf(tenant));
      const intact = JSON.parse((await admin('audit', 'verify', '--org-slug', tenant.organization.slug)).stdout);
      expect(intact.ok).toBe(true);
      const chain = (await entriesOf(tenant)).filter((e) => e.seq !== undefined).sort((a, b) => a.seq! - b.seq!);
      const target = chain[5]!;
      await testStore().ddb.send(
        new UpdateCommand({ TableName: testStore().tableName, Key: { PK: target.PK, SK: target.SK }, UpdateExpression: 'SET summary = :s', ExpressionAttributeValues: { ':s': 'edited' } }),
      );
      try {
        const failed = await admin('audit', 'verify', '--org-slug', tenant.organization.slug).then(
          () => undefined,
          (error: { code: number; stdout: string }) => error,
        );
        expect(failed?.code).toBe(1);
        expect(JSON.parse(failed!.stdout).firstBad).toMatchObject({ entryId: target.entryId, problem: 'ALTERED' });
      } finally {
        await testStore().ddb.send(new PutCommand({ TableName: testStore().tableName, Item: target }));
      }
      const verifies = (await entriesOf(tenant)).filter((e) => e.operation === 'admin.audit.verify');
      expect(verifies.length).toBe(2);
      expect(verifies.every((e) => e.actorType === 'operator')).toBe(true);
    });

    it('audit export writes JSON lines and CSV', async () => {
      const out = join(tmpdir(), `audit-${randomUUID()}`);
      const jsonl = JSON.parse((await admin('audit', 'export', '--org-slug', tenant.organization.slug, '--out', `${out}.jsonl`)).stdout);
      const lines = (await readFile(`${out}.jsonl`, 'utf8')).trim().split('\n');
      expect(lines.length).toBe(jsonl.entries);
      expect(JSON.parse(lines[0]!)).toHaveProperty('operation');
      await admin('audit', 'export', '--org-slug', tenant.organization.slug, '--out', `${out}.csv`, '--format', 'csv');
      const csv = (await readFile(`${out}.csv`, 'utf8')).split('\r\n');
      expect(csv[0]).toBe('seq,at,entryId,organizationId,actorType,actorId,actorUserId,integrationId,operation,targets,summary,result,errorCode,sourceIp,userAgent,prevHash,hash');
      expect(csv.length).toBeGreaterThan(lines.length);
    });
  });
});
