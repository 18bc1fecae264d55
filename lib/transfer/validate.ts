import { categoriesDocument, type CategoriesDocument, type CategoryDefinition } from '../config/categories.js';
import { cpnSchemeDocument, normalizeCpn, type CpnScheme } from '../config/cpnScheme.js';
import { revisionSchemeDocument, validateRevision, type RevisionScheme } from '../config/revisionScheme.js';
import { statusesDocument, type StatusesDocument } from '../config/statuses.js';
import type { ImportProblem } from '../errors.js';
import { validateAttributeValues } from '../components/attributeValidation.js';
import { findBomCycle, parseChildHistoryId } from '../items/bomRules.js';
import { storableNumberProblem } from '../numbers.js';
import type { Entitlements } from '../orgs/plans.js';
import type { ConfigType } from '../store/libraryConfig.js';
import type { ExportedComponent } from './format.js';

/** The configuration an import checks components against (the imported documents, or the target's own). */
export interface ImportConfiguration {
  revisionScheme: RevisionScheme;
  cpnScheme: CpnScheme;
  statuses: StatusesDocument;
  categories: CategoriesDocument;
}

/** Where each part of the input came from, so that every problem names its file and row or JSON path. */
export interface Locations {
  component(index: number): string;
  line(componentIndex: number, lineIndex: number): string;
}

export const jsonLocations = (root: string): Locations => ({
  component: (i) => `${root}[${i}]`,
  line: (i, j) => `${root}[${i}].bom.lines[${j}]`,
});

const schemas = { REVISION_SCHEME: revisionSchemeDocument, CPN_SCHEME: cpnSchemeDocument, STATUSES: statusesDocument, CATEGORIES: categoriesDocument } as const;

/** Validates the four documents with the configuration's own schemas; problems name `configuration.<TYPE>.<path>`. */
export function parseImportConfiguration(documents: Record<ConfigType, unknown>, path: string, problems: ImportProblem[]): ImportConfiguration | undefined {
  const parsed: Partial<Record<ConfigType, unknown>> = {};
  for (const type of Object.keys(schemas) as ConfigType[]) {
    const result = schemas[type].safeParse(documents[type]);
    if (result.success) parsed[type] = result.data;
    else
      for (const issue of result.error.issues)
        problems.push({ path: `${path}.${type}${issue.path.length ? `.${issue.path.map(String).join('.')}` : ''}`, code: 'CONFIG_INVALID', message: issue.message });
  }
  if (Object.keys(parsed).length < 4) return undefined;
  return {
    revisionScheme: parsed.REVISION_SCHEME as RevisionScheme,
    cpnScheme: parsed.CPN_SCHEME as CpnScheme,
    statuses: parsed.STATUSES as StatusesDocument,
    categories: parsed.CATEGORIES as CategoriesDocument,
  };
}

const limits = { cpn: 255, name: 255, description: 10_000, eid: 255, label: 50, labels: 50, documentFormat: 50, documentFormats: 20, refDes: 2000, itemNumber: 50, notes: 2000 };

/**
 * Values of archived attributes were valid when set and stay with their components: the import checks
 * them against the attribute's type and bounds, but neither refuses nor requires them.
 */
function asStored(category: CategoryDefinition): CategoryDefinition {
  return { ...category, attributes: category.attributes.map((a) => (a.archived ? { ...a, archived: false, required: false } : a)) };
}

/**
 * Every problem of the input, checked as the component and item writes check theirs (configuration
 * documents, categories and statuses, revisions against the scheme, attribute values against the category,
 * Not Revision Managed rules and the plan, CPN uniqueness, BOM lines, children and cycles, document links,
 * history sequences). Nothing is read or written: the caller refuses the import when the list is not empty.
 */
