import { nativePrincipalId } from '../../lib/model/attributeAccess.js';
import { randomUUID } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { systemRoles } from '../../lib/access/roles.js';
import type { CreateComponentCommand, UpdateComponentCommand } from '../../lib/components/commands.js';
import type { WriteContext } from '../../lib/components/rules.js';
import { planCpn } from '../../lib/components/cpn.js';
import { buildNewComponent } from '../../lib/components/rules.js';
import { createComponents, updateComponents } from '../../lib/components/service.js';
import { newComponentItems } from '../../lib/components/transactItems.js';
import { batchWrite } from '../../lib/store/items.js';
import { findCategory } from '../../lib/config/libraryConfig.js';
import { loadLibraryConfiguration } from '../../lib/config/libraryConfig.js';
import { grantMembership } from '../../lib/orgs/members.js';
import { plans } from '../../lib/orgs/plans.js';
import { searchEntryPut } from '../../lib/search/entries.js';
import { compact } from '../../lib/search/table/compaction.js';
import { LibrarySnapshot } from '../../lib/search/table/snapshot.js';
import type { Store } from '../../lib/store/client.js';
import { componentItem, type ComponentRecord } from '../../lib/store/component.js';
import { userPuts, type UserRecord } from '../../lib/store/user.js';

export interface SeedTarget {
  organization: { id: string };
  library: { id: string };
  user: { id: string };
}

/** A WriteContext as the GraphQL layer builds one for a Site Admin, at a chosen time. */
export async function seedContext(store: Store, target: SeedTarget, at: string): Promise<WriteContext> {
  return {
    organizationId: target.organization.id,
    libraryId: target.library.id,
    userId: target.user.id,
    at,
    config: await loadLibraryConfiguration(store, target.organization.id, target.library.id),
    entitlements: plans.enterprise,
    permissions: systemRoles.SITE_ADMIN.permissions,
    principalId: nativePrincipalId,
    actingIntegrationId: null,
    checkFiles: async () => {},
  };
}

const categories: { id: string; prefix: string; attributes?: CreateComponentCommand['attributeValues'] }[] = [
  { id: 'resistor', prefix: '100', attributes: [{ attributeId: 'resistance', hasValue: true, value: 4700 }] },
  { id: 'capacitor', prefix: '110', attributes: [{ attributeId: 'capacitance', hasValue: true, value: 1e-7 }] },
  { id: 'connector', prefix: '130' },
  { id: 'mechanical', prefix: '200' },
  { id: 'fastener', prefix: '210' },
  { id: 'pcb', prefix: '300' },
  { id: 'pcba', prefix: '400' },
  { id: 'cable-assembly', prefix: '410' },
  { id: 'drawing', prefix: '900' },
  { id: 'datasheet', prefix: '920' },
];
const statuses = ['design', 'prototype', 'production', 'maintenance', 'obsolete'];
const words = ['bracket', 'housing', '0603', '10k', 'X7R', 'USB-C', 'M3', 'shield', 'cover', 'harness', 'spec', 'board'];

/**
 * The n-th component of a seeded library: categories, statuses and labels cycle at different rates. The
 * CPN is given (the default scheme allows overrides), from 50000 up, so seeding allocates no counters and
 * later generated CPNs (counters start at 1) do not meet them.
 */
export function seededInput(n: number): CreateComponentCommand {
  const category = categories[n % categories.length]!;
  return {
    cpn: `${category.prefix}-${50_000 + Math.floor(n / categories.length)}`,
    name: `${category.id} ${words[n % words.length]} ${words[(n * 7) % words.length]} ${n}`,
    description: n % 3 === 0 ? null : `seeded ${words[(n * 5) % words.length]} component number ${n}`,
    categoryId: category.id,
    statusId: statuses[Math.floor(n / 3) % statuses.length],
    attributeValues: category.attributes,
    labels: [...(n % 2 === 0 ? ['rohs'] : []), ...(n % 3 === 0 ? ['reach'] : [])],
  };
}

/**
 * Creates count components, 25 per call, several calls at once, each call a minute after the previous one
 * in createdAt: through the domain's createComponents (what component.create runs, one transaction a call),
 * or with `write: 'batch'` as the very items createComponents writes (component, history record, search
 * entry, CPN claim) put by BatchWriteItem, for the large fixtures whose test is about reading them.
 */
