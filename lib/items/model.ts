/** The BOM and document-link types, as resolvers and GraphQL mappers see them. */
export type { BomLine, BomSnapshotRecord as BomSnapshot, DocumentLinkRecord as DocumentLink } from '../store/bom.js';