export function validateComponents(components: ExportedComponent[], config: ImportConfiguration, entitlements: Entitlements, at: Locations): ImportProblem[] {
  const problems: ImportProblem[] = [];
  const problem = (path: string, code: string, message: string) => problems.push({ path, code, message });
  const byId = new Map<string, ExportedComponent>();
  const cpnFirst = new Map<string, number>();
  const categories = new Map(config.categories.categories.map((c) => [c.id, c]));
  const statuses = new Map(config.statuses.statuses.map((s) => [s.id, s]));

  for (const [i, c] of components.entries()) {
    const where = at.component(i);
    if (byId.has(c.id)) problem(`${where}.id`, 'DUPLICATE_ID', `id ${c.id} appears twice`);
    byId.set(c.id, c);
    if (c.cpn.trim() === '' || c.cpn.length > limits.cpn || c.cpn.trim() !== c.cpn)
      problem(`${where}.cpn`, 'CPN_INVALID', `a CPN must be 1 to ${limits.cpn} characters without surrounding spaces (got "${c.cpn}")`);
    else {
      const key = normalizeCpn(config.cpnScheme, c.cpn);
      const first = cpnFirst.get(key);
      if (first !== undefined) problem(`${where}.cpn`, 'DUPLICATE_CPN', `CPN "${c.cpn}" is also the CPN of ${at.component(first)}`);
      else cpnFirst.set(key, i);
    }
    if (c.name.trim() === '' || c.name.trim() !== c.name || c.name.length > limits.name)
      problem(`${where}.name`, 'BAD_USER_INPUT', `name must be 1 to ${limits.name} characters without surrounding spaces`);
    if ((c.description?.length ?? 0) > limits.description) problem(`${where}.description`, 'BAD_USER_INPUT', `description must be at most ${limits.description} characters`);
    if ((c.eid?.length ?? 0) > limits.eid) problem(`${where}.eid`, 'BAD_USER_INPUT', `eid must be at most ${limits.eid} characters`);
    if (c.labels.length > limits.labels || c.labels.some((l) => l.trim() === '' || l.length > limits.label))
      problem(`${where}.labels`, 'BAD_USER_INPUT', `at most ${limits.labels} labels of 1 to ${limits.label} characters`);
    if (c.documentFormats && (c.documentFormats.length > limits.documentFormats || c.documentFormats.some((f) => f.trim() === '' || f.length > limits.documentFormat))) {
      problem(`${where}.documentFormats`, 'BAD_USER_INPUT', `at most ${limits.documentFormats} document formats of 1 to ${limits.documentFormat} characters`);
    }

    const category = categories.get(c.categoryId);
    const status = statuses.get(c.statusId);
    if (!category) problem(`${where}.category`, 'CATEGORY_NOT_FOUND', `category "${c.categoryId}" does not exist in the library configuration`);
    if (!status) problem(`${where}.status`, 'STATUS_NOT_FOUND', `status "${c.statusId}" does not exist in the library configuration`);
    if (status) {
      const revisionProblem = validateRevision(config.revisionScheme, c.revisionValue, status.mapsTo);
      if (revisionProblem) problem(`${where}.revision`, 'INVALID_REVISION', revisionProblem);
    }
    if (category) {
      for (const error of validateAttributeValues(asStored(category), c.attributeValues)) problem(`${where}.attr:${error.attributeId}`, 'ATTRIBUTE_VALIDATION_FAILED', error.message);
    }
    if (c.notRevisionManaged) {
      if (!entitlements.notRevisionManaged) problem(`${where}.notRevisionManaged`, 'FEATURE_NOT_IN_PLAN', "the organization's plan does not include Not Revision Managed components");
      if (category?.type === 'ASSEMBLY') problem(`${where}.notRevisionManaged`, 'NRM_NOT_ALLOWED', 'Not Revision Managed applies only to parts and documents');
      if (status?.mapsTo === 'OBSOLETE') problem(`${where}.notRevisionManaged`, 'NRM_NOT_ALLOWED_ON_OBSOLETE', 'an OBSOLETE component cannot be Not Revision Managed');
      else if (status && status.mapsTo !== 'PRODUCTION')
        problem(`${where}.notRevisionManaged`, 'NRM_REQUIRES_PRODUCTION_STATUS', `a Not Revision Managed component is held at a production status; "${status.name}" maps to ${status.mapsTo}`);
    }
    const versions = c.history.map((h) => h.version);
    if (versions.length !== c.version || versions.some((v, k) => v !== k + 1) || c.history[0]?.action !== 'CREATE') {
      problem(`${where}.history`, 'HISTORY_INVALID', `the history must hold versions 1 to ${c.version} in order, the first a CREATE (got ${versions.join(', ') || 'none'})`);
    }
  }

  // Relations, once every component is known.
  const childrenOf = new Map<string, string[]>();
  for (const [i, c] of components.entries()) {
    const lines = c.bom?.lines ?? [];
    if (lines.length > 0 && categories.get(c.categoryId) && categories.get(c.categoryId)!.type !== 'ASSEMBLY') {
      problem(`${at.component(i)}.bom`, 'NOT_AN_ASSEMBLY', `only assemblies have children; ${c.cpn} is a ${categories.get(c.categoryId)!.type}`);
    }
    const lineIds = new Set<string>();
    for (const [j, line] of lines.entries()) {
      const where = at.line(i, j);
      if (lineIds.has(line.lineId)) problem(where, 'INVALID_BOM_LINE', `line id ${line.lineId} appears twice in this BOM`);
      lineIds.add(line.lineId);
      const child = byId.get(line.childId);
      if (!child) {
        problem(where, 'CHILD_NOT_FOUND', `the child ${line.childId.replace(/^cpn:/, '')} is not a component of the import`);
        continue;
      }
      const quantityProblem = line.quantity === null ? null : line.quantity <= 0 ? `must be a positive number (got ${line.quantity})` : storableNumberProblem(line.quantity);
      if (quantityProblem) problem(where, 'INVALID_BOM_LINE', `quantity ${quantityProblem}`);
      if ((line.refDes?.length ?? 0) > limits.refDes) problem(where, 'INVALID_BOM_LINE', `refDes must be at most ${limits.refDes} characters`);
      if ((line.itemNumber?.length ?? 0) > limits.itemNumber) problem(where, 'INVALID_BOM_LINE', `itemNumber must be at most ${limits.itemNumber} characters`);
      if ((line.notes?.length ?? 0) > limits.notes) problem(where, 'INVALID_BOM_LINE', `notes must be at most ${limits.notes} characters`);
      for (const substitute of line.substitutes ?? []) {
        if (!byId.has(substitute)) problem(where, 'CHILD_NOT_FOUND', `the substitute ${substitute.replace(/^cpn:/, '')} is not a component of the import`);
      }
      if (line.childHistoryId !== null) {
        const pinned = parseChildHistoryId(line.childHistoryId);
        if (!pinned || pinned.childId !== child.id.toLowerCase() || pinned.version > child.version) {
          problem(where, 'INVALID_BOM_LINE', `childHistoryId ${line.childHistoryId} is not a version of ${child.cpn} (versions 1 to ${child.version})`);
        }
      }
    }
    if (lines.length > 0) childrenOf.set(c.id, [...new Set(lines.flatMap((l) => [l.childId, ...(l.substitutes ?? [])]).filter((id) => byId.has(id)))]);
    for (const [j, link] of (c.documentLinks?.links ?? []).entries()) {
      const document = byId.get(link.documentId);
      if (!document) problem(`${at.component(i)}.documents[${j}]`, 'DOCUMENT_NOT_FOUND', `the document ${link.documentId.replace(/^cpn:/, '')} is not a component of the import`);
      else if (categories.get(document.categoryId) && categories.get(document.categoryId)!.type !== 'DOCUMENT') {
        problem(`${at.component(i)}.documents[${j}]`, 'NOT_A_DOCUMENT', `${document.cpn} is a ${categories.get(document.categoryId)!.type}, not a document`);
      }
    }
  }
  return problems;
}

/** Every BOM cycle, one problem each (the assemblies named by CPN); the graph is the whole import. */
export async function bomCycleProblems(components: ExportedComponent[], at: Locations): Promise<ImportProblem[]> {
  const index = new Map(components.map((c, i) => [c.id, i]));
  const children = new Map(components.filter((c) => (c.bom?.lines.length ?? 0) > 0).map((c) => [c.id, [...new Set(c.bom!.lines.map((l) => l.childId).filter((id) => index.has(id)))]]));
  const problems: ImportProblem[] = [];
  const reported = new Set<string>();
  // findBomCycle reports one cycle; take its assemblies out of the graph and look again, until none is left.
  for (;;) {
    const cycle = await findBomCycle(children, async () => new Map());
    if (!cycle) return problems;
    const key = [...new Set(cycle)].sort().join(',');
    if (reported.has(key)) return problems;
    reported.add(key);
    const first = index.get(cycle[0]!)!;
    problems.push({ path: `${at.component(first)}.bom`, code: 'BOM_CYCLE', message: `the BOM contains its own assembly: ${cycle.map((id) => components[index.get(id)!]!.cpn).join(' > ')}` });
    for (const id of cycle) children.delete(id);
  }
}
