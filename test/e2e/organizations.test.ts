import { execFile } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createCreationGrant, setPlan, verifyDomain } from '../../lib/orgs/operator.js';
import { getMembership } from '../../lib/store/membership.js';
import { newTenant, ok, stack, tenantHeaders, testStore } from '../support/api.js';
import { adminCli } from '../support/admin.js';
import { memberWithRole, refusal } from './accessHelpers.js';

const options = `query { user { me { canCreateOrg hasOrganizations } orgCreationOptions { canCreateProduction canCreateSandbox sandboxParents { organization { id name } sandboxLimit sandboxUsed sandboxRemaining } } } }`;
const create = `mutation($input: CreateOrganizationInput!) { organization { create(input: $input) { id name slug isSandbox parentOrganizationId plan archived entitlements { plan sandboxOrgs scim notRevisionManaged organizationCreation } } } }`;
const archive = `mutation($id: ID!) { organization { archiveSandboxOrganization(id: $id) { id archived isSandbox } } }`;

describe('organization creation', () => {
  it('a Site Admin of a production organization whose plan allows it may create one; others may not', async () => {
    const tenant = await newTenant();
    const admin = tenantHeaders(tenant);
    const standing = await ok(admin, options);
    expect(standing.user.me).toEqual({ canCreateOrg: true, hasOrganizations: true });
    expect(standing.user.orgCreationOptions).toEqual({
      canCreateProduction: true,
      canCreateSandbox: true,
      sandboxParents: [{ organization: { id: tenant.organization.id, name: `Org ${tenant.organization.slug}` }, sandboxLimit: 5, sandboxUsed: 0, sandboxRemaining: 5 }],
    });
    const created = (await ok(admin, create, { input: { name: `Spin-off ${randomUUID().slice(0, 6)}` } })).organization.create;
    expect(created).toMatchObject({ isSandbox: false, parentOrganizationId: null, plan: 'enterprise', archived: false });
    expect((await getMembership(testStore(), created.id, tenant.user.id))?.role).toBe('SITE_ADMIN');

    const editor = await memberWithRole(tenant, 'EDITOR');
    expect((await ok(editor.headers, options)).user).toEqual({
      me: { canCreateOrg: false, hasOrganizations: true },
      orgCreationOptions: { canCreateProduction: false, canCreateSandbox: false, sandboxParents: [] },
    });
    expect((await refusal(editor.headers, create, { input: { name: 'Nope' } })).code).toBe('ORG_CREATION_NOT_ALLOWED');
  });

  it('a creation grant lets its verified address create one organization, and is spent', async () => {
    const tenant = await newTenant({ plan: 'free' });
    const editor = await memberWithRole(tenant, 'EDITOR');
    // A Site Admin of a free-plan organization has no organizationCreation entitlement either.
    expect((await ok(tenantHeaders(tenant), options)).user.me.canCreateOrg).toBe(false);
    expect((await ok(editor.headers, options)).user.me.canCreateOrg).toBe(false);
    await createCreationGrant(testStore(), editor.email.toUpperCase());
    expect((await ok(editor.headers, options)).user.me.canCreateOrg).toBe(true);
    const slug = `granted-${randomUUID().slice(0, 8)}`;
    const created = (await ok(editor.headers, create, { input: { name: 'Granted Co', slug } })).organization.create;
    expect(created).toMatchObject({ slug, plan: 'free', isSandbox: false });
    expect((await ok(editor.headers, options)).user.me.canCreateOrg).toBe(false);
    expect((await refusal(editor.headers, create, { input: { name: 'Second try' } })).code).toBe('ORG_CREATION_NOT_ALLOWED');
    // Taken slugs are refused; derived slugs get a suffix instead.
    expect((await refusal(tenantHeaders(await newTenant()), create, { input: { name: 'Granted Co', slug } })).code).toBe('ALREADY_EXISTS');
  });
});

