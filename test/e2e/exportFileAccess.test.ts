import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, tenantHeaders, type Tenant } from '../support/api.js';
import { memberWithRole, ok, refusal, type Member } from './accessHelpers.js';

/**
 * An export (the audit log, a whole library) is a file of the library's file store, but it is its exporters':
 * a reader with components.read who learns its id (a demoted administrator, say) neither finds it with
 * file.findOne nor has an editor attach it to a component that every reader downloads.
 */
const fileQuery = 'query($id: ID!) { file { findOne(id: $id) { id downloadUrl } } }';

let tenant: Tenant;
let admin: Record<string, string>;
let viewer: Member;
let editor: Member;

beforeAll(async () => {
  tenant = await newTenant();
  admin = tenantHeaders(tenant);
  [viewer, editor] = await Promise.all([memberWithRole(tenant, 'VIEWER'), memberWithRole(tenant, 'EDITOR')]);
});

describe('export files', () => {
  it("are not found by a reader without the export's permission, nor attachable to a component", async () => {
    const library = (await ok(admin, 'mutation { transfer { exportLibrary { files { id } } } }')).transfer.exportLibrary.files[0].id as string;
    const audit = (await ok(admin, 'mutation { transfer { exportAuditLog { id } } }')).transfer.exportAuditLog.id as string;
    for (const id of [audit, library]) {
      expect((await ok(admin, fileQuery, { id })).file.findOne).toMatchObject({ id });
      expect((await ok(viewer.headers, fileQuery, { id })).file.findOne).toBeNull();
      expect((await ok(editor.headers, fileQuery, { id })).file.findOne).toBeNull();
    }
    const attach = await refusal(editor.headers, 'mutation($inputs: [CreateComponentInput!]!) { component { create(inputs: $inputs) { id } } }', {
      inputs: [{ name: 'Carrier', categoryId: 'mechanical', fileId: audit }],
    });
    expect(attach.code).toBe('FILE_NOT_FOUND');
  });
});
