import { AccessAdminError, AlreadyExistsError, ConflictError, DomainError, InvalidInputError, NotFoundError } from '../errors.js';
import { archiveScimGroup, createScimGroup, findScimTeamByName, replaceScimGroup, requireScimTeam, scimTeamMembers, scimTeams } from './groupProvisioning.js';
import { createScimUser, deleteScimUser, replaceScimUser, requireScimUser, scimGroupsOf } from './userProvisioning.js';
import type { Store } from '../store/client.js';
import type { OrganizationRecord } from '../store/organization.js';
import { findScimUserByUserName, listScimUsers, type ScimUserRecord } from '../store/scim.js';
import { ScimError } from './errors.js';
import { groupResource, parseGroupInput } from './groups.js';
import { applyPatch, assertNoPrototypeKeys, groupPatchSchema, parsePatchBody, userPatchSchema } from './patch.js';
import { filterNames, listResponse, parseListQuery, project, searchParameters, type ListQuery } from './query.js';
import { allSchemas, patchOpSchema, resourceTypes, serviceProviderConfig } from './schemas.js';
import { parseUserInput, userResource } from './users.js';

export interface ScimRequest {
  method: string;
  /** The path after {scim_url}: `/Users/abc`. */
  path: string;
  query: URLSearchParams;
  /** The parsed JSON body (undefined when there is none). */
  body: unknown;
  /** {scim_url} as the client reached it, for meta.location. */
  baseUrl: string;
}

export interface ScimResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

const ok = (body: unknown, status = 200): ScimResponse => ({ status, body });
const created = (body: Record<string, unknown>): ScimResponse => ({ status: 201, body, headers: { location: String((body.meta as { location: string }).location) } });

/** The value of a filter that is exactly `<attribute> eq "<string>"` (schema URN prefix allowed), else undefined. */
function equalityOn(query: ListQuery, attribute: string): string | undefined {
  const filter = query.filter;
  if (filter?.op !== 'eq' || typeof filter.compValue !== 'string') return undefined;
  const path = filter.attrPath.toLowerCase();
  return path === attribute || path.endsWith(`:${attribute}`) ? filter.compValue : undefined;
}

/** Whether a response is to carry an attribute, by the request's attributes and excludedAttributes (RFC 7644 §3.9). */
function returnsAttribute(query: ListQuery, attribute: string): boolean {
  return !query.excludedAttributes?.some((name) => name.toLowerCase() === attribute) && (!query.attributes || query.attributes.some((name) => name.toLowerCase().startsWith(attribute)));
}

async function users(store: Store, organization: OrganizationRecord, request: ScimRequest, id: string | undefined): Promise<ScimResponse> {
  const { method, baseUrl } = request;
  const query = parseListQuery(request.query, userPatchSchema);
  /** User resources with their read-only groups, read only when the response carries them or the filter tests them. */
  const withGroups = returnsAttribute(query, 'groups') || (query.filter !== undefined && filterNames(query.filter, 'groups'));
  const resources = async (list: ScimUserRecord[]) => {
    const groups = withGroups && list.length ? await scimGroupsOf(store, organization, list) : new Map();
    return list.map((user) => userResource(user, baseUrl, groups.get(user.userId)));
  };
  const one = async (user: ScimUserRecord) => (await resources([user]))[0]!;
  if (id === undefined) {
    if (method === 'GET') {
      // The IdPs' look-up before every create (`userName eq "…"`) reads one user by its unique key, not the list.
      const userName = equalityOn(query, 'username');
      const all = userName !== undefined ? await findScimUserByUserName(store, organization.id, userName).then((user) => (user ? [user] : [])) : await listScimUsers(store, organization.id);
      all.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.userId.localeCompare(b.userId));
      return ok(listResponse(await resources(all), query));
    }
    // A new SCIM user is in no pushed group yet: groups are added through /Groups afterwards.
    if (method === 'POST') return created(userResource(await createScimUser(store, organization, parseUserInput(request.body)), baseUrl));
    throw new ScimError(405, `${method} is not supported on /Users`);
  }
  const user = await requireScimUser(store, organization, id);
  switch (method) {
    case 'GET':
      return ok(project(await one(user), query));
    case 'PUT': {
      const input = parseUserInput(request.body);
      const replaced = await retryOnConflict(async (again) => replaceScimUser(store, organization, again ? await requireScimUser(store, organization, id) : user, input));
      return ok(await one(replaced));
    }
    case 'PATCH': {
      const operations = parsePatchBody(request.body);
      const patched = await retryOnConflict(async (again) => {
        const current = again ? await requireScimUser(store, organization, id) : user;
        return replaceScimUser(store, organization, current, parseUserInput(applyPatch(userResource(current, baseUrl), operations, userPatchSchema)));
      });
      return ok(await one(patched));
    }
    case 'DELETE':
      await deleteScimUser(store, organization, user);
      return { status: 204 };
    default:
      throw new ScimError(405, `${method} is not supported on /Users/{id}`);
  }
}

