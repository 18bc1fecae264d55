import { defaultRevisionScheme, type RevisionScheme } from '../../config/revisionScheme.js';
import type { Store } from '../../store/client.js';
import { batchGetRecords } from '../../store/items.js';
import { listVendors } from '../../store/sourcing.js';
import { userKey, userRecord, type UserRecord } from '../../store/user.js';
import type { SearchScope } from '../service.js';
import { userDisplayName } from '../service.js';

export interface VocabularyUser {
  id: string;
  display: string;
  /** Lower-case ways to name the user: full name, first name, last name, email, the email's local part. */
  names: string[];
}

/** What the query languages resolve names against: the library's own statuses, categories, labels and users. */
export interface Vocabulary {
  statuses: { id: string; name: string; mapsTo: string }[];
  categories: { id: string; name: string; type: string }[];
  labels: string[];
  users: VocabularyUser[];
  /** The organization's manufacturers with their names and aliases (`manufacturer:`). */
  manufacturers?: { id: string; name: string; aliases: string[] }[];
  revisionScheme: RevisionScheme;
  /** The calling user ("me"). */
  userId: string;
  now: Date;
}

export type VocabularyPart = 'config' | 'labels' | 'users' | 'manufacturers';

function vocabularyUser(user: UserRecord): VocabularyUser {
  const names = new Set<string>();
  const add = (value: string | null | undefined) => {
    if (value?.trim()) names.add(value.trim().toLowerCase());
  };
  add([user.firstName, user.lastName].filter(Boolean).join(' '));
  add(user.firstName);
  add(user.lastName);
  add(user.name);
  add(user.primaryEmail);
  add(user.primaryEmail.split('@')[0]);
  return { id: user.id, display: userDisplayName(user), names: [...names] };
}

async function usersById(store: Store, ids: string[]): Promise<UserRecord[]> {
  const found = await batchGetRecords(store, ids, userKey, userRecord, 'user');
  return ids.flatMap((id) => found.get(id) ?? []);
}

/**
 * Reads the parts of the vocabulary asked for: the configuration (statuses, categories, revision scheme),
 * the labels in use, and the users who created or changed components plus the caller (one BatchGetItem).
 */
export async function loadVocabulary(scope: SearchScope, parts: ReadonlySet<VocabularyPart>, now = new Date()): Promise<Vocabulary> {
  const [config, terms] = await Promise.all([parts.has('config') ? scope.config() : undefined, parts.has('labels') || parts.has('users') ? scope.index.terms() : undefined]);
  const [users, vendors] = await Promise.all([
    parts.has('users') ? usersById(scope.store, [...new Set([scope.userId, ...(terms?.userIds ?? [])])]) : [],
    parts.has('manufacturers') ? listVendors(scope.store, scope.organizationId) : [],
  ]);
  return {
    statuses: (config?.statuses.statuses ?? []).map(({ id, name, mapsTo }) => ({ id, name, mapsTo })),
    categories: (config?.categories.categories ?? []).map(({ id, name, type }) => ({ id, name, type })),
    labels: terms?.labels ?? [],
    users: users.map(vocabularyUser),
    manufacturers: vendors.filter((v) => v.kind === 'MANUFACTURER').map(({ id, name, aliases }) => ({ id, name, aliases })),
    revisionScheme: config?.revisionScheme ?? defaultRevisionScheme,
    userId: scope.userId,
    now,
  };
}
