import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { ConcurrentWriteError, IntegrationAccessError } from '../errors.js';
import { parseInput } from '../input.js';
import type { Store } from '../store/client.js';
import { getIntegration, integrationPuts, integrationUpdateItems, listIntegrations, type IntegrationRecord } from '../store/integration.js';
import { nowIso, transactWrite } from '../store/items.js';
import { nativePrincipalId } from '../model/attributeAccess.js';

/** A principal as the API shows it: the native principal of the service, or an integration of the organization. */
export interface Principal {
  id: string;
  name: string;
  isNative: boolean;
  disabled: boolean;
  createdAt: string | null;
}

export const nativePrincipal: Principal = { id: nativePrincipalId, name: 'PLM service (native)', isNative: true, disabled: false, createdAt: null };

const asPrincipal = (record: IntegrationRecord): Principal => ({ id: record.id, name: record.name, isNative: false, disabled: record.disabled, createdAt: record.createdAt });

const nameField = z.string().trim().min(1, 'name must not be empty').max(100, 'name is at most 100 characters');
const createInput = z.object({ name: nameField });
/** An update: omitted fields stay; null is refused (an integration always has a name and a disabled flag), never ignored. */
const updateInput = z.object({ id: z.string().min(1).max(128), name: nameField.optional(), disabled: z.boolean().optional() });

/** The native principal first, then the organization's integrations by name. */
export async function listPrincipals(store: Store, organizationId: string, includeDisabled = true): Promise<Principal[]> {
  const records = (await listIntegrations(store, organizationId)).sort((a, b) => a.name.localeCompare(b.name));
  return [nativePrincipal, ...records.map(asPrincipal).filter((p) => includeDisabled || !p.disabled)];
}

/** A principal by id: the native one, or an integration of this organization (INTEGRATION_NOT_FOUND otherwise). */
export async function findPrincipal(store: Store, organizationId: string, id: string): Promise<Principal> {
  if (id === nativePrincipalId) return nativePrincipal;
  const record = z.string().uuid().safeParse(id).success ? await getIntegration(store, organizationId, id) : undefined;
  if (!record) throw new IntegrationAccessError('INTEGRATION_NOT_FOUND', `No integration ${id} in this organization`, { id });
  return asPrincipal(record);
}

export async function createIntegration(store: Store, organizationId: string, userId: string, input: unknown): Promise<Principal> {
  const { name } = parseInput(createInput, input, 'input');
  const at = nowIso();
  const record: IntegrationRecord = { id: randomUUID(), organizationId, name, disabled: false, createdAt: at, updatedAt: at, createdBy: userId };
  await transactWrite(store, integrationPuts(record));
  return asPrincipal(record);
}

/** Renames, disables or enables an integration; the native principal cannot be changed. */
export async function updateIntegration(store: Store, organizationId: string, input: unknown): Promise<Principal> {
  const { id, name, disabled } = parseInput(updateInput, input, 'input');
  if (id === nativePrincipalId) throw new IntegrationAccessError('NATIVE_PRINCIPAL_IMMUTABLE', "The service's own principal cannot be renamed or disabled", { id });
  const before = z.string().uuid().safeParse(id).success ? await getIntegration(store, organizationId, id) : undefined;
  if (!before) throw new IntegrationAccessError('INTEGRATION_NOT_FOUND', `No integration ${id} in this organization`, { id });
  const after: IntegrationRecord = { ...before, name: name ?? before.name, disabled: disabled ?? before.disabled, updatedAt: nowIso() };
  if (after.name === before.name && after.disabled === before.disabled) return asPrincipal(before);
  await transactWrite(store, integrationUpdateItems(before, after), { onConflict: () => new ConcurrentWriteError(`Integration ${before.name}`) });
  return asPrincipal(after);
}
