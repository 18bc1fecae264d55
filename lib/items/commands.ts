import type { CreateComponentCommand, UpdateComponentCommand } from '../components/commands.js';

/** One line of a desired-state BOM (ComponentChildInput). */
export interface ChildCommand {
  childId: string;
  quantity?: number | null;
  refDes?: string | null;
  itemNumber?: string | null;
  notes?: string | null;
  /** `<childId>:<version>` (ComponentHistoryEntry.id); null or omitted follows the latest. */
  childHistoryId?: string | null;
  /**
   * Ranked substitutes of the child, valid in this assembly only (first = preferred): component ids of the
   * library, each checked, counted and indexed (where-used, cycles) like a child.
   */
  substitutes?: string[] | null;
}

/** A document to create from an uploaded file and link (ComponentDocumentInput). */
export interface DocumentCommand {
  fileId: string;
  name: string;
  categoryId?: string | null;
}

export interface RelationCommands {
  /** Desired state of the direct children: omitted unchanged, [] unlinks all. */
  children?: ChildCommand[] | null;
  documents?: DocumentCommand[] | null;
  documentComponentIds?: string[] | null;
}

export type CreateItemCommand = CreateComponentCommand & RelationCommands;
export type UpdateItemCommand = UpdateComponentCommand & RelationCommands & { removeDocumentLinkIds?: string[] | null };
