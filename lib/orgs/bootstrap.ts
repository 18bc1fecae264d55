import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { newUserRecord } from '../people/users.js';
import { newApiKey } from '../apikeys/apiKeys.js';
import { AlreadyExistsError, InvalidInputError } from '../errors.js';
import type { Store } from '../store/client.js';
import { nowIso, transactWrite } from '../store/items.js';
import { apiKeyPuts } from '../store/apiKey.js';
import { membershipPut } from '../store/membership.js';
import { organizationPuts, type OrganizationRecord } from '../store/organization.js';
import { findUserIdByEmail, getUser, userEmailHeldBy, userPuts } from '../store/user.js';
import { newLibraryItems, newLibraryRecord } from './libraries.js';
import { assertPlanName, defaultPlan } from './plans.js';
import { assertValidSlug } from '../model/slugs.js';

export const bootstrapInput = z.object({
  orgName: z.string().trim().min(1).max(200),
  orgSlug: z.string(),
  libraryName: z.string().trim().min(1).max(200),
  librarySlug: z.string(),
  email: z.email().max(254),
  plan: z.string().default(defaultPlan),
});
export type BootstrapInput = z.input<typeof bootstrapInput>;

export interface BootstrapResult {
  organization: { id: string; slug: string };
  library: { id: string; slug: string; path: string };
  user: { id: string; email: string };
  apiKey: string;
}

/**
 * Creates a tenant in one transaction: the organization, its first library with its default configuration,
 * a Site Admin (an existing user
 * with that email is reused) and an API key for the library. A taken slug writes nothing. `organizationId`:
 * the new organization's id when the caller chose it first (the operator CLI, whose audit entry lands in the
 * new organization's chain in the same transaction); a fresh one otherwise.
 */
export async function bootstrapTenant(store: Store, rawInput: BootstrapInput, options: { organizationId?: string } = {}): Promise<BootstrapResult> {
  const parsed = bootstrapInput.safeParse(rawInput);
  if (!parsed.success) throw new InvalidInputError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
  const input = parsed.data;
  assertValidSlug(input.orgSlug, 'Organization');
  assertPlanName(input.plan);

  const at = nowIso();
  const organization: OrganizationRecord = {
    id: options.organizationId ?? randomUUID(),
    name: input.orgName,
    slug: input.orgSlug,
    type: 'PRODUCTION',
    parentOrganizationId: null,
    plan: input.plan,
    createdAt: at,
    archived: false,
    archivedAt: null,
    sandboxCount: 0,
    siteAdminCount: 1,
    domains: [],
    saml: null,
    scimEnabled: false,
    scimActiveTokenId: null,
  };
  const existingUserId = await findUserIdByEmail(store, input.email);
  const existingUser = existingUserId ? await getUser(store, existingUserId) : undefined;
  const user = existingUser ?? newUserRecord({ email: input.email, emailVerified: true }, at);
  const library = newLibraryRecord(organization.id, { name: input.libraryName, slug: input.librarySlug }, user.id, at);
  const { apiKey, secret } = newApiKey({ organizationId: organization.id, libraryId: library.id, userId: user.id }, { name: 'bootstrap' }, at);

  const userItems = existingUser ? [userEmailHeldBy(user.primaryEmail, user.id)] : userPuts(user);
  const items = [
    ...organizationPuts(organization, () => new AlreadyExistsError(`An organization with slug "${organization.slug}" already exists`, { field: 'orgSlug' })),
    ...newLibraryItems(library),
    ...userItems,
    membershipPut({ organizationId: organization.id, userId: user.id, role: 'SITE_ADMIN', libraryRoles: {}, createdAt: at }),
    ...apiKeyPuts(apiKey),
  ];
  await transactWrite(store, items, { otherwise: () => new AlreadyExistsError('A user with this email was created or changed concurrently; run bootstrap again', { field: 'email' }) });
  return {
    organization: { id: organization.id, slug: organization.slug },
    library: { id: library.id, slug: library.slug, path: `@${organization.slug}/${library.slug}` },
    user: { id: user.id, email: user.primaryEmail },
    apiKey: secret,
  };
}
