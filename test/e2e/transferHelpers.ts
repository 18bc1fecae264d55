import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createLibrary } from '../../lib/orgs/libraries.js';
import type { Store } from '../../lib/store/client.js';
import { libraryPartition } from '../../lib/store/library.js';
import { searchPartition } from '../../lib/search/entries.js';
import { exportLibrary } from '../../lib/transfer/export.js';
import type { ExportedBomLine, LibraryExport } from '../../lib/transfer/format.js';
import { randomBytes } from 'node:crypto';
import { seedContext, type SeedTarget } from './searchHelpers.js';
import { LocalBlobStorage } from '../../lib/files/blobStorage.js';
import { createComponents, updateComponents } from '../../lib/components/service.js';
import { writeItems } from '../../lib/items/writer.js';
import { gqlOk, stack, uniqueSlug, type Tenant } from '../support/api.js';
import { createApiKey } from '../../lib/apikeys/apiKeys.js';
import { uploadFile } from '../support/files.js';
import { memberWithRole, type Member } from './accessHelpers.js';

export interface LibraryTarget extends SeedTarget {
  ref: { organizationId: string; libraryId: string };
}

/** A new, empty library in the tenant's organization (as library.create makes it). */
export async function newEmptyLibrary(store: Store, target: SeedTarget, slug: string): Promise<LibraryTarget> {
  const library = await createLibrary(store, target.organization.id, { name: `Import ${slug}`, slug }, target.user.id);
  return { ...target, library: { id: library.id }, ref: { organizationId: target.organization.id, libraryId: library.id } };
}

/**
 * An empty library of the tenant's organization, as a tenant of its own: an API key of that library (the
 * key's owner is the tenant's Site Admin), for imports through the API.
 */
export async function emptyLibraryTenant(store: Store, tenant: Tenant, prefix = 'imp'): Promise<Tenant> {
  const slug = uniqueSlug(prefix);
  const target = await newEmptyLibrary(store, tenant, slug);
  const key = await createApiKey(store, { organizationId: tenant.organization.id, libraryId: target.library.id, userId: tenant.user.id }, { name: 'import' });
  return { ...tenant, library: { ...tenant.library, id: target.library.id, slug, path: `@${tenant.organization.slug}/${slug}` }, apiKey: key.secret };
}

/** A resistor (CPN 100-00042) and the directory's Yageo and DigiKey, over the API: the start of a sourcing round trip. */
export async function sourcedResistor(tenant: Tenant): Promise<{ id: string }> {
  const [component] = (
    await gqlOk<{ item: { create: { id: string }[] } }>(tenant, 'mutation($inputs: [CreateItemInput!]!) { item { create(inputs: $inputs) { id } } }', {
      inputs: [{ name: 'Sourced resistor', categoryId: 'resistor', cpn: '100-00042', attributeValues: [{ attributeId: 'resistance', value: 470 }] }],
    })
  ).item.create;
  for (const [kind, name] of [
    ['MANUFACTURER', 'Yageo'],
    ['DISTRIBUTOR', 'DigiKey'],
  ])
    await gqlOk(tenant, 'mutation($input: CreateVendorInput!) { vendorSourcing { createVendor(input: $input) { id } } }', { input: { kind, name } });
  return component!;
}

/**
 * A library as data with its ids replaced by CPNs (lines and links by their place), so that two libraries
 * compare equal when they hold the same components, values, BOMs, links, configuration and history, whatever
 * their ids. Only ids and the manifest's export time and source differ between an exported and an imported library.
 */
export async function canonicalLibrary(store: Store, ref: { organizationId: string; libraryId: string }) {
  // The audit entries about a library are its organization's log, not its content: left out.
  return canonical(await exportLibrary(store, ref, { auditEntries: false }));
}

