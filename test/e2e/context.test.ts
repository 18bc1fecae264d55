import { beforeAll, describe, expect, it } from 'vitest';
import { graphql, newTenant, tenantHeaders, type Tenant } from '../support/api.js';

const librariesQuery = '{ libraries { id slug name path } }';

describe('request context: credential, x-organization and x-library', () => {
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    [tenant, other] = await Promise.all([newTenant(), newTenant()]);
  });

  it('lists the library with the headers given as slugs', async () => {
    const response = await graphql(librariesQuery, undefined, tenantHeaders(tenant));
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ libraries: [{ id: tenant.library.id, slug: 'main', name: 'Main', path: tenant.library.path }] });
  });

  it('lists the same library with the headers given as UUIDs', async () => {
    const response = await graphql(librariesQuery, undefined, tenantHeaders(tenant, { asUuids: true }));
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ libraries: [{ id: tenant.library.id, slug: 'main', name: 'Main', path: tenant.library.path }] });
  });

  it('needs only x-organization for organization-scoped operations', async () => {
    const { 'x-library': _omitted, ...headers } = tenantHeaders(tenant);
    const response = await graphql(librariesQuery, undefined, headers);
    expect(response.status).toBe(200);
    expect(response.body.data?.libraries).toHaveLength(1);
  });

  it('gives 400 naming x-organization when it is missing', async () => {
    const response = await graphql(librariesQuery, undefined, { 'x-api-key': tenant.apiKey });
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('MISSING_CONTEXT_HEADERS');
    expect(response.body.errors?.[0]?.message).toContain('x-organization');
  });

  it('gives 400 naming both headers when a library-scoped operation has neither', async () => {
    const response = await graphql('{ apiKey { findAllForUser { id } } }', undefined, { 'x-api-key': tenant.apiKey });
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.message).toMatch(/x-organization.*x-library/);
    expect(response.body.errors?.[0]?.extensions?.headers).toEqual(['x-organization', 'x-library']);
  });

  it('gives 400 naming x-library when only it is missing', async () => {
    const { 'x-library': _omitted, ...headers } = tenantHeaders(tenant);
    const response = await graphql('{ apiKey { findAllForUser { id } } }', undefined, headers);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions?.headers).toEqual(['x-library']);
  });

  it('gives 400 for a malformed x-organization', async () => {
    const response = await graphql(librariesQuery, undefined, { ...tenantHeaders(tenant), 'x-organization': 'acme' });
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.message).toContain('x-organization');
  });

  it('gives 401 without a credential', async () => {
    const { 'x-api-key': _omitted, ...headers } = tenantHeaders(tenant);
    const response = await graphql(librariesQuery, undefined, headers);
    expect(response.status).toBe(401);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(response.body.data).toBeUndefined();
  });

  it('gives the same 401 to a request that presents nothing (answered before the credential code loads) as to one with only context headers', async () => {
    const { 'x-api-key': _omitted, ...headers } = tenantHeaders(tenant);
    const bare = await graphql(librariesQuery, undefined, {});
    const withHeaders = await graphql(librariesQuery, undefined, headers);
    expect(bare.status).toBe(401);
    expect(bare.body).toEqual(withHeaders.body);
  });

  it('gives 401 for an unknown key', async () => {
    const response = await graphql(librariesQuery, undefined, { ...tenantHeaders(tenant), 'x-api-key': `${tenant.apiKey}x` });
    expect(response.status).toBe(401);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('gives 403 when x-library is not the library of the key', async () => {
    const response = await graphql(librariesQuery, undefined, { ...tenantHeaders(tenant), 'x-library': other.library.path });
    expect(response.status).toBe(403);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('LIBRARY_ACCESS_DENIED');
  });

  it('gives 403 when x-library names another library of the same organization', async () => {
    const created = await graphql<{ library: { create: { id: string } } }>(
      'mutation($input: CreateLibraryInput!) { library { create(input: $input) { id } } }',
      { input: { name: 'Second', slug: 'second' } },
      tenantHeaders(tenant),
    );
    expect(created.status).toBe(200);
    const response = await graphql('{ apiKey { findAllForUser { id } } }', undefined, {
      ...tenantHeaders(tenant),
      'x-library': `@${tenant.organization.slug}/second`,
    });
    expect(response.status).toBe(403);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('LIBRARY_ACCESS_DENIED');
  });

  it('gives the same 403 for an organization that exists and one that does not, revealing nothing', async () => {
    const existing = await graphql(librariesQuery, undefined, { ...tenantHeaders(tenant), 'x-organization': `@${other.organization.slug}` });
    const existingById = await graphql(librariesQuery, undefined, { ...tenantHeaders(tenant), 'x-organization': other.organization.id });
    const missing = await graphql(librariesQuery, undefined, { ...tenantHeaders(tenant), 'x-organization': '@no-such-org-anywhere' });
    for (const response of [existing, existingById, missing]) {
      expect(response.status).toBe(403);
      expect(response.body.data).toBeNull();
    }
    expect(existing.body.errors).toEqual(missing.body.errors);
    expect(existingById.body.errors).toEqual(missing.body.errors);
    expect(JSON.stringify(existing.body)).not.toContain(other.organization.id);
  });

  it('answers user.me without context headers', async () => {
    const response = await graphql<{ user: { me: Record<string, unknown> } }>('{ user { me { permitted canCreateOrg hasOrganizations user { id name primaryEmail emails } } } }', undefined, {
      'x-api-key': tenant.apiKey,
    });
    expect(response.status).toBe(200);
    expect(response.body.data?.user.me).toEqual({
      permitted: true,
      canCreateOrg: true,
      hasOrganizations: true,
      user: { id: tenant.user.id, name: expect.any(String), primaryEmail: tenant.user.email, emails: [tenant.user.email] },
    });
  });

  it('reads the organization named in x-organization', async () => {
    const response = await graphql('{ organization { current { id name isSandbox } } }', undefined, tenantHeaders(tenant));
    expect(response.body.data).toEqual({ organization: { current: { id: tenant.organization.id, name: `Org ${tenant.organization.slug}`, isSandbox: false } } });
  });

  it('reports GraphQL validation errors with a code: 200 for application/json, 400 for graphql-response+json', async () => {
    const response = await graphql('{ libraries { nope } }', undefined, tenantHeaders(tenant));
    expect(response.status).toBe(200);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const strict = await graphql('{ libraries { nope } }', undefined, { ...tenantHeaders(tenant), accept: 'application/graphql-response+json' });
    expect(strict.status).toBe(400);
  });

  it('gives a variable of the wrong type a code', async () => {
    const response = await graphql('mutation($input: CreateLibraryInput!) { library { create(input: $input) { id } } }', { input: { name: 'X', slug: 5 } }, tenantHeaders(tenant));
    expect(response.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(response.body.errors?.[0]?.message).toContain('slug');
  });
});
