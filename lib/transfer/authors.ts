import type { Store } from '../store/client.js';
import { membersOrFormerMembers } from '../store/membership.js';
import type { TemplateRecord } from '../store/changeOrderTemplate.js';
import type { ExportedComponent, ExportedFile } from './format.js';

/**
 * The authors an export names (createdBy, updatedBy, history `by`, BOM and BOM snapshot authors, document
 * link and file creators, template creators) are user ids of the SOURCE organization. An import keeps an
 * author only when that user is, or was, a member of the TARGET organization (a library moved between an
 * organization and its sandbox, say); every other author becomes the importing user, who brought the data
 * in. So imported data never names another tenant's people, whose accounts a user reference would show
 * (createdBy { name primaryEmail }): the export file is the importer's to write, ids included. The source's
 * authorship is not kept as a string beside it: the history's times and actions stay as they were.
 */
export async function authorMapping(
  store: Store,
  organizationId: string,
  actorUserId: string,
  components: readonly ExportedComponent[],
  files: readonly ExportedFile[],
  templates: readonly TemplateRecord[],
): Promise<(userId: string) => string> {
  const named = new Set<string>();
  for (const c of components) {
    named.add(c.createdBy).add(c.updatedBy);
    for (const h of c.history) named.add(h.by);
    for (const bom of [...(c.bom ? [c.bom] : []), ...c.bomHistory]) {
      named.add(bom.updatedBy);
      for (const line of bom.lines) named.add(line.createdBy);
    }
    for (const link of c.documentLinks?.links ?? []) named.add(link.createdBy);
  }
  for (const f of files) named.add(f.createdBy);
  for (const t of templates) named.add(t.createdBy);
  named.delete(actorUserId);
  const kept = await membersOrFormerMembers(store, organizationId, [...named]);
  return (userId) => (userId === actorUserId || kept.has(userId) ? userId : actorUserId);
}

/** The components with their authors mapped (new objects; the export is left as it was). */
export function withAuthors(components: readonly ExportedComponent[], author: (userId: string) => string): ExportedComponent[] {
  const bomOf = <B extends { updatedBy: string; lines: { createdBy: string }[] }>(bom: B): B => ({
    ...bom,
    updatedBy: author(bom.updatedBy),
    lines: bom.lines.map((line) => ({ ...line, createdBy: author(line.createdBy) })),
  });
  return components.map((c) => ({
    ...c,
    createdBy: author(c.createdBy),
    updatedBy: author(c.updatedBy),
    history: c.history.map((h) => ({ ...h, by: author(h.by) })),
    bom: c.bom ? bomOf(c.bom) : null,
    bomHistory: c.bomHistory.map(bomOf),
    documentLinks: c.documentLinks ? { ...c.documentLinks, links: c.documentLinks.links.map((link) => ({ ...link, createdBy: author(link.createdBy) })) } : null,
  }));
}
