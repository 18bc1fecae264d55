import * as z from 'zod';
import { classifications } from '../model/vocabulary.js';
import { documentRule, duplicateIds, entriesOf } from './documentRules.js';

/** The lifecycle classification every status maps to. */

export const configId = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be 1 to 64 lowercase letters, digits, hyphens or underscores, starting with a letter or digit');

export const statusDefinition = z
  .object({
    id: configId,
    name: z.string().trim().min(1).max(100),
    color: z.string().regex(/^#[0-9A-Fa-f]{6}$/, 'must be a #RRGGBB colour'),
    mapsTo: z.enum(classifications),
    /** The status of new components that name none. Exactly one status is the default. */
    isDefault: z.boolean().default(false),
    /** Archived statuses stay readable on existing components but cannot be set. */
    archived: z.boolean().default(false),
  })
  .strict();
export type StatusDefinition = z.infer<typeof statusDefinition>;

export const statusesDocument = z
  .object({ statuses: z.array(statusDefinition).min(1) })
  .strict()
  .check(
    documentRule((raw) => {
      const problems = duplicateIds(raw, 'statuses', 'status');
      const defaults = entriesOf(raw, 'statuses').filter(({ entry }) => entry.isDefault === true);
      if (defaults.length !== 1) problems.push({ path: ['statuses'], message: `exactly one status must have isDefault true (found ${defaults.length})` });
      if (defaults[0]?.entry.archived === true) problems.push({ path: ['statuses'], message: 'the default status cannot be archived' });
      return problems;
    }),
  );
export type StatusesDocument = z.infer<typeof statusesDocument>;

export const defaultStatuses: StatusesDocument = {
  statuses: [
    { id: 'design', name: 'Design', color: '#9E9E9E', mapsTo: 'DESIGN', isDefault: true, archived: false },
    { id: 'prototype', name: 'Prototype', color: '#2196F3', mapsTo: 'DEVELOPMENT', isDefault: false, archived: false },
    { id: 'production', name: 'Production', color: '#4CAF50', mapsTo: 'PRODUCTION', isDefault: false, archived: false },
    { id: 'maintenance', name: 'Maintenance', color: '#FF9800', mapsTo: 'MAINTENANCE', isDefault: false, archived: false },
    { id: 'obsolete', name: 'Obsolete', color: '#F44336', mapsTo: 'OBSOLETE', isDefault: false, archived: false },
  ],
};