/** canonicalLibrary of an export already read. */
export function canonical(exported: LibraryExport) {
  const cpnOf = new Map(exported.components.map((c) => [c.id, `cpn:${c.cpn}`]));
  const lineNames = new Map<string, string>();
  const named = (names: Map<string, string>, id: string, name: string) => {
    if (!names.has(id)) names.set(id, name);
    return names.get(id)!;
  };
  // Files by their place in the export (ordered by time, name and checksum), templates by name.
  const fileOf = new Map((exported.manifest.files ?? []).map((f, i) => [f.id, `file-${i}`]));
  const fileRef = (id: unknown) => (typeof id === 'string' && fileOf.has(id) ? fileOf.get(id)! : id);
  const ref2 = (id: unknown) => (typeof id === 'string' && cpnOf.has(id) ? cpnOf.get(id)! : id);
  // Vendors by kind and name (their ids are the organization's: an import into another one gives new ids).
  const vendorOf = new Map((exported.manifest.sourcing?.vendors ?? []).map((v) => [v.id, `vendor:${v.kind}:${v.name}`]));
  const vendorRef = (id: string) => vendorOf.get(id) ?? id;
  const vendorIn = (value: unknown, field: string) =>
    value && typeof value === 'object' && typeof (value as Record<string, unknown>)[field] === 'string' ? { ...value, [field]: vendorRef((value as Record<string, string>)[field]!) } : value;
  const pin = (value: string | null) => (value === null ? null : `${ref2(value.slice(0, value.lastIndexOf(':')))}${value.slice(value.lastIndexOf(':'))}`);
  const line = (owner: string) => (l: ExportedBomLine, index: number) => ({
    ...l,
    lineId: named(lineNames, l.lineId, `${owner}/line-${index}`),
    childId: ref2(l.childId),
    childHistoryId: pin(l.childHistoryId),
    substitutes: l.substitutes.map((id) => ref2(id)),
  });
  const change = (c: { field: string; from: unknown; to: unknown }) => {
    const list = (v: unknown, map: (e: unknown) => unknown) => (Array.isArray(v) ? v.map(map) : v);
    if (c.field === 'children') {
      const summary = (e: unknown) => ({ ...(e as object), childId: ref2((e as { childId: string }).childId), childHistoryId: pin((e as { childHistoryId: string | null }).childHistoryId) });
      return { ...c, from: list(c.from, summary), to: list(c.to, summary) };
    }
    if (c.field === 'documentLinks') return { ...c, from: list(c.from, ref2), to: list(c.to, ref2) };
    if (c.field === 'fileId' || c.field === 'imageFileId') return { ...c, from: fileRef(c.from), to: fileRef(c.to) };
    if (c.field.startsWith('sourcing.part.')) return { ...c, from: vendorIn(c.from, 'manufacturerId'), to: vendorIn(c.to, 'manufacturerId') };
    if (c.field.startsWith('sourcing.quote.')) return { ...c, from: vendorIn(c.from, 'distributorId'), to: vendorIn(c.to, 'distributorId') };
    return c;
  };
  const components = exported.components.map((c) => {
    const owner = cpnOf.get(c.id)!;
    return {
      ...c,
      id: owner,
      fileId: fileRef(c.fileId),
      imageFileId: fileRef(c.imageFileId),
      history: c.history.map((h) => ({ ...h, changes: h.changes.map(change) })),
      bom: c.bom ? { ...c.bom, lines: c.bom.lines.map(line(owner)) } : null,
      bomHistory: c.bomHistory.map((s) => ({ ...s, lines: s.lines.map(line(owner)) })),
      ...(c.sourcingIndex ? { sourcingIndex: { ...c.sourcingIndex, manufacturerIds: c.sourcingIndex.manufacturerIds.map(vendorRef) } } : {}),
      sourcing: c.sourcing
        ? {
            ...c.sourcing,
            parts: c.sourcing.parts.map((p) => ({ ...p, manufacturerId: vendorRef(p.manufacturerId), quotes: p.quotes.map((q) => ({ ...q, distributorId: vendorRef(q.distributorId) })) })),
          }
        : (c.sourcing ?? null),
      documentLinks: c.documentLinks ? { ...c.documentLinks, links: c.documentLinks.links.map((l, i) => ({ ...l, linkId: `${owner}/link-${i}`, documentId: ref2(l.documentId) })) } : null,
    };
  });
  // The audit section is the organization's log about the library (included or not by who exports), not its content.
  const { exportedAt: _at, source: _source, audit: _audit, ...rest } = exported.manifest;
  const manifest = {
    ...rest,
    files: (rest.files ?? []).map((f) => ({ ...f, id: fileOf.get(f.id)! })),
    changeOrderTemplates: (rest.changeOrderTemplates ?? []).map((t) => ({ ...t, id: `template:${t.name}` })),
    sourcing: rest.sourcing ? { ...rest.sourcing, vendors: rest.sourcing.vendors.map((v) => ({ ...v, id: vendorRef(v.id) })) } : null,
  };
  return { manifest, components };
}

