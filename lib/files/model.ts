/** A stored file's metadata, as resolvers and GraphQL mappers see it. */
export type { FileRecord as StoredFile } from '../store/file.js';
