import { randomUUID } from 'node:crypto';
import { ConcurrentWriteError } from '../errors.js';
import type { Store } from '../store/client.js';
import { nowIso, transactWrite, type WriteItem } from '../store/items.js';
import { getVendors, listVendors, vendorIdByName, vendorNameClaim, vendorNameRelease, vendorPut, type VendorKind, type VendorRecord } from '../store/sourcing.js';
import { SourcingError } from './errors.js';
import { normalizeName, parseInput, vendorInput, vendorNameProblem, vendorUpdate } from './input.js';

/**
 * The organization's directory of manufacturers and distributors. A name and each alias are claimed in
 * the vendor's transaction (unique per kind, case-insensitively), so a part or quote naming a vendor by
 * any of them reaches the same record.
 */

const nameTaken = (kind: VendorKind, name: string) => () =>
  new SourcingError('ALREADY_EXISTS', `A ${kind.toLowerCase()} named "${name}" (name or alias) already exists in this organization`, { field: 'name', name });

/** Distinct names (the name first), by their normalized form. */
function namesOf(name: string, aliases: readonly string[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const n of [name, ...aliases]) if (!names.has(normalizeName(n))) names.set(normalizeName(n), n);
  return names;
}

export async function vendorsOf(store: Store, organizationId: string, kind?: VendorKind): Promise<VendorRecord[]> {
  const all = await listVendors(store, organizationId);
  return all.filter((v) => !kind || v.kind === kind).sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

export async function createVendor(store: Store, organizationId: string, raw: unknown): Promise<VendorRecord> {
  const input = parseInput(vendorInput, raw);
  const at = nowIso();
  const names = namesOf(input.name, input.aliases ?? []);
  const record: VendorRecord = {
    id: randomUUID(),
    organizationId,
    kind: input.kind,
    name: input.name,
    website: input.website ?? null,
    aliases: [...names.values()].slice(1),
    rev: 1,
    createdAt: at,
    updatedAt: at,
  };
  const items: WriteItem[] = [
    vendorPut(record, null, () => new ConcurrentWriteError('The vendor')),
    ...[...names].map(([normalized, original]) => vendorNameClaim(organizationId, record.kind, normalized, record.id, nameTaken(record.kind, original))),
  ];
  await transactWrite(store, items);
  return record;
}

export async function updateVendor(store: Store, organizationId: string, raw: unknown): Promise<VendorRecord> {
  const input = parseInput(vendorUpdate, raw);
  const before = (await getVendors(store, organizationId, [input.id])).get(input.id);
  if (!before) throw new SourcingError('VENDOR_NOT_FOUND', `Vendor ${input.id} was not found in this organization`, { id: input.id });
  const name = input.name ?? before.name;
  const names = namesOf(name, input.aliases === undefined ? before.aliases : (input.aliases ?? []));
  const previous = namesOf(before.name, before.aliases);
  const after: VendorRecord = {
    ...before,
    name,
    website: input.website === undefined ? before.website : input.website,
    aliases: [...names.values()].slice(1),
    rev: before.rev + 1,
    updatedAt: nowIso(),
  };
  const items: WriteItem[] = [
    vendorPut(after, before.rev, () => new ConcurrentWriteError(`Vendor ${before.id}`)),
    ...[...names].filter(([n]) => !previous.has(n)).map(([n, original]) => vendorNameClaim(organizationId, after.kind, n, after.id, nameTaken(after.kind, original))),
    ...[...previous.keys()].filter((n) => !names.has(n)).map((n) => vendorNameRelease(organizationId, after.kind, n, after.id)),
  ];
  await transactWrite(store, items);
  return after;
}

/**
 * The vendor of a part (MANUFACTURER) or quote (DISTRIBUTOR) input: by id, or by a name or alias. Unknown:
 * MANUFACTURER_NOT_FOUND / DISTRIBUTOR_NOT_FOUND.
 */
export async function resolveVendor(store: Store, organizationId: string, kind: VendorKind, id: string | null | undefined, name: string | null | undefined): Promise<VendorRecord> {
  const field = kind === 'MANUFACTURER' ? 'manufacturer' : 'distributor';
  const notFound = (what: string) => new SourcingError(`${kind}_NOT_FOUND`, `${what} is not a ${kind.toLowerCase()} of this organization's directory`, { field: id ? `${field}Id` : `${field}Name` });
  if ((id ? 1 : 0) + (name ? 1 : 0) !== 1) throw new SourcingError('BAD_USER_INPUT', `give ${field}Id or ${field}Name (one of them)`, { field: `${field}Id` });
  // A name too long to be claimed names no vendor (and is not a key DynamoDB would read).
  const vendorId = id ?? (vendorNameProblem(name!) ? undefined : await vendorIdByName(store, organizationId, kind, normalizeName(name!)));
  if (!vendorId) throw notFound(`"${name}"`);
  const vendor = (await getVendors(store, organizationId, [vendorId])).get(vendorId);
  if (!vendor || vendor.kind !== kind) throw notFound(id ? `Vendor ${id}` : `"${name}"`);
  return vendor;
}

export function vendorsByIds(store: Store, organizationId: string, ids: string[]): Promise<Map<string, VendorRecord>> {
  return getVendors(store, organizationId, ids);
}
