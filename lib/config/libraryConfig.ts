import type { AccessPolicy } from '../model/attributeAccess.js';
import type * as z from 'zod';
import { ConfigVersionConflictError } from '../errors.js';
import { ConfigInvalidError } from './errors.js';

import type { Store } from '../store/client.js';
import { configTypes, getLibraryConfigs, libraryConfigPut, putLibraryConfigVersion, type ConfigType, type LibraryConfigRecord } from '../store/libraryConfig.js';

import { libraryHasCpns } from '../store/cpn.js';

import { entriesOf } from './documentRules.js';

import { categoriesDocument, defaultCategories, type CategoriesDocument, type CategoryDefinition } from './categories.js';

import { cpnSchemeDocument, defaultCpnScheme, type CpnScheme } from './cpnScheme.js';

import { defaultRevisionScheme, revisionSchemeDocument, type RevisionScheme } from './revisionScheme.js';

import { defaultStatuses, statusesDocument, type StatusDefinition, type StatusesDocument } from './statuses.js';

/** The validated configuration of one library, as every component write and read uses it. */
export interface LibraryConfiguration {
  revisionScheme: RevisionScheme;
  cpnScheme: CpnScheme;
  statuses: StatusesDocument;
  categories: CategoriesDocument;
  records: Record<ConfigType, LibraryConfigRecord>;
  /** Documents present in the table (libraries are seeded at creation; the others read as defaults). */
  stored: ReadonlySet<ConfigType>;
  /** The library's attribute access policy (lib/model/attributeAccess.ts), read with the documents. */
  accessPolicy: AccessPolicy;
}

const documentSchemas: Record<ConfigType, z.ZodType> = {
  REVISION_SCHEME: revisionSchemeDocument,
  CPN_SCHEME: cpnSchemeDocument,
  STATUSES: statusesDocument,
  CATEGORIES: categoriesDocument,
};

const defaultDocuments: Record<ConfigType, object> = {
  REVISION_SCHEME: defaultRevisionScheme,
  CPN_SCHEME: defaultCpnScheme,
  STATUSES: defaultStatuses,
  CATEGORIES: defaultCategories,
};

export interface ConfigProblem {
  path: string;
  message: string;
}

function newRecord(type: ConfigType, document: object, version: number, by: string, at: string, synced: boolean): LibraryConfigRecord {
  return {
    type,
    version,
    document: document as Record<string, unknown>,
    updatedAt: at,
    updatedBy: by,
    syncStatus: synced ? 'SYNCED' : 'PENDING',
    syncedVersion: synced ? version : version - 1,
    syncUpdatedAt: at,
    syncComponentsUpdated: 0,
    syncError: null,
  };
}

/** The four default documents, written in the transaction that creates a library. */
export function seedLibraryConfigPuts(orgId: string, libraryId: string, by: string, at: string) {
  return configTypes.map((type) => libraryConfigPut(orgId, libraryId, newRecord(type, defaultDocuments[type], 1, by, at, true)));
}

function parseDocument<T>(type: ConfigType, document: unknown): T {
  const parsed = documentSchemas[type].safeParse(document);
  if (!parsed.success) {
    throw new ConfigInvalidError(
      type,
      parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message })),
    );
  }
  return parsed.data as T;
}

/** Reads (one BatchGetItem) and validates a library's configuration; absent documents are the defaults. */
export async function loadLibraryConfiguration(store: Store, orgId: string, libraryId: string): Promise<LibraryConfiguration> {
  const { configs: stored, accessPolicy } = await getLibraryConfigs(store, orgId, libraryId);
  const records = Object.fromEntries(configTypes.map((type) => [type, stored[type] ?? newRecord(type, defaultDocuments[type], 1, 'system', new Date(0).toISOString(), true)])) as Record<
    ConfigType,
    LibraryConfigRecord
  >;
  return {
    revisionScheme: parseDocument<RevisionScheme>('REVISION_SCHEME', records.REVISION_SCHEME.document),
    cpnScheme: parseDocument<CpnScheme>('CPN_SCHEME', records.CPN_SCHEME.document),
    statuses: parseDocument<StatusesDocument>('STATUSES', records.STATUSES.document),
    categories: parseDocument<CategoriesDocument>('CATEGORIES', records.CATEGORIES.document),
    records,
    stored: new Set(configTypes.filter((type) => stored[type])),
    accessPolicy,
  };
}

/**
 * Identifiers are permanent: a status, category or attribute that existed may be archived but not removed,
 * a category keeps its type (components refer to them), and CPN case sensitivity is fixed once CPNs exist
 * (their uniqueness claims are keyed by the normalized CPN). Reads the raw document, so these problems are
 * listed together with the schema's.
 */
