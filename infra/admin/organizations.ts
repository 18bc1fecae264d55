/** Operator commands of organizations and tenants: bootstrap, members, plans, creation grants, domains, the tenant list. */
import { randomUUID } from 'node:crypto';
import { bootstrapTenant } from '../../lib/orgs/bootstrap.js';
import { addMember, createCreationGrant, listTenants, setPlan, verifyDomain } from '../../lib/orgs/operator.js';
import { optionsOf, operatorTask, requireOptions, runCommand, text, type CommandHandlers } from './runCommand.js';

/**
 * Creates a tenant in one transaction. Its id is chosen first, so the audit entry lands in the new
 * organization's chain in that transaction; a refused bootstrap (a taken slug) is recorded in the operator's.
 */
async function bootstrap(args: string[]): Promise<void> {
  const values = optionsOf(args, {
    'org-name': { type: 'string' },
    'org-slug': { type: 'string' },
    'library-name': { type: 'string' },
    'library-slug': { type: 'string' },
    email: { type: 'string' },
    plan: { type: 'string' },
  });
  requireOptions(values, ['org-name', 'org-slug', 'library-name', 'library-slug', 'email']);
  const organizationId = randomUUID();
  // The slug is the new organization's: the entry is not filed under an organization that already holds it.
  const options = { organizationOfSlug: false };
  await runCommand(
    'bootstrap',
    values,
    async (store, operation) => {
      operation.organizationId = organizationId;
      operation.targets = [organizationId];
      try {
        return await bootstrapTenant(
          store,
          {
            orgName: text(values, 'org-name')!,
            orgSlug: text(values, 'org-slug')!,
            libraryName: text(values, 'library-name')!,
            librarySlug: text(values, 'library-slug')!,
            email: text(values, 'email')!,
            ...(text(values, 'plan') ? { plan: text(values, 'plan')! } : {}),
          },
          { organizationId },
        );
      } catch (error) {
        operation.organizationId = null;
        operation.targets = [];
        throw error;
      }
    },
    options,
  );
}

export const organizationCommands = {
  bootstrap,
  'member add': (args) =>
    operatorTask('member add', args, { required: ['org-slug', 'email', 'role'], optional: ['api-key-library', 'name'] }, (store, v) =>
      addMember(store, { orgSlug: v['org-slug']!, email: v.email!, role: v.role!, apiKeyLibrary: v['api-key-library'], name: v.name }),
    ),
  'plan set': (args) => operatorTask('plan set', args, { required: ['org-slug', 'plan'] }, (store, v) => setPlan(store, v['org-slug']!, v.plan!)),
  'grant create': (args) =>
    operatorTask('grant create', args, { required: ['email'], optional: ['expires-days'] }, (store, v) =>
      createCreationGrant(store, v.email!, v['expires-days'] === undefined ? 30 : Number(v['expires-days'])),
    ),
  'domain verify': (args) => operatorTask('domain verify', args, { required: ['org-slug', 'domain'] }, (store, v) => verifyDomain(store, v['org-slug']!, v.domain!)),
  'tenants list': (args) => operatorTask('tenants list', args, { required: [] }, (store) => listTenants(store)),
} satisfies CommandHandlers;
