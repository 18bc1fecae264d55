import type { ScimUserRecord } from '../store/scim.js';
import { canonicalAttributes, canonicalEnterprise } from './canonical.js';
import { invalidValue, ScimError } from './errors.js';
import { commonAttributes, enterpriseSchemaId, userAttributes, userSchemaId } from './schemas.js';

/** A user as the identity provider describes it, canonical and checked; roles are dropped (never taken from the IdP). */
export interface ScimUserInput {
  userName: string;
  externalId: string | null;
  /** Absent: true for a new user, unchanged for an existing one (a PUT without it never reactivates). */
  active: boolean | undefined;
  attributes: Record<string, unknown>;
  enterprise: Record<string, unknown> | null;
}

const maxProfileBytes = 64 * 1024;

/** What a POST or PUT may set: read-only attributes (groups) are ignored as RFC 7643 §2.2 says, and roles never taken. */
const writable = [
  ...userAttributes.filter((attribute) => attribute.name !== 'roles' && attribute.mutability !== 'readOnly'),
  ...commonAttributes.filter((attribute) => attribute.name === 'externalId'),
];

/** POST and PUT bodies (and the result of a PATCH) as a ScimUserInput; 400 invalidValue/invalidSyntax otherwise. */
export function parseUserInput(body: unknown): ScimUserInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ScimError(400, 'The request body must be a JSON object', 'invalidSyntax');
  const input = body as Record<string, unknown>;
  const canonical = canonicalAttributes(writable, input);
  const { userName, externalId, active, ...attributes } = canonical as { userName?: string; externalId?: string; active?: boolean } & Record<string, unknown>;
  if (typeof userName !== 'string' || userName.trim() === '') throw invalidValue('userName is required');
  if (userName.length > 256) throw invalidValue('userName is longer than 256 characters');
  const enterprise = canonicalEnterprise(input) ?? null;
  // One user is one item: its profile stays far below DynamoDB's 400 KB.
  if (JSON.stringify([attributes, enterprise]).length > maxProfileBytes) throw invalidValue(`The user's attributes take more than ${maxProfileBytes} bytes`);
  return { userName: userName.trim(), externalId: externalId ?? null, active, attributes, enterprise };
}

interface EmailValue {
  value?: unknown;
  primary?: unknown;
}

/** The address that links the user to an account: the primary email, else the first, else a userName that is an address. */
export function linkingEmail(input: Pick<ScimUserInput, 'userName' | 'attributes'>): string | undefined {
  const emails = (input.attributes.emails as EmailValue[] | undefined) ?? [];
  const chosen = emails.find((email) => email.primary === true) ?? emails[0];
  const candidate = typeof chosen?.value === 'string' ? chosen.value : input.userName;
  return isEmailAddress(candidate) ? candidate.trim().toLowerCase() : undefined;
}

export function isEmailAddress(value: string): boolean {
  return value.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value.trim());
}

export interface GroupReference {
  id: string;
  name: string;
}

/** A SCIM user as the RFC 7643 User resource (with the enterprise extension when it has one). */
export function userResource(user: ScimUserRecord, baseUrl: string, groups: GroupReference[] = []): Record<string, unknown> {
  return {
    schemas: user.enterprise ? [userSchemaId, enterpriseSchemaId] : [userSchemaId],
    id: user.userId,
    ...(user.externalId !== null ? { externalId: user.externalId } : {}),
    userName: user.userName,
    // Stored before groups became read-only on input: the teams are the truth.
    ...Object.fromEntries(Object.entries(user.attributes).filter(([name]) => name !== 'groups')),
    active: user.active,
    ...(groups.length ? { groups: groups.map((group) => ({ value: group.id, display: group.name, $ref: `${baseUrl}/Groups/${group.id}` })) } : {}),
    ...(user.enterprise ? { [enterpriseSchemaId]: user.enterprise } : {}),
    meta: { resourceType: 'User', created: user.createdAt, lastModified: user.updatedAt, location: `${baseUrl}/Users/${user.userId}`, version: `W/"${user.version}"` },
  };
}
