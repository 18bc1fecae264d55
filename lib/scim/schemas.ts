/**
 * The SCIM schemas this service serves (RFC 7643 §4 and §8.7), in the RFC's own representation: what
 * /Schemas returns, and what incoming attribute names are matched against (case-insensitively, as RFC 7643
 * §2.1 requires) so that Entra's `"Primary": true` reads as `primary`.
 */
export const userSchemaId = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const enterpriseSchemaId = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const groupSchemaId = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const listResponseSchema = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const patchOpSchema = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const errorSchema = 'urn:ietf:params:scim:api:messages:2.0:Error';

type AttributeType = 'string' | 'boolean' | 'complex' | 'reference' | 'dateTime' | 'binary' | 'decimal' | 'integer';

export interface AttributeDefinition {
  name: string;
  type: AttributeType;
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned: 'always' | 'never' | 'default' | 'request';
  uniqueness: 'none' | 'server' | 'global';
  subAttributes?: AttributeDefinition[];
  referenceTypes?: string[];
}

function attribute(name: string, type: AttributeType, options: Partial<AttributeDefinition> = {}): AttributeDefinition {
  return {
    name,
    type,
    multiValued: false,
    description: options.description ?? name,
    required: false,
    caseExact: false,
    mutability: 'readWrite',
    returned: 'default',
    uniqueness: 'none',
    ...options,
  };
}

const multi = (name: string, description: string, sub: AttributeDefinition[]) => attribute(name, 'complex', { multiValued: true, description, subAttributes: sub });
/** RFC 7643 §2.3.7: a reference attribute names what it may refer to (photos are URLs: "external"). */
const typedValue = (valueType: AttributeType = 'string', extra: AttributeDefinition[] = []) => [
  attribute('value', valueType, valueType === 'reference' ? { referenceTypes: ['external'] } : {}),
  attribute('display', 'string'),
  attribute('type', 'string'),
  attribute('primary', 'boolean'),
  ...extra,
];

export const userAttributes: AttributeDefinition[] = [
  attribute('userName', 'string', {
    required: true,
    uniqueness: 'server',
    description: 'Unique identifier for the User, typically used to sign in. Unique in the organization, compared case-insensitively.',
  }),
  attribute('name', 'complex', {
    description: "The components of the user's real name.",
    subAttributes: ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'].map((n) => attribute(n, 'string')),
  }),
  ...['displayName', 'nickName', 'title', 'userType', 'preferredLanguage', 'locale', 'timezone'].map((n) => attribute(n, 'string')),
  attribute('profileUrl', 'reference', { referenceTypes: ['external'] }),
  attribute('active', 'boolean', { description: "The user's administrative status: false revokes the user's access to the organization." }),
  multi('emails', 'Email addresses; the primary (or first) one links the user to an account of the service.', typedValue()),
  multi('phoneNumbers', 'Phone numbers.', typedValue()),
  multi('ims', 'Instant messaging addresses.', typedValue()),
  multi('photos', 'URLs of photos.', typedValue('reference')),
  multi('addresses', 'Physical mailing addresses.', [
    ...['formatted', 'streetAddress', 'locality', 'region', 'postalCode', 'country', 'type'].map((n) => attribute(n, 'string')),
    attribute('primary', 'boolean'),
  ]),
  {
    ...multi('groups', 'The groups (teams) the user belongs to; change them through /Groups.', [
      attribute('value', 'string', { mutability: 'readOnly' }),
      attribute('$ref', 'reference', { mutability: 'readOnly', referenceTypes: ['Group'] }),
      attribute('display', 'string', { mutability: 'readOnly' }),
    ]),
    mutability: 'readOnly',
  },
  multi('entitlements', 'Entitlements (stored, not interpreted).', typedValue()),
  // No roles attribute: roles are assigned in the service by administrators, never taken from the identity
  // provider; a roles value in a body, or a PATCH of roles, is accepted and ignored (see lib/scim/patch.ts).
  multi('x509Certificates', 'Certificates.', typedValue('binary')),
];

export const enterpriseAttributes: AttributeDefinition[] = [
  ...['employeeNumber', 'costCenter', 'organization', 'division', 'department'].map((n) => attribute(n, 'string')),
  attribute('manager', 'complex', {
    subAttributes: [attribute('value', 'string'), attribute('$ref', 'reference', { referenceTypes: ['User'] }), attribute('displayName', 'string', { mutability: 'readOnly' })],
  }),
];

export const groupAttributes: AttributeDefinition[] = [
  attribute('displayName', 'string', { required: true, uniqueness: 'server', description: 'The name of the team; unique in the organization, compared case-insensitively.' }),
  multi('members', 'The members of the team: users provisioned through SCIM.', [
    attribute('value', 'string', { mutability: 'immutable' }),
    attribute('display', 'string'),
    attribute('$ref', 'reference', { mutability: 'immutable', referenceTypes: ['User'] }),
    attribute('type', 'string', { mutability: 'immutable' }),
  ]),
];

/** Attributes every resource carries (RFC 7643 §3.1), matched like the others. */
export const commonAttributes: AttributeDefinition[] = [
  attribute('id', 'string', { caseExact: true, mutability: 'readOnly', returned: 'always', uniqueness: 'server' }),
  attribute('externalId', 'string', { caseExact: true }),
  attribute('meta', 'complex', {
    mutability: 'readOnly',
    subAttributes: [
      attribute('resourceType', 'string', { mutability: 'readOnly', caseExact: true }),
      attribute('created', 'dateTime', { mutability: 'readOnly' }),
      attribute('lastModified', 'dateTime', { mutability: 'readOnly' }),
      attribute('location', 'reference', { mutability: 'readOnly', caseExact: true, referenceTypes: ['uri'] }),
      attribute('version', 'string', { mutability: 'readOnly', caseExact: true }),
    ],
  }),
];

export function schemaResource(id: string, name: string, description: string, attributes: AttributeDefinition[], baseUrl: string) {
  return { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'], id, name, description, attributes, meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${id}` } };
}

export function allSchemas(baseUrl: string) {
  return [
    schemaResource(userSchemaId, 'User', 'User Account', userAttributes, baseUrl),
    schemaResource(enterpriseSchemaId, 'EnterpriseUser', 'Enterprise User', enterpriseAttributes, baseUrl),
    schemaResource(groupSchemaId, 'Group', 'Group (a team of the organization)', groupAttributes, baseUrl),
  ];
}

export function resourceTypes(baseUrl: string) {
  const type = (id: 'User' | 'Group', endpoint: string, schema: string, description: string, extensions: { schema: string; required: boolean }[] = []) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id,
    name: id,
    endpoint,
    description,
    schema,
    schemaExtensions: extensions,
    meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/${id}` },
  });
  return [type('User', '/Users', userSchemaId, 'User Account', [{ schema: enterpriseSchemaId, required: false }]), type('Group', '/Groups', groupSchemaId, 'Group (a team of the organization)')];
}

export const maxResults = 200;

export function serviceProviderConfig(baseUrl: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults },
    changePassword: { supported: false },
    sort: { supported: true },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: "The organization's SCIM token (scimToken.create), sent as Authorization: Bearer <token>.",
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/ServiceProviderConfig` },
  };
}

/** Attributes that are compared case-sensitively (caseExact); all others compare case-insensitively. */
export const caseExactPaths = new Set(['id', 'externalid', 'meta.location', 'members.value', 'groups.value']);
