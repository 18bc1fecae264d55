import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, ok, tenantHeaders, type Tenant } from '../support/api.js';
import { memberWithRole, refusal } from './accessHelpers.js';
import { createParts } from './itemHelpers.js';

/**
 * The audit log's time bounds as a client sends them (found by probing from outside): the DateTime scalar
 * passes any value through, and the bounds were compared as written with the keys' UTC times.
 */

const logQ = `query($f: AuditLogFilterInput) { organization { auditLog(filter: $f, pagination: { first: 200 }) { entries { id at operation } } } }`;
const exportM = `mutation($i: ExportAuditLogInput) { transfer { exportAuditLog(input: $i) { id } } }`;

/** The same moment written with a +02:00 offset. */
function atPlusTwo(iso: string): string {
  const shifted = new Date(Date.parse(iso) + 2 * 3_600_000).toISOString();
  return `${shifted.slice(0, -1)}+02:00`;
}

describe('audit log time bounds', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    await ok(admin, `mutation { organization { teams { create(input: { name: "Bounds team" }) { id } } } }`);
  });

  it('refuses a bound that is no date-time (was an empty page, or the bound dropped and the whole log listed)', async () => {
    for (const from of ['yesterday', '', 5, { gt: '' }, '+275760-09-13T00:00:00.000Z']) {
      const refused = await refusal(admin, logQ, { f: { from } });
      expect({ from, code: refused.code, field: refused.error?.extensions?.field }).toEqual({ from, code: 'BAD_USER_INPUT', field: 'filter.from' });
    }
    expect((await refusal(admin, logQ, { f: { to: 'tomorrow' } })).error?.extensions?.field).toBe('filter.to');
    // An empty actor, target or operation was dropped: the whole log answered as if no filter was sent.
    for (const field of ['actorId', 'targetId', 'operation']) {
      const refused = await refusal(admin, logQ, { f: { [field]: '' } });
      expect({ field, code: refused.code, named: refused.error?.extensions?.field }).toEqual({ field, code: 'BAD_USER_INPUT', named: `filter.${field}` });
      expect((await refusal(admin, exportM, { i: { filter: { [field]: '' } } })).code).toBe('BAD_USER_INPUT');
    }
    expect((await refusal(admin, exportM, { i: { filter: { from: 'yesterday' } } })).code).toBe('BAD_USER_INPUT');
  });

  it('reads a bound with an offset as the moment it names (was compared as written with UTC keys)', async () => {
    const entries = (await ok(admin, logQ, {})).organization.auditLog.entries as { id: string; at: string; operation: string }[];
    const team = entries.find((e) => e.operation === 'organization.teams.create')!;
    const moment = atPlusTwo(team.at);
    const found = (await ok(admin, logQ, { f: { from: moment, to: moment } })).organization.auditLog.entries as { id: string }[];
    expect(found.map((e) => e.id)).toContain(team.id);
    // A date alone as the upper bound still takes in that whole day.
    const day = (await ok(admin, logQ, { f: { to: team.at.slice(0, 10) } })).organization.auditLog.entries as { id: string }[];
    expect(day.map((e) => e.id)).toContain(team.id);
  });
});

describe('a filter that matches an entry far back', () => {
  const pageQ = `query($f: AuditLogFilterInput, $after: String) { organization { auditLog(filter: $f, pagination: { first: 1, after: $after }) { entries { id actorUserId operation } pageInfo { hasNextPage endCursor } } } }`;

  it('pages on to it (a page that read its fill of entries without a match ended the log: hasNextPage false, the entry never listed)', { timeout: 120_000 }, async () => {
    const tenant = await newTenant({ plan: 'team' });
    const admin = tenantHeaders(tenant);
    const rare = await memberWithRole(tenant, 'EDITOR');
    await ok(rare.headers, 'mutation { markAllRead }');
    // 522 later entries of other actors: more than one page's reads of a first: 1 page examine. Three
    // credentials of 174 calls each, so that none reaches the rate limit (300 calls per 10 s) on a fast machine.
    const others = await Promise.all([1, 2, 3].map(() => memberWithRole(tenant, 'EDITOR')));
    for (let round = 0; round < 29; round += 1) {
      await Promise.all(others.flatMap((other) => Array.from({ length: 6 }, () => ok(other.headers, 'mutation { markAllRead }'))));
    }

    const found: { id: string; actorUserId: string; operation: string }[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 100; pages += 1) {
      const page: { entries: typeof found; pageInfo: { hasNextPage: boolean; endCursor: string | null } } = (await ok(admin, pageQ, { f: { actorId: rare.userId }, after })).organization.auditLog;
      found.push(...page.entries);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(found.map((e) => [e.actorUserId, e.operation])).toEqual([[rare.userId, 'markAllRead']]);
  });
});

describe('a target named in capitals', () => {
  const logQ = `query($f: AuditLogFilterInput) { organization { auditLog(filter: $f, pagination: { first: 200 }) { entries { operation targets summary } } } }`;

  it('is found by its id as the API answers it, and by the capitals as sent (the entry kept the capitals and the filter missed it)', async () => {
    const tenant = await newTenant({ plan: 'team' });
    const admin = tenantHeaders(tenant);
    const [part] = await createParts(tenant, ['Audit capitals part']);
    const upper = part!.id.toUpperCase();
    const created = (await ok(admin, 'mutation($input: CreateCommentInput!) { comments { create(input: $input) { id targetId } } }', { input: { targetId: upper, body: 'capitals' } })).comments.create;
    expect(created.targetId).toBe(part!.id);

    for (const targetId of [part!.id, upper]) {
      const entries = (await ok(admin, logQ, { f: { targetId } })).organization.auditLog.entries as { operation: string; targets: string[]; summary: string }[];
      expect({ targetId, commented: entries.filter((e) => e.operation === 'comments.create').length }).toEqual({ targetId, commented: 1 });
    }
    const [entry] = (await ok(admin, logQ, { f: { operation: 'comments.create' } })).organization.auditLog.entries;
    expect(entry).toMatchObject({ targets: [part!.id], summary: `input{targetId=${part!.id},body}` });
  });
});
