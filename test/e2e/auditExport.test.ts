import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { unescapeCell } from '../../lib/csvCells.js';
import { listAuditEntries, sealAuditChain } from '../../lib/store/audit.js';
import { gqlOk, graphql, newTenant, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { memberWithRole, type Member } from './accessHelpers.js';

/** transfer.exportAuditLog: the organization's audit log as a file of the library's file store (issue 24, item 4). */

const exportMutation = `mutation($input: ExportAuditLogInput) { transfer { exportAuditLog(input: $input) { id name contentType status downloadUrl } } }`;
const logQuery = `query($filter: AuditLogFilterInput, $pagination: AuditLogPaginationInput) { organization { auditLog(filter: $filter, pagination: $pagination) {
  entries { id seq at actorType actorId actorUserId integrationId operation targets summary result errorCode sourceIp userAgent hash } pageInfo { hasNextPage endCursor } } } }`;

type Entry = Record<string, unknown> & { id: string };
type ExportedFile = { id: string; name: string; contentType: string; status: string; downloadUrl: string };

/** A user agent a spreadsheet would run as a formula, with a comma and quotes for the CSV quoting. */
const formulaAgent = `=HYPERLINK("https://evil.example/?x=1","click"), ${randomUUID().slice(0, 6)}`;

describe('audit log export through the file store', () => {
  let tenant: Tenant;
  let viewer: Member;
  const marker = `EXPORT-LEAK-${randomUUID().slice(0, 8)}`;
  let to: string;

  async function logEntries(filter: Record<string, unknown>): Promise<Entry[]> {
    const page = await gqlOk<{ organization: { auditLog: { entries: Entry[]; pageInfo: { hasNextPage: boolean } } } }>(tenant, logQuery, { filter, pagination: { first: 200 } });
    expect(page.organization.auditLog.pageInfo.hasNextPage).toBe(false);
    return page.organization.auditLog.entries;
  }

  async function exportFile(input: Record<string, unknown>): Promise<{ file: ExportedFile; text: string }> {
    const file = (await gqlOk<{ transfer: { exportAuditLog: ExportedFile } }>(tenant, exportMutation, { input })).transfer.exportAuditLog;
    expect(file.status).toBe('READY');
    const response = await fetch(file.downloadUrl);
    expect(response.status).toBe(200);
    return { file, text: await response.text() };
  }

  /** An exported row (JSON line or CSV record) in the shape of organization.auditLog's entries. */
  const asLogEntry = (row: Record<string, unknown>): Entry => ({
    id: row.entryId as string,
    seq: row.seq,
    at: row.at,
    actorType: row.actorType,
    actorId: row.actorId,
    actorUserId: row.actorUserId,
    integrationId: row.integrationId,
    operation: row.operation,
    targets: row.targets,
    summary: row.summary,
    result: row.result,
    errorCode: row.errorCode,
    sourceIp: row.sourceIp,
    userAgent: row.userAgent,
    hash: row.hash,
  });

  beforeAll(async () => {
    tenant = await newTenant();
    viewer = await memberWithRole(tenant, 'VIEWER');
    for (let i = 0; i < 3; i += 1) {
      const created = await graphql(
        'mutation($input: CreateTeamInput!) { organization { teams { create(input: $input) { id } } } }',
        { input: { name: `Team ${randomUUID().slice(0, 6)}` } },
        {
          ...tenantHeaders(tenant),
          'user-agent': i === 1 ? formulaAgent : 'audit-export/1',
        },
      );
      expect(created.body.errors).toBeUndefined();
    }
    // A refused export: the viewer is no organization administrator.
    const refused = await graphql(exportMutation, { input: { filter: { operation: marker }, format: 'CSV' } }, viewer.headers);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(refused.body.data).toBeNull();
    // Everything so far linked into the chain, so the log and the file read the same sealed entries.
    await sealAuditChain(testStore(), `ORG#${tenant.organization.id}#AUDIT`);
    to = new Date().toISOString();
  }, 60_000);

  it('JSON lines: the file holds exactly the entries organization.auditLog lists, in its order', async () => {
    const expected = await logEntries({ to });
    expect(expected.length).toBe(4);
    const { file, text } = await exportFile({ filter: { to } });
    expect(file.contentType).toBe('application/x-ndjson');
    expect(file.name).toMatch(/^audit-log-.*\.jsonl$/);
    const rows = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows.map(asLogEntry)).toEqual(expected);
    expect(rows.every((row) => row.organizationId === tenant.organization.id && typeof row.prevHash === 'string')).toBe(true);
  });

  it('CSV with a filter: the same entries as the filtered log, a formula cell escaped as in every export', async () => {
    const expected = await logEntries({ to, operation: 'organization.teams.create' });
    expect(expected).toHaveLength(3);
    const { file, text } = await exportFile({ filter: { to, operation: 'organization.teams.create' }, format: 'CSV' });
    expect(file.contentType).toBe('text/csv');
    const records = parse(text, { columns: true }) as Record<string, string>[];
    expect(records).toHaveLength(3);
    // The cell as written is escaped (a spreadsheet shows it as text); read back it is the value.
    const agents = records.map((record) => record.userAgent!);
    expect(agents).toContain(`'${formulaAgent}`);
    const read = records.map((record) =>
      asLogEntry({
        ...Object.fromEntries(Object.entries(record).map(([column, cell]) => [column, cell === '' ? null : unescapeCell(cell)])),
        seq: Number(record.seq),
        targets: record.targets ? record.targets.split(' ') : [],
        summary: unescapeCell(record.summary ?? ''),
      }),
    );
    expect(read).toEqual(expected);
  });

  it('a non-administrator is refused, and the refusal is audited DENIED without the values it was given', async () => {
    const entries = (await listAuditEntries(testStore(), `ORG#${tenant.organization.id}#AUDIT`)).filter(
      (entry) => entry.operation === 'transfer.exportAuditLog' && entry.actorUserId === viewer.userId,
    );
    expect(entries.map((entry) => [entry.result, entry.errorCode])).toEqual([['DENIED', 'FORBIDDEN']]);
    expect(entries[0]!.summary).toBe('input{filter{operation},format}');
    expect(JSON.stringify(entries)).not.toContain(marker);
  });
});

describe('an audit export with no entries', () => {
  it('is an empty file (0 bytes), and the library it lies in still lists, reads and exports its files', async () => {
    // A new tenant's audit log holds nothing the export's filter reads (the export's own entry comes after).
    const tenant = await newTenant();
    const headers = tenantHeaders(tenant);
    const file = (await gqlOk<{ transfer: { exportAuditLog: { id: string; size: number; status: string } } }>(tenant, 'mutation { transfer { exportAuditLog { id size status } } }')).transfer
      .exportAuditLog;
    expect(file).toMatchObject({ size: 0, status: 'READY' });
    const found = await graphql('query($id: ID!) { file { findOne(id: $id) { id size } } }', { id: file.id }, headers);
    expect(found.body).toEqual({ data: { file: { findOne: { id: file.id, size: 0 } } } });
    // The library's export reads every file record of the library: the empty one stored a size its schema refused.
    const exported = await graphql<{ transfer: { exportLibrary: { files: { id: string }[] } } }>('mutation { transfer { exportLibrary { files { id } } } }', undefined, headers);
    expect(exported.body.errors).toBeUndefined();
    expect(exported.body.data?.transfer.exportLibrary.files).toHaveLength(1);
  });
});
