import * as z from 'zod';
import type { Store } from './client.js';
import { queryPrefix } from './items.js';
import { libraryPartition } from './library.js';

/** A library's change order templates (the two defaults live in code: lib/changeOrders/defaults.ts). */
export const templateKey = (orgId: string, libraryId: string, templateId: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `COTPL#${templateId}` });
/** Template names are unique in their library (case-insensitive). */
export const templateNameKey = (orgId: string, libraryId: string, name: string) => ({ PK: libraryPartition(orgId, libraryId), SK: `COTPLNAME#${name.trim().toLowerCase()}` });

export const templateRecord = z.object({
  id: z.string(),
  organizationId: z.string().uuid(),
  libraryId: z.string().uuid(),
  name: z.string(),
  /** The validated document, participants resolved to user ids. */
  document: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  createdBy: z.string(),
});
export type TemplateRecord = z.infer<typeof templateRecord>;

export function templatePuts(record: TemplateRecord) {
  return [
    { Put: { Item: { ...templateKey(record.organizationId, record.libraryId, record.id), entity: 'ChangeOrderTemplate', ...record }, ConditionExpression: 'attribute_not_exists(PK)' } },
    {
      Put: {
        Item: { ...templateNameKey(record.organizationId, record.libraryId, record.name), entity: 'ChangeOrderTemplateName', templateId: record.id },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ];
}

export function listTemplates(store: Store, orgId: string, libraryId: string): Promise<TemplateRecord[]> {
  return queryPrefix(store, libraryPartition(orgId, libraryId), 'COTPL#', templateRecord, 'change order template');
}

/**
 * A template and its name item as a library import writes them (BatchWriteItem into a closed library, no
 * conditions: the import checked the names), tagged with the import's id so that an abandoned import
 * deletes its own and never the library's other templates.
 */
export function importedTemplateItems(record: TemplateRecord, importId: string) {
  return [
    { ...templateKey(record.organizationId, record.libraryId, record.id), entity: 'ChangeOrderTemplate', ...record, importId },
    { ...templateNameKey(record.organizationId, record.libraryId, record.name), entity: 'ChangeOrderTemplateName', templateId: record.id, importId },
  ];
}
