import { verifyDomain } from '../../lib/orgs/operator.js';
import { graphql, newTenant, ok, stack, tenantHeaders, testStore, type Tenant } from '../support/api.js';
import { idpMetadata } from '../support/saml.js';

export { idpCertificate, idpMetadata } from '../support/saml.js';

export const configureSaml = 'mutation($input: ConfigureSamlInput!) { saml { configure(input: $input) { enabled entityId ssoUrl certificateSha256 domains registration } } }';
export const configureScim = 'mutation($enabled: Boolean!) { configureScim(enabled: $enabled) { enabled samlEnabled tokens { id status } } }';
export const createToken = 'mutation { scimToken { create { secret token { id status displayPrefix createdAt retiresAt } } } }';
export const revokeToken = 'mutation($id: ID!) { scimToken { revoke(id: $id) } }';

export {
  enterpriseSchemaId as enterpriseSchema,
  errorSchema,
  groupSchemaId as groupSchema,
  listResponseSchema as listSchema,
  patchOpSchema as patchOp,
  userSchemaId as userSchema,
} from '../../lib/scim/schemas.js';

export const scimUrl = () => `${stack.baseUrl}/scim/v2`;

export interface ScimResult {
  status: number;
  contentType: string | null;
  body: any;
}

/** One SCIM request over real HTTP with a bearer token. */
export async function scim(token: string | undefined, method: string, path: string, body?: unknown): Promise<ScimResult> {
  const response = await fetch(`${scimUrl()}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/scim+json' } : {}) },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: response.status, contentType: response.headers.get('content-type'), body: parsed };
}

export interface ScimTenant {
  tenant: Tenant;
  admin: Record<string, string>;
  token: string;
  tokenId: string;
}

/** A domain of the tenant's own (`<slug>.test`), verified: SAML lists only the organization's verified domains. */
export async function verifiedDomainOf(tenant: Tenant): Promise<string> {
  const domain = `${tenant.organization.slug}.test`;
  await verifyDomain(testStore(), tenant.organization.slug, domain);
  return domain;
}

/** A fresh organization with SAML and SCIM enabled and an active SCIM token, set up through the GraphQL API. */
export async function scimTenant(): Promise<ScimTenant> {
  const tenant = await newTenant();
  const admin = tenantHeaders(tenant);
  await ok(admin, configureSaml, { input: { enabled: true, idpMetadataXml: idpMetadata(), domains: [await verifiedDomainOf(tenant)] } });
  await ok(admin, configureScim, { enabled: true });
  const created = await ok(admin, createToken);
  return { tenant, admin, token: created.scimToken.create.secret, tokenId: created.scimToken.create.token.id };
}

export { graphql };