/** Every item of the library's partitions (its own and its search partition), for "nothing changed" checks. */
export async function partitionSnapshot(store: Store, ref: { organizationId: string; libraryId: string }): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (const pk of [libraryPartition(ref.organizationId, ref.libraryId), searchPartition(ref.organizationId, ref.libraryId)]) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await store.ddb.send(
        new QueryCommand({ TableName: store.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, ExclusiveStartKey: start, ConsistentRead: true }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return items;
}

export const createTemplateMutation = 'mutation($input: CreateTemplateInput!) { changeOrders { createTemplate(input: $input) { id name template } } }';

/** A change order template document (two open stages; reviewers and notified users as given). */
export function templateDocument(reviewers: unknown[], notify?: unknown, resolvedNotify?: unknown) {
  return {
    version: '1.0',
    description: 'ECO for production parts',
    schema_type: 'change_order_scheme',
    details: { info: { groups: [{ name: 'Change', fields: [{ type: 'text', label: 'Reason', name: 'reason' }] }] } },
    stages: {
      open: [
        { name: 'Engineering', types: ['Unanimous'], default: 'Unanimous', reviewers: { users: reviewers }, ...(notify ? { notifyList: notify } : {}) },
        { name: 'Quality', types: ['Minimum', 'Majority'], default: 'Minimum', minReviewers: 1 },
      ],
      resolved: { resolutions: { onapproval: ['AUTO_CLOSE'] }, ...(resolvedNotify ? { notifyList: resolvedNotify } : {}) },
    },
  };
}

/**
 * Seeds a library with two change order templates (participants by id: one plain id string, one object
 * with a flag, one notified user; an external email notifier) and uploaded files: a drawing (a document
 * component's file, replaced by a second revision: a history change names both), an image on a part, and
 * a specification made a linked document of the board by `documents`. Returns the two participants.
 */
export async function seedTemplatesAndFiles(store: Store, tenant: Tenant): Promise<{ reviewer: Member; notified: Member }> {
  const reviewer = await memberWithRole(tenant, 'EDITOR');
  const notified = await memberWithRole(tenant, 'REVIEWER');
  await gqlOk(tenant, createTemplateMutation, {
    input: { name: 'Production ECO', template: templateDocument([reviewer.userId, { id: notified.userId, isRequired: true }], { users: [notified.userId], emails: ['vendor@supplier.example'] }) },
  });
  await gqlOk(tenant, createTemplateMutation, { input: { name: 'Quick fix', template: templateDocument([{ id: reviewer.userId }], undefined, { users: [{ id: notified.userId }] }) } });

  const drawingV1 = await uploadFile(tenant, randomBytes(300_000), { name: 'controller.pdf', contentType: 'application/pdf' });
  const drawingV2 = await uploadFile(tenant, randomBytes(200_000), { name: 'controller-rev-b.pdf', contentType: 'application/pdf' });
  const image = await uploadFile(tenant, randomBytes(5_000), { name: 'resistor.png', contentType: 'image/png' });
  const spec = await uploadFile(tenant, Buffer.from('Board specification\n'), { name: 'spec.txt', contentType: 'text/plain' });
  const ctx = await seedContext(store, tenant, new Date().toISOString());
  const [resistor, drawing] = await createComponents(store, ctx, [
    { name: 'Resistor with photo', categoryId: 'resistor', imageFileId: image.id, attributeValues: [{ attributeId: 'resistance', hasValue: true, value: 220 }] },
    { name: 'Controller drawing', categoryId: 'drawing', fileId: drawingV1.id },
  ]);
  await updateComponents(store, ctx, [{ id: drawing!.id, expectedVersion: 1, fileId: drawingV2.id }]);
  await writeItems(
    store,
    ctx,
    'create',
    [{ name: 'Board', categoryId: 'pcba', children: [{ childId: resistor!.id, quantity: 2 }], documentComponentIds: [drawing!.id], documents: [{ fileId: spec.id, name: 'Board spec' }] }],
    {},
  );
  return { reviewer, notified };
}

/** The file store of the local stack (the folder it shares with the tests). */
export const stackFiles = () => new LocalBlobStorage(stack.filesDir, stack.baseUrl, 'unused');