export async function seedComponents(
  store: Store,
  target: SeedTarget,
  count: number,
  options: { startAt?: number; concurrency?: number; input?: (n: number) => CreateComponentCommand; write?: 'transaction' | 'batch' } = {},
): Promise<ComponentRecord[]> {
  const base = await seedContext(store, target, new Date().toISOString());
  const startAt = options.startAt ?? Date.parse('2024-01-01T00:00:00.000Z');
  const input = options.input ?? seededInput;
  const write = options.write === 'batch' ? batchCreate : createComponents;
  const batches = Math.ceil(count / 25);
  const created: ComponentRecord[][] = new Array(batches);
  let next = 0;
  const worker = async () => {
    for (let batch = next++; batch < batches; batch = next++) {
      const ctx = { ...base, at: new Date(startAt + batch * 60_000).toISOString() };
      const inputs = Array.from({ length: Math.min(25, count - batch * 25) }, (_, i) => input(batch * 25 + i));
      created[batch] = await write(store, ctx, inputs);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
  return created.flat();
}

/** The records and items createComponents would write for inputs with chosen CPNs, put without a transaction. */
async function batchCreate(store: Store, ctx: WriteContext, inputs: CreateComponentCommand[]): Promise<ComponentRecord[]> {
  const records = inputs.map((input, index) => {
    const draft = buildNewComponent(ctx, input, index, randomUUID());
    const plan = planCpn(ctx.config.cpnScheme, input, findCategory(ctx.config, draft.categoryId)!, index);
    if (plan.kind !== 'chosen') throw new Error('a batch seed takes chosen CPNs only (no counters)');
    return { ...draft, cpn: plan.cpn };
  });
  const items = records.flatMap((record) => newComponentItems(ctx, ctx.config.cpnScheme, record).map((item) => item.Put!.Item as Record<string, unknown>));
  await batchWrite(
    store,
    items.map((put) => ({ put })),
  );
  return records;
}

/** Creates one component as `userId` at `at` (the domain call component.create makes). */
export async function createAt(store: Store, target: SeedTarget, input: CreateComponentCommand, at: string, userId = target.user.id): Promise<ComponentRecord> {
  const ctx = { ...(await seedContext(store, target, at)), userId };
  return (await createComponents(store, ctx, [input]))[0]!;
}

/** Updates one component as `userId` at `at`. */
export async function updateAt(store: Store, target: SeedTarget, input: UpdateComponentCommand, at: string, userId = target.user.id): Promise<ComponentRecord> {
  const ctx = { ...(await seedContext(store, target, at)), userId };
  return (await updateComponents(store, ctx, [input]))[0]!;
}

/**
 * Marks a component RELEASED the way a release will (releasing comes with change orders): the component
 * and its search entry in one transaction, conditional on the version.
 */
export async function markReleased(store: Store, record: ComponentRecord): Promise<void> {
  const released = { ...record, state: 'RELEASED' as const };
  await store.ddb.send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: store.tableName, Item: componentItem(released), ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': record.version } } },
        { Put: { TableName: store.tableName, ...searchEntryPut(released).Put } },
      ],
    }),
  );
}

/**
 * A second user (users are global), with a name the sentence parser can find, made a member (VIEWER) of
 * the organization: user references resolve only to its members and former members.
 */
export async function putUser(store: Store, firstName: string, lastName: string, organizationId: string): Promise<UserRecord> {
  const email = `${firstName}.${lastName}.${randomUUID().slice(0, 6)}@example.com`.toLowerCase();
  const user: UserRecord = {
    id: randomUUID(),
    name: `${firstName} ${lastName}`,
    firstName,
    lastName,
    primaryEmail: email,
    emails: [email],
    emailVerified: true,
    archived: false,
    createdAt: new Date().toISOString(),
  };
  await store.ddb.send(new TransactWriteCommand({ TransactItems: userPuts(user).map((item) => ({ Put: { TableName: store.tableName, ...item.Put } })) }));
  await grantMembership(store, organizationId, user.id, 'VIEWER');
  return user;
}

/** Folds outstanding deltas into blocks now (what a search does once enough have accumulated). */
export async function compactSearchIndex(store: Store, target: SeedTarget): Promise<void> {
  const library = { organizationId: target.organization.id, libraryId: target.library.id };
  for (let run = 0; run < 10; run++) {
    const snapshot = await LibrarySnapshot.read(store, library, []);
    if (snapshot.deltas.length === 0) return;
    await snapshot.ensure([]);
    if ((await compact(store, snapshot)) !== 'committed') await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the search index did not compact');
}