/**
 * Identity providers send requests in parallel (Okta pushes several groups at once, each adding the same
 * people): a write that lost a race with another on the same membership or resource is read again and
 * applied again, a few times, before the client sees 409. Every step it repeats is idempotent.
 */
async function retryOnConflict<T>(attempt: (again: boolean) => Promise<T>): Promise<T> {
  for (let tries = 0; ; tries += 1) {
    try {
      return await attempt(tries > 0);
    } catch (error) {
      if (!(error instanceof ConflictError) || tries >= 4) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** tries + Math.random() * 20));
    }
  }
}

async function groups(store: Store, organization: OrganizationRecord, request: ScimRequest, id: string | undefined): Promise<ScimResponse> {
  const { method, baseUrl } = request;
  const query = parseListQuery(request.query, groupPatchSchema);
  const wantsMembers = returnsAttribute(query, 'members');
  if (id === undefined) {
    if (method === 'GET') {
      const displayName = equalityOn(query, 'displayname');
      const teams = displayName !== undefined ? await findScimTeamByName(store, organization, displayName).then((team) => (team ? [team] : [])) : await scimTeams(store, organization);
      if (query.filter && filterNames(query.filter, 'members')) {
        // The filter tests members (an IdP checking one membership): every group is filtered with its members.
        const withMembers: Record<string, unknown>[] = [];
        for (let start = 0; start < teams.length; start += 10) {
          const chunk = teams.slice(start, start + 10);
          withMembers.push(...(await Promise.all(chunk.map(async (team) => groupResource(team, baseUrl, await scimTeamMembers(store, team))))));
        }
        return ok(listResponse(withMembers, query));
      }
      // Otherwise filter and page first (without members), then read the members of the page's groups only.
      const { filter, startIndex, count } = query;
      const { sortBy, sortOrder } = query;
      const list = listResponse(
        teams.map((team) => groupResource(team, baseUrl)),
        { ...(filter ? { filter } : {}), startIndex, count, ...(sortBy ? { sortBy, sortOrder } : {}) },
      ) as { Resources: { id: string }[] };
      const byId = new Map(teams.map((team) => [team.id, team]));
      list.Resources = await Promise.all(
        list.Resources.map(async (resource) => {
          const team = byId.get(resource.id)!;
          return project(groupResource(team, baseUrl, wantsMembers ? await scimTeamMembers(store, team) : undefined), query) as { id: string };
        }),
      );
      return ok(list);
    }
    if (method === 'POST') {
      const team = await createScimGroup(store, organization, parseGroupInput(request.body));
      return created(groupResource(team, baseUrl, await scimTeamMembers(store, team)));
    }
    throw new ScimError(405, `${method} is not supported on /Groups`);
  }
  const team = await requireScimTeam(store, organization, id);
  switch (method) {
    case 'GET':
      return ok(project(groupResource(team, baseUrl, wantsMembers ? await scimTeamMembers(store, team) : undefined), query));
    case 'PUT': {
      const input = parseGroupInput(request.body);
      const updated = await retryOnConflict(async (again) => replaceScimGroup(store, organization, again ? await requireScimTeam(store, organization, id) : team, input));
      return ok(groupResource(updated, baseUrl, await scimTeamMembers(store, updated)));
    }
    case 'PATCH': {
      const operations = parsePatchBody(request.body);
      await retryOnConflict(async (again) => {
        const current = again ? await requireScimTeam(store, organization, id) : team;
        const patched = applyPatch(groupResource(current, baseUrl, await scimTeamMembers(store, current)), operations, groupPatchSchema);
        return replaceScimGroup(store, organization, current, parseGroupInput(patched));
      });
      // Okta and Entra expect 204 No Content from a group PATCH (RFC 7644 §3.5.2 allows it).
      return { status: 204 };
    }
    case 'DELETE':
      await archiveScimGroup(store, team);
      return { status: 204 };
    default:
      throw new ScimError(405, `${method} is not supported on /Groups/{id}`);
  }
}

