/** Component write inputs as the domain receives them (GraphQL inputs mapped 1:1). */

/** `hasValue` false: the value key was absent (no-op); value null with hasValue: delete the attribute. */
export interface AttributeValueChange {
  attributeId: string;
  hasValue: boolean;
  value: unknown;
}

export interface CpnOverride {
  element: string;
  value: string;
}

export interface CreateComponentCommand {
  name: string;
  description?: string | null | undefined;
  categoryId?: string | null | undefined;
  statusId?: string | null | undefined;
  revisionValue?: string | null | undefined;
  eid?: string | null | undefined;
  attributeValues?: AttributeValueChange[] | null | undefined;
  fileId?: string | null | undefined;
  imageFileId?: string | null | undefined;
  documentFormats?: string[] | null | undefined;
  labels?: string[] | null | undefined;
  notRevisionManaged?: boolean | null | undefined;
  /** A complete CPN chosen by the caller (override or freeform, as the scheme allows). */
  cpn?: string | null | undefined;
  /** Values for individual CPN elements; the rest is generated. */
  cpnOverrides?: CpnOverride[] | null | undefined;
}

export interface UpdateComponentCommand {
  id: string;
  name?: string | null | undefined;
  description?: string | null | undefined;
  statusId?: string | null | undefined;
  revisionValue?: string | null | undefined;
  categoryId?: string | null | undefined;
  eid?: string | null | undefined;
  attributeValues?: AttributeValueChange[] | null | undefined;
  isArchived?: boolean | null | undefined;
  /** undefined: unchanged; null: cleared; list: replaces. */
  documentFormats?: string[] | null | undefined;
  labels?: string[] | null | undefined;
  notRevisionManaged?: boolean | null | undefined;
  fileId?: string | null | undefined;
  imageFileId?: string | null | undefined;
  expectedVersion?: number | null | undefined;
}
