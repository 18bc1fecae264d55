/** The fixed vocabulary of the library configuration that stored records are checked against. */
export const categoryTypes = ['PART', 'ASSEMBLY', 'DOCUMENT'] as const;
export type CategoryType = (typeof categoryTypes)[number];

export const classifications = ['DESIGN', 'DEVELOPMENT', 'PRODUCTION', 'MAINTENANCE', 'OBSOLETE'] as const;
export type Classification = (typeof classifications)[number];