describe('sandboxes', () => {
  it('two concurrent creations against a parent with one slot left: exactly one succeeds', async () => {
    const tenant = await newTenant({ plan: 'team' });
    const admin = tenantHeaders(tenant);
    const attempts = await Promise.all([1, 2].map((n) => refusal(admin, create, { input: { name: `Sandbox ${n}`, parentOrganizationId: tenant.organization.id } })));
    const succeeded = attempts.filter((attempt) => !attempt.error);
    const refused = attempts.filter((attempt) => attempt.error);
    expect(succeeded).toHaveLength(1);
    expect(refused.map((attempt) => attempt.code)).toEqual(['SANDBOX_PARENT_FORBIDDEN']);
    const sandbox = succeeded[0]!.data.organization.create;
    expect(sandbox).toMatchObject({ isSandbox: true, parentOrganizationId: tenant.organization.id, plan: 'team', entitlements: { plan: 'team', sandboxOrgs: 1 } });
    expect((await ok(admin, options)).user.orgCreationOptions).toMatchObject({
      canCreateSandbox: false,
      sandboxParents: [{ sandboxLimit: 1, sandboxUsed: 1, sandboxRemaining: 0 }],
    });
    // A burst against a full quota gets nothing through.
    const burst = await Promise.all([1, 2, 3, 4].map((n) => refusal(admin, create, { input: { name: `Burst ${n}`, parentOrganizationId: tenant.organization.id } })));
    expect(burst.map((attempt) => attempt.code)).toEqual(Array(4).fill('SANDBOX_PARENT_FORBIDDEN'));

    // Archiving frees the slot: only non-archived sandboxes count.
    expect((await ok(admin, archive, { id: sandbox.id })).organization.archiveSandboxOrganization).toEqual({ id: sandbox.id, archived: true, isSandbox: true });
    expect((await refusal(admin, archive, { id: sandbox.id })).code).toBe('SANDBOX_ARCHIVE_FORBIDDEN');
    const again = await ok(admin, create, { input: { name: 'Sandbox 3', parentOrganizationId: tenant.organization.id } });
    expect(again.organization.create.isSandbox).toBe(true);
    const listed = await ok(admin, 'query { organization { sandboxes { id archived } } }');
    expect(listed.organization.sandboxes).toHaveLength(2);
  });

  it('refuses nesting, foreign parents, non-admins, and archiving what is not an administered sandbox', async () => {
    const tenant = await newTenant();
    const admin = tenantHeaders(tenant);
    const sandbox = (await ok(admin, create, { input: { name: 'Box', parentOrganizationId: tenant.organization.id } })).organization.create;
    const nested = await refusal(admin, create, { input: { name: 'Nested', parentOrganizationId: sandbox.id } });
    expect(nested.code).toBe('SANDBOX_PARENT_FORBIDDEN');
    const stranger = tenantHeaders(await newTenant());
    expect((await refusal(stranger, create, { input: { name: 'Foreign', parentOrganizationId: tenant.organization.id } })).code).toBe('SANDBOX_PARENT_FORBIDDEN');
    expect((await refusal(stranger, create, { input: { name: 'Ghost', parentOrganizationId: randomUUID() } })).code).toBe('SANDBOX_PARENT_FORBIDDEN');
    // An empty parent id is not "no parent": it names no organization (it used to create a production one).
    expect((await refusal(stranger, create, { input: { name: 'Empty parent', parentOrganizationId: '' } })).code).toBe('SANDBOX_PARENT_FORBIDDEN');
    expect((await refusal(stranger, create, { input: { name: 'Blank parent', parentOrganizationId: ' ' } })).code).toBe('SANDBOX_PARENT_FORBIDDEN');
    expect((await refusal(stranger, create, { input: { name: 'Empty slug', slug: '' } })).code).toBe('BAD_USER_INPUT');
    const editor = await memberWithRole(tenant, 'EDITOR');
    expect((await refusal(editor.headers, create, { input: { name: 'Editor box', parentOrganizationId: tenant.organization.id } })).code).toBe('SANDBOX_PARENT_FORBIDDEN');
    expect((await refusal(editor.headers, archive, { id: sandbox.id })).code).toBe('SANDBOX_ARCHIVE_FORBIDDEN');
    expect((await refusal(stranger, archive, { id: sandbox.id })).code).toBe('SANDBOX_ARCHIVE_FORBIDDEN');
    expect((await refusal(admin, archive, { id: tenant.organization.id })).code).toBe('SANDBOX_ARCHIVE_FORBIDDEN');
    // No creation grant was needed or spent: the editor, who has none, still cannot create production orgs.
    expect((await ok(editor.headers, options)).user.me.canCreateOrg).toBe(false);
  });

  it('a sandbox follows its parent plan', async () => {
    const tenant = await newTenant({ plan: 'team' });
    const admin = tenantHeaders(tenant);
    const sandbox = (await ok(admin, create, { input: { name: 'Plan box', parentOrganizationId: tenant.organization.id } })).organization.create;
    const result = await setPlan(testStore(), tenant.organization.slug, 'enterprise');
    expect(result.sandboxes).toEqual([sandbox.slug]);
    await expect(setPlan(testStore(), sandbox.slug, 'free')).rejects.toThrow(/parent/);
    const listed = await ok(admin, 'query { organization { current { plan entitlements { scim sandboxOrgs } } sandboxes { plan entitlements { scim } } } }');
    expect(listed.organization).toEqual({
      current: { plan: 'enterprise', entitlements: { scim: true, sandboxOrgs: 5 } },
      sandboxes: [{ plan: 'enterprise', entitlements: { scim: true } }],
    });
  });
});

