import { graphql, newTenant, stack, tenantHeaders, type Tenant } from '../support/api.js';
import { ok } from './accessHelpers.js';

/** A self-signed signing certificate (CN=idp.acme.test, valid until 2126) for test IdP metadata. */
export const idpCertificate =
  'MIIDEzCCAfugAwIBAgIUPhpUZ8nqmklkpUtnXv33SautViYwDQYJKoZIhvcNAQELBQAwGDEWMBQGA1UEAwwNaWRwLmFjbWUudGVzdDAgFw0yNjExMjMxMjE2MzdaGA8yMTI2MTAzMDEyMTYzN1owGDEWMBQGA1UEAwwNaWRwLmFjbWUudGVzdDCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAPTMBcm0unHY3jtlNrlaqkLdRmxkKGurjPLwJY5jamSn99E15lQUBOHn+Xq5qmpHNL3lxqATTKYz3J1MkywIkaf7GkpKDSZKUr9pnxhkqDrn2gdI2ma4IJHo1GDfHpkjarranTKEzDwkrxymnR5Rrlm3TuS1VXsa+15RHGHnuGum0EvykE/PYDzx1g+u1ZvxDYHmSX8ETncsoYyFipg07dQY0Zuv5QYb7m4JEZTenNbA4p9Rddp+BZJzGPQVnSYhz/aiATdcXCNln+amFGZkgtIg8gxs2LJZFF+OEspAx6lPk/31egGgkxinorjea3BD4LVVHtrKNwM1Jn3QAKj2zZECAwEAAaNTMFEwHQYDVR0OBBYEFBFLlZmoJkltC+LuycymdEwUyv6pMB8GA1UdIwQYMBaAFBFLlZmoJkltC+LuycymdEwUyv6pMA8GA1UdEwEB/wQFMAMBAf8wDQYJKoZIhvcNAQELBQADggEBAFo3qPJvHixuP6qtuVtmsjCgKMQDe8RxZLJlu37lRuXvusy7Nbwv+ylJ51f0an79+/ZnW68ktF/y4qe+ZJmboOiXS614UiwdvW0JdHKLBewfWS0CIKIyZqh/kap4leWzPaMGDxestXMqbRBKpcEJptG6o11wwNG3w8p252t6spyP8DMJ1M9t2r5KILLIQT0yY7weheq6Cb/WGwMSOBhxTG+Z9xY9qIfjEX+LXaIbm6w23uvKsQomD/daLRhDbFPijVTDDecz1OFWRBH87NJB9pVltU+MjTrxfjGm9bPjt7FtMexy6MDAubOJ8JGVqVAqglYWS6QeFOXbA0UURZ49i9Q=';

/** SAML 2.0 metadata of a test identity provider, as Okta or Entra ID export it. */
export function idpMetadata(options: { entityId?: string; ssoUrl?: string; certificate?: string } = {}): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${options.entityId ?? 'http://www.okta.com/exk1test'}">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${options.certificate ?? idpCertificate}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>
    </md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${options.ssoUrl ?? 'https://acme.okta.com/app/plm/exk1test/sso/saml'}"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${options.ssoUrl ?? 'https://acme.okta.com/app/plm/exk1test/sso/saml'}"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
}

export const configureSaml = 'mutation($input: ConfigureSamlInput!) { saml { configure(input: $input) { enabled entityId ssoUrl certificateSha256 domains registration } } }';
export const configureScim = 'mutation($enabled: Boolean!) { configureScim(enabled: $enabled) { enabled samlEnabled tokens { id status } } }';
export const createToken = 'mutation { scimToken { create { secret token { id status displayPrefix createdAt retiresAt } } } }';
export const revokeToken = 'mutation($id: ID!) { scimToken { revoke(id: $id) } }';

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

/** A fresh organization with SAML and SCIM enabled and an active SCIM token, set up through the GraphQL API. */
export async function scimTenant(): Promise<ScimTenant> {
  const tenant = await newTenant();
  const admin = tenantHeaders(tenant);
  await ok(admin, configureSaml, { input: { enabled: true, idpMetadataXml: idpMetadata(), domains: ['acme.test'] } });
  await ok(admin, configureScim, { enabled: true });
  const created = await ok(admin, createToken);
  return { tenant, admin, token: created.scimToken.create.secret, tokenId: created.scimToken.create.token.id };
}

export { graphql };
