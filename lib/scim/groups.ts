import type { TeamRecord } from '../store/team.js';
import { canonicalAttributes } from './canonical.js';
import { invalidValue, ScimError } from './errors.js';
import { commonAttributes, groupAttributes, groupSchemaId } from './schemas.js';

export interface ScimMember {
  value: string;
  display?: string;
}

export interface ScimGroupInput {
  displayName: string;
  externalId: string | null;
  members: ScimMember[];
}

const writable = [...groupAttributes, ...commonAttributes.filter((attribute) => attribute.name === 'externalId')];

/** POST and PUT bodies (and the result of a PATCH) as a ScimGroupInput. */
export function parseGroupInput(body: unknown): ScimGroupInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ScimError(400, 'The request body must be a JSON object', 'invalidSyntax');
  const canonical = canonicalAttributes(writable, body as Record<string, unknown>) as { displayName?: string; externalId?: string; members?: { value?: string; display?: string }[] };
  if (typeof canonical.displayName !== 'string' || canonical.displayName.trim() === '') throw invalidValue('displayName is required');
  if (canonical.displayName.trim().length > 100) throw invalidValue('displayName is at most 100 characters');
  const members = new Map<string, ScimMember>();
  for (const [index, member] of (canonical.members ?? []).entries()) {
    if (typeof member.value !== 'string' || member.value === '') throw invalidValue(`members[${index}].value must name a user`);
    members.set(member.value.toLowerCase(), { value: member.value.toLowerCase(), ...(member.display ? { display: member.display } : {}) });
  }
  return { displayName: canonical.displayName.trim(), externalId: canonical.externalId ?? null, members: [...members.values()] };
}

/** A SCIM-managed team as the RFC 7643 Group resource; `members` undefined leaves the attribute out. */
export function groupResource(team: TeamRecord, baseUrl: string, members?: { userId: string; display: string | null }[]): Record<string, unknown> {
  return {
    schemas: [groupSchemaId],
    id: team.id,
    ...(team.externalId !== null ? { externalId: team.externalId } : {}),
    displayName: team.name,
    ...(members
      ? { members: members.map((member) => ({ value: member.userId, ...(member.display ? { display: member.display } : {}), $ref: `${baseUrl}/Users/${member.userId}`, type: 'User' })) }
      : {}),
    meta: { resourceType: 'Group', created: team.createdAt, lastModified: team.updatedAt, location: `${baseUrl}/Groups/${team.id}`, version: `W/"${team.rev}"` },
  };
}