describe('discovery by verified domain', () => {
  it("finds the organization that verified the domain of the caller's verified address, showing no more than that", async () => {
    const domain = `d${randomUUID().slice(0, 8)}.example.com`;
    const owner = await newTenant();
    await verifyDomain(testStore(), owner.organization.slug, domain);
    await expect(verifyDomain(testStore(), (await newTenant()).organization.slug, domain)).rejects.toMatchObject({ code: 'DOMAIN_TAKEN' });
    const elsewhere = await newTenant({ email: `someone@${domain}` });
    const found = await ok(tenantHeaders(elsewhere), 'query { organization { discoverByDomain { id name domains } } }');
    expect(found.organization.discoverByDomain).toEqual({ id: owner.organization.id, name: `Org ${owner.organization.slug}`, domains: [domain] });
    const peek = await refusal(tenantHeaders(elsewhere), 'query { organization { discoverByDomain { roles { id } } } }');
    expect(peek.code).toBe('FORBIDDEN');
    const none = await ok(tenantHeaders(await newTenant()), 'query { organization { discoverByDomain { id } } }');
    expect(none.organization.discoverByDomain).toBeNull();
  });
});

describe('operator commands', () => {
  const run = promisify(execFile);
  const admin = (...args: string[]) => adminCli(args);

  it('member add, plan set and grant create each print one JSON line', async () => {
    const tenant = await newTenant();
    const email = `cli-${randomUUID().slice(0, 8)}@example.com`;
    const added = await admin('member', 'add', '--org-slug', tenant.organization.slug, '--email', email, '--role', 'REVIEWER', '--api-key-library', tenant.library.slug);
    const lines = added.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const member = JSON.parse(lines[0]!);
    expect(member).toMatchObject({ user: { email, created: true }, role: { id: 'REVIEWER' }, library: { path: tenant.library.path } });
    const headers = { 'x-api-key': member.apiKey, 'x-organization': `@${tenant.organization.slug}`, 'x-library': tenant.library.path };
    expect((await ok(headers, 'query { user { me { user { primaryEmail } } } }')).user.me.user.primaryEmail).toBe(email);
    expect((await refusal(headers, 'mutation { component { create(inputs: [{ name: "x" }]) { id } } }')).code).toBe('FORBIDDEN');

    const plan = JSON.parse((await admin('plan', 'set', '--org-slug', tenant.organization.slug, '--plan', 'team')).stdout);
    expect(plan).toMatchObject({ plan: 'team', sandboxes: [] });
    const grant = JSON.parse((await admin('grant', 'create', '--email', email)).stdout);
    expect(grant.grant).toMatchObject({ email });
    await expect(admin('plan', 'set', '--org-slug', tenant.organization.slug, '--plan', 'platinum')).rejects.toMatchObject({ code: 2 });
  }, 60_000);

  it("the README's command, npm run -s admin -- …, prints exactly the one JSON line on stdout", async () => {
    const tenant = await newTenant();
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const { stdout } = await run(npm, ['run', '-s', 'admin', '--', 'plan', 'set', '--org-slug', tenant.organization.slug, '--plan', 'team'], {
      env: {
        ...process.env,
        NODE_NO_WARNINGS: '1',
        DYNAMODB_ENDPOINT: stack.dynamodbEndpoint,
        TABLE_NAME: stack.tableName,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
      },
    });
    const lines = stdout.trim().split('\n');
    expect(lines, stdout).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ plan: 'team' });
  }, 60_000);

  it('with nothing listening at the table endpoint: one line naming it and what to set, exit status 2, no stack trace', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as AddressInfo;
        server.close(() => resolve(free));
      });
    });
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_NO_WARNINGS: '1', DYNAMODB_PORT: String(port) };
    delete env.DYNAMODB_ENDPOINT;
    delete env.TABLE_NAME;
    const failed = (await run(process.execPath, ['--import', 'tsx', 'infra/admin/cli.ts', 'tenants', 'list'], { env }).then(
      () => undefined,
      (error: unknown) => error,
    )) as { code: number; stdout: string; stderr: string } | undefined;
    expect(failed).toBeDefined();
    expect(failed!.code).toBe(2);
    expect(failed!.stdout).toBe('');
    const lines = failed!.stderr.trim().split('\n');
    expect(lines, failed!.stderr).toHaveLength(1);
    expect(lines[0]).toContain(`http://127.0.0.1:${port}`);
    expect(lines[0]).toContain('ECONNREFUSED');
    expect(lines[0]).toContain('DYNAMODB_PORT');
  }, 60_000);
});
