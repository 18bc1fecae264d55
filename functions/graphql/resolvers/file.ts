import { completeUpload, createUpload, findFile } from '../../../lib/files/files.js';
import type { PermissionName } from '../../../lib/access/permissions.js';
import type { GraphQLContext } from '../context.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { libraryScope } from './shared.js';

async function fileById(context: GraphQLContext, id: string | null | undefined) {
  if (!id) return null;
  return context.once(`file:${id}`, async () => {
    const file = await findFile(context.store, await libraryScope(context), id);
    if (!file) return null;
    // An export is its exporters' (readPermission): to anyone else it is not there, as a file of no library of theirs.
    if (file.readPermission && !(await mayRead(context, file.readPermission))) return null;
    return file;
  });
}

async function mayRead(context: GraphQLContext, permission: string): Promise<boolean> {
  const held = permission.startsWith('organization.') ? await context.access.organizationPermissions() : await context.access.libraryPermissions();
  return held.has(permission as PermissionName);
}

export const fileResolvers: Resolvers = {
  FileQueryNamespace: {
    findOne: (_parent, { id }, context) => fileById(context, id),
  },
  FileMutationNamespace: {
    createUpload: async (_parent, { input }, context) => createUpload(context.store, context.blobs(), await libraryScope(context), input),
    complete: async (_parent, { id }, context) => completeUpload(context.store, context.blobs(), await libraryScope(context), id),
  },
  FileUpload: {
    uploadUrl: (upload) => upload.upload.url,
    method: (upload) => upload.upload.method,
    headers: (upload) => upload.upload.headers,
    expiresAt: (upload) => upload.upload.expiresAt,
  },
  File: {
    downloadUrl: (file, _args, context) => (file.status === 'READY' ? context.blobs().downloadUrl(file.storageKey, file.name) : null),
  },
  Component: {
    file: (component, _args, context) => fileById(context, component.fileId),
    imageFile: (component, _args, context) => fileById(context, component.imageFileId),
  },
};