function discovery(request: ScimRequest, resource: string, id: string | undefined): ScimResponse {
  if (request.method !== 'GET') throw new ScimError(405, `${request.method} is not supported on /${resource}`);
  const { baseUrl } = request;
  if (resource === 'serviceproviderconfig' || resource === 'serviceproviderconfigs') return ok(serviceProviderConfig(baseUrl));
  const list = resource === 'schemas' ? allSchemas(baseUrl) : resourceTypes(baseUrl);
  if (id !== undefined) {
    const found = list.find((entry) => entry.id.toLowerCase() === id.toLowerCase());
    if (!found) throw new ScimError(404, `${resource === 'schemas' ? 'Schema' : 'ResourceType'} ${id} not found`);
    return ok(found);
  }
  return ok(listResponse(list, { startIndex: 1, count: list.length }));
}

/** POST /Users/.search and /Groups/.search (RFC 7644 §3.4.3) as the GET of the list with the body's parameters. */
function search(request: ScimRequest): ScimRequest {
  if (request.method !== 'POST') throw new ScimError(405, `${request.method} is not supported on .search: POST a SearchRequest`);
  return { ...request, method: 'GET', query: searchParameters(request.body), body: undefined };
}

/** Domain refusals as SCIM errors: uniqueness 409, not found 404, broken rules 400 invalidValue. */
function scimErrorOf(error: DomainError): ScimError {
  if (error instanceof AlreadyExistsError) return new ScimError(409, error.message, 'uniqueness');
  if (error instanceof NotFoundError) return new ScimError(404, error.message);
  if (error instanceof ConflictError) return new ScimError(409, error.message);
  if (error instanceof InvalidInputError || error instanceof AccessAdminError) return new ScimError(400, error.message, 'invalidValue');
  return new ScimError(error.httpStatus ?? 400, error.message);
}

/** One SCIM request of an authenticated organization (RFC 7644 §3). */
export async function handleScimRequest(store: Store, organization: OrganizationRecord, request: ScimRequest): Promise<ScimResponse> {
  let segments: string[];
  try {
    segments = request.path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    throw new ScimError(404, 'The path is not valid percent-encoding');
  }
  const [resource, id, ...rest] = segments;
  if (!resource || rest.length) throw new ScimError(404, `No SCIM endpoint at ${request.path || '/'}`);
  // No key of a body may address a prototype, at any depth (PATCH paths are checked against the schema).
  if (request.body !== undefined) assertNoPrototypeKeys(request.body);
  try {
    switch (resource.toLowerCase()) {
      case 'users':
        return id === '.search' ? await users(store, organization, search(request), undefined) : await users(store, organization, request, id);
      case 'groups':
        return id === '.search' ? await groups(store, organization, search(request), undefined) : await groups(store, organization, request, id);
      case '.search':
        // RFC 7644 §3.4.3 lets a query at the root search every resource type; this service searches one type at a time.
        throw new ScimError(501, 'Searching across resource types is not supported: POST /Users/.search or /Groups/.search');
      case 'serviceproviderconfig':
      case 'serviceproviderconfigs':
      case 'schemas':
      case 'resourcetypes':
        return discovery(request, resource.toLowerCase(), id);
      default:
        throw new ScimError(404, `No SCIM endpoint at ${request.path}`);
    }
  } catch (error) {
    if (error instanceof DomainError) throw scimErrorOf(error);
    throw error;
  }
}