function permanenceProblems(type: ConfigType, previous: LibraryConfiguration, raw: unknown, libraryHasCpns: boolean): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (type === 'STATUSES') {
    const ids = new Set(entriesOf(raw, 'statuses').map(({ entry }) => entry.id));
    for (const status of previous.statuses.statuses) {
      if (!ids.has(status.id)) problems.push({ path: 'statuses', message: `status "${status.id}" cannot be removed; set archived: true instead` });
    }
  }
  if (type === 'CATEGORIES') {
    const byId = new Map(entriesOf(raw, 'categories').map(({ entry }) => [entry.id, entry]));
    for (const category of previous.categories.categories) {
      const replacement = byId.get(category.id);
      if (!replacement) {
        problems.push({ path: 'categories', message: `category "${category.id}" cannot be removed; set archived: true instead` });
        continue;
      }
      if (replacement.type !== category.type) {
        problems.push({ path: `categories.${category.id}.type`, message: `category "${category.id}" is a ${category.type} and cannot become a ${String(replacement.type)}` });
      }
      const attributeIds = new Set(entriesOf(replacement, 'attributes').map(({ entry }) => entry.id));
      for (const attribute of category.attributes) {
        if (!attributeIds.has(attribute.id)) {
          problems.push({ path: `categories.${category.id}.attributes`, message: `attribute "${attribute.id}" cannot be removed; set archived: true instead` });
        }
      }
    }
  }
  if (type === 'CPN_SCHEME' && libraryHasCpns) {
    const next = (raw as { settings?: { case_sensitive?: unknown } } | null)?.settings?.case_sensitive;
    if (typeof next === 'boolean' && next !== previous.cpnScheme.settings.case_sensitive) {
      problems.push({ path: 'settings.case_sensitive', message: 'case_sensitive cannot change once the library has CPNs (their uniqueness depends on it)' });
    }
  }
  return problems;
}

function validateForWrite<T>(type: ConfigType, document: unknown, previous: LibraryConfiguration, libraryHasCpns: boolean): T {
  const parsed = documentSchemas[type].safeParse(document);
  const problems: ConfigProblem[] = parsed.success ? [] : parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
  problems.push(...permanenceProblems(type, previous, document, libraryHasCpns));
  if (problems.length > 0 || !parsed.success) throw new ConfigInvalidError(type, problems);
  return parsed.data as T;
}

/**
 * Stores a new version of one configuration document after validating it completely. expectedVersion,
 * when given, must be the stored version; without it a concurrent write is retried on the newer version.
 * Returns the new record; components are synced by the caller.
 */
export async function writeLibraryConfig(
  store: Store,
  orgId: string,
  libraryId: string,
  type: ConfigType,
  document: unknown,
  expectedVersion: number | null | undefined,
  userId: string,
): Promise<LibraryConfigRecord> {
  const pinned = expectedVersion !== undefined && expectedVersion !== null;
  for (let attempt = 0; ; attempt += 1) {
    const current = await loadLibraryConfiguration(store, orgId, libraryId);
    const previous = current.records[type];
    if (pinned && expectedVersion !== previous.version) throw new ConfigVersionConflictError(type, expectedVersion, previous.version);
    const hasCpns = type === 'CPN_SCHEME' && (await libraryHasCpns(store, orgId, libraryId));
    const parsed = validateForWrite<object>(type, document, current, hasCpns);
    const needsSync = type === 'STATUSES' || type === 'CATEGORIES';
    const record = newRecord(type, parsed, previous.version + 1, userId, new Date().toISOString(), !needsSync);
    try {
      await putLibraryConfigVersion(store, orgId, libraryId, record, current.stored.has(type) ? previous.version : null);
      return record;
    } catch (error) {
      // An unpinned write re-applies on the version that won; a pinned one reports it.
      if (!(error instanceof ConfigVersionConflictError) || pinned || attempt >= 4) throw error;
    }
  }
}

export function findStatus(config: LibraryConfiguration, statusId: string): StatusDefinition | undefined {
  return config.statuses.statuses.find((s) => s.id === statusId);
}

export function defaultStatus(config: LibraryConfiguration): StatusDefinition {
  return config.statuses.statuses.find((s) => s.isDefault)!;
}

export function findCategory(config: LibraryConfiguration, categoryId: string): CategoryDefinition | undefined {
  return config.categories.categories.find((c) => c.id === categoryId);
}
