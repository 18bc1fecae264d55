import { elementsByName, normalizeCpn, parseCpn, renderCpn, validateFreeformCpn, type CpnElement } from '../config/cpnScheme.js';
import { findCategory, type LibraryConfiguration } from '../config/libraryConfig.js';
import type { Store } from '../store/client.js';
import { getComponent } from '../store/component.js';
import { isCpnTaken, listCpns } from '../store/cpn.js';
import type { CpnOverride } from './commands.js';
import { repeatedOverrideElements } from './cpn.js';
import { ComponentNotFoundError, InvalidInputError } from '../errors.js';
import { presentId } from '../input.js';

export interface IdentifierScope {
  store: Store;
  organizationId: string;
  libraryId: string;
  config: LibraryConfiguration;
}

export interface ValidateOverrideResponse {
  displayValue: string;
  isDeterministic: boolean;
  /** Meaningful only when isDeterministic (spec rule 8); false otherwise. */
  isUnique: boolean;
  errors: { element: string; message: string }[];
}

async function uniqueIn(scope: IdentifierScope, cpn: string, componentId: string | null | undefined): Promise<boolean> {
  const claim = await isCpnTaken(scope.store, scope.organizationId, scope.libraryId, normalizeCpn(scope.config.cpnScheme, cpn));
  return !claim.taken || (!!componentId && claim.componentId === componentId);
}

async function categoryPrefixOf(scope: IdentifierScope, componentId: string | null | undefined): Promise<string | undefined> {
  // The component a preview concerns: absent (null or omitted), or a component id; "" is malformed, not absent.
  if (!presentId(componentId, 'componentId')) return undefined;
  const component = await getComponent(scope.store, scope.organizationId, scope.libraryId, componentId);
  if (!component) throw new ComponentNotFoundError(componentId);
  return findCategory(scope.config, component.categoryId)?.prefix ?? component.category.prefix;
}

/**
 * Previews the CPN that these element values give. Unresolved counters render as X characters, so the
 * preview is deterministic only when every element was supplied; uniqueness is checked only then.
 */
export async function validateCompleteOverride(scope: IdentifierScope, overrides: CpnOverride[], componentId?: string | null): Promise<ValidateOverrideResponse> {
  const rendered = renderCpn(scope.config.cpnScheme, {
    categoryPrefix: await categoryPrefixOf(scope, componentId),
    overrides: Object.fromEntries(overrides.map((o) => [o.element, o.value])),
  });
  // As create refuses them: an element given twice is an error of the preview.
  const errors = [...repeatedOverrideElements(overrides), ...rendered.errors];
  const isUnique = rendered.isDeterministic && errors.length === 0 ? await uniqueIn(scope, rendered.displayValue, componentId) : false;
  return { displayValue: rendered.displayValue, isDeterministic: rendered.isDeterministic, isUnique, errors };
}

/** Checks each supplied element value on its own. */
export function validateOverrides(scope: IdentifierScope, overrides: CpnOverride[]) {
  const rendered = renderCpn(scope.config.cpnScheme, { overrides: Object.fromEntries(overrides.map((o) => [o.element, o.value])) });
  const errors = [...repeatedOverrideElements(overrides), ...rendered.errors];
  return { success: errors.length === 0, errors };
}

export async function validateFreeformOverride(scope: IdentifierScope, value: string, componentId?: string | null) {
  presentId(componentId, 'componentId');
  const problem = validateFreeformCpn(scope.config.cpnScheme, value);
  if (problem) return { success: false, message: problem, isUnique: false };
  const isUnique = await uniqueIn(scope, value.trim(), componentId);
  return { success: isUnique, message: isUnique ? null : `CPN "${value.trim()}" is already used in this library`, isUnique };
}

export function overridePermissions(config: LibraryConfiguration, canUpdate: boolean) {
  const { settings } = config.cpnScheme;
  return {
    allowOverride: settings.allow_override,
    allowFreeform: settings.allow_freeform,
    caseSensitive: settings.case_sensitive,
    canOverride: canUpdate && settings.allow_override,
    canUseFreeform: canUpdate && settings.allow_freeform,
  };
}

export interface GroupInstance {
  values: { element: string; value: string }[];
  displayValue: string;
  usageCount: number;
}

/**
 * The instances of a reusable CPN group already in use in the library: the distinct value combinations
 * of the group's elements across existing CPNs, filtered by element values, most used first.
 */
export async function reusableGroupInstances(scope: IdentifierScope, configId: string, groupName: string, filters: { element: string; value: string }[]): Promise<GroupInstance[]> {
  if (configId !== 'CPN_SCHEME') throw new InvalidInputError(`configId must be CPN_SCHEME (got "${configId}")`, { field: 'configId' });
  const scheme = scope.config.cpnScheme;
  const group = elementsByName(scheme).get(groupName);
  if (!group || group.type !== 'GROUP') throw new InvalidInputError(`The CPN scheme has no group "${groupName}"`, { field: 'groupName' });
  const names = group.elements.map((e: CpnElement) => e.name);
  const counts = new Map<string, GroupInstance>();
  for (const { cpn } of await listCpns(scope.store, scope.organizationId, scope.libraryId)) {
    const values = parseCpn(scheme, cpn);
    if (!values || !names.every((n) => values[n] !== undefined)) continue;
    if (!filters.every((f) => values[f.element] === f.value)) continue;
    const instance = names.map((element) => ({ element, value: values[element]! }));
    const displayValue = instance.map((v) => v.value).join(scheme.delimiter);
    const entry = counts.get(displayValue) ?? { values: instance, displayValue, usageCount: 0 };
    entry.usageCount += 1;
    counts.set(displayValue, entry);
  }
  return [...counts.values()].sort((a, b) => b.usageCount - a.usageCount || a.displayValue.localeCompare(b.displayValue));
}
