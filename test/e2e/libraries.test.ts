import { beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, graphql, newTenant, tenantHeaders, type Tenant } from '../support/api.js';

const createLibrary = 'mutation($input: CreateLibraryInput!) { library { create(input: $input) { id name slug path description stats { componentCount partCount assemblyCount documentCount } } } }';

describe('libraries', () => {
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    [tenant, other] = await Promise.all([newTenant(), newTenant()]);
  });

  it('creates a library with empty stats and lists it beside the first, by name', async () => {
    const { library } = await gqlOk<{ library: { create: Record<string, unknown> } }>(tenant, createLibrary, {
      input: { name: 'Archive', slug: 'archive', description: 'Old parts' },
    });
    expect(library.create).toMatchObject({
      name: 'Archive',
      slug: 'archive',
      path: `@${tenant.organization.slug}/archive`,
      description: 'Old parts',
      stats: { componentCount: 0, partCount: 0, assemblyCount: 0, documentCount: 0 },
    });
    const { libraries } = await gqlOk<{ libraries: { slug: string }[] }>(tenant, '{ libraries { slug } }');
    expect(libraries.map((l) => l.slug)).toEqual(['archive', 'main']);
  });

  it('refuses a slug already used in the organization, and writes nothing', async () => {
    const response = await graphql(createLibrary, { input: { name: 'Main again', slug: 'main' } }, tenantHeaders(tenant));
    expect(response.body.errors?.[0]?.extensions?.code).toBe('ALREADY_EXISTS');
    const { libraries } = await gqlOk<{ libraries: { name: string }[] }>(tenant, '{ libraries { name } }');
    expect(libraries.map((l) => l.name)).not.toContain('Main again');
  });

  it('allows the same slug in another organization', async () => {
    const { library } = await gqlOk<{ library: { create: { slug: string } } }>(other, createLibrary, { input: { name: 'Archive', slug: 'archive' } });
    expect(library.create.slug).toBe('archive');
  });

  it('refuses an invalid slug with BAD_USER_INPUT', async () => {
    const response = await graphql(createLibrary, { input: { name: 'Bad', slug: 'Not A Slug' } }, tenantHeaders(tenant));
    expect(response.status).toBe(200);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('keeps each organization to its own libraries', async () => {
    const { libraries } = await gqlOk<{ libraries: { id: string }[] }>(other, '{ libraries { id } }');
    expect(libraries.map((l) => l.id)).not.toContain(tenant.library.id);
  });
});
