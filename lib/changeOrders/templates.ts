import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { AlreadyExistsError, InvalidInputError } from '../errors.js';
import { TemplateInvalidError } from './errors.js';
import type { LibraryScope } from '../model/scope.js';
import type { Store } from '../store/client.js';
import { nowIso, transactWrite } from '../store/items.js';
import { getMemberships } from '../store/membership.js';
import { findUserIdByEmail, normalizeEmail } from '../store/user.js';
import { listTemplates, templatePuts, type TemplateRecord } from '../store/changeOrderTemplate.js';
import { defaultTemplates } from './defaults.js';
// The template schemas and the YAML parser load on the first template write (./templateRules.js), not with every request.
import type { TemplateDocument, TemplateProblem } from './templateRules.js';

/** A stored document stays well inside DynamoDB's 400 KB item. */
export const maxTemplateBytes = 200_000;

export interface ChangeOrderTemplate {
  id: string;
  name: string;
  isDefault: boolean;
  document: TemplateDocument;
  createdAt: string | null;
  createdBy: string | null;
}

type Participant = TemplateDocument['stages']['open'][number] extends { reviewers?: { users: (infer U)[] } } ? U : never;

/**
 * Resolves every participant of the document against the organization: emails of internal users become
 * their ids, ids must be members, duplicates within a list are dropped (the first kept). Problems name the
 * path of each participant that is not a member (rule notInOrganization).
 */
export async function resolveParticipants(store: Store, organizationId: string, document: TemplateDocument): Promise<{ document: TemplateDocument; problems: TemplateProblem[] }> {
  const { jsonPath } = await import('./templateRules.js');
  const lists: { path: (string | number)[]; users: Participant[] }[] = [];
  document.stages.open.forEach((stage, index) => {
    if (stage.reviewers) lists.push({ path: ['stages', 'open', index, 'reviewers', 'users'], users: stage.reviewers.users });
    if (stage.notifyList?.users) lists.push({ path: ['stages', 'open', index, 'notifyList', 'users'], users: stage.notifyList.users as Participant[] });
  });
  for (const kind of ['resolved', 'closed', 'onHold'] as const) {
    const users = document.stages[kind]?.notifyList?.users;
    if (users) lists.push({ path: ['stages', kind, 'notifyList', 'users'], users: users as Participant[] });
  }
  const emails = [...new Set(lists.flatMap((list) => list.users.flatMap((user) => (typeof user === 'object' && user.email ? [normalizeEmail(user.email)] : []))))];
  const idsByEmail = new Map(await Promise.all(emails.map(async (email) => [email, await findUserIdByEmail(store, email)] as const)));
  const idOf = (user: Participant) => (typeof user === 'string' ? user : (user.id ?? idsByEmail.get(normalizeEmail(user.email!))));
  const candidateIds = lists.flatMap((list) => list.users.map(idOf)).filter((id): id is string => !!id);
  const members = await getMemberships(store, organizationId, [...new Set(candidateIds)]);
  const problems: TemplateProblem[] = [];
  const resolved = structuredClone(document);
  for (const list of lists) {
    const seen = new Set<string>();
    const kept: Participant[] = [];
    list.users.forEach((user, index) => {
      const id = idOf(user);
      if (!id || !members.has(id)) {
        const path = jsonPath([...list.path, index]);
        const who = typeof user === 'string' ? user : (user.email ?? user.id);
        problems.push({ path, rule: 'notInOrganization', message: `${path}: ${who} is not a member of this organization` });
        return;
      }
      if (seen.has(id)) return;
      seen.add(id);
      if (typeof user === 'string') kept.push(id);
      else {
        const { email: _email, ...flags } = user as { email?: string };
        kept.push({ ...flags, id } as Participant);
      }
    });
    let target: Record<string | number, unknown> = resolved as unknown as Record<string, unknown>;
    for (const part of list.path.slice(0, -1)) target = target[part] as Record<string | number, unknown>;
    target[list.path.at(-1)!] = kept;
  }
  return { document: resolved, problems };
}

export const createTemplateInput = z.object({ name: z.string().trim().min(1, 'name must not be empty').max(100, 'name is at most 100 characters'), template: z.unknown() });

/**
 * changeOrders.createTemplate: validates the document (a JSON object, or a YAML string) and its
 * participants; any problem refuses the whole template with TEMPLATE_INVALID and every problem.
 */
export async function createTemplate(store: Store, scope: LibraryScope, rawInput: unknown): Promise<ChangeOrderTemplate> {
  const parsed = createTemplateInput.safeParse(rawInput);
  if (!parsed.success) throw new InvalidInputError(`input.${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}`, { field: 'input.name' });
  const { name } = parsed.data;
  if (defaultTemplates.some((template) => template.name.toLowerCase() === name.toLowerCase())) {
    throw new AlreadyExistsError(`"${name}" is the name of a default template`, { field: 'input.name' });
  }
  const { readTemplateInput, validateTemplateDocument } = await import('./templateRules.js');
  const read = readTemplateInput(parsed.data.template);
  if (read.problems.length) throw new TemplateInvalidError(read.problems);
  const checked = validateTemplateDocument(read.document);
  if (!checked.template) throw new TemplateInvalidError(checked.problems);
  const resolved = await resolveParticipants(store, scope.organizationId, checked.template);
  if (resolved.problems.length) throw new TemplateInvalidError(resolved.problems);
  if (Buffer.byteLength(JSON.stringify(resolved.document)) > maxTemplateBytes) {
    throw new TemplateInvalidError([{ path: '$', rule: 'maxLength', message: `The template is larger than ${maxTemplateBytes} bytes` }]);
  }
  const record: TemplateRecord = {
    id: randomUUID(),
    organizationId: scope.organizationId,
    libraryId: scope.libraryId,
    name,
    document: resolved.document as unknown as Record<string, unknown>,
    createdAt: nowIso(),
    createdBy: scope.userId,
  };
  const nameTaken = () => new AlreadyExistsError(`A template named "${name}" already exists in this library`, { field: 'input.name' });
  await transactWrite(store, templatePuts(record), { otherwise: nameTaken, onConflict: nameTaken });
  return { id: record.id, name, isDefault: false, document: resolved.document, createdAt: record.createdAt, createdBy: record.createdBy };
}

/** changeOrders.getTemplates: the library's defaults, then its own templates by name. */
export async function getTemplates(store: Store, scope: LibraryScope): Promise<ChangeOrderTemplate[]> {
  const own = (await listTemplates(store, scope.organizationId, scope.libraryId))
    .map((record) => ({ id: record.id, name: record.name, isDefault: false, document: record.document as unknown as TemplateDocument, createdAt: record.createdAt, createdBy: record.createdBy }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return [...defaultTemplates.map((template) => ({ ...template, isDefault: true, createdAt: null, createdBy: null })), ...own];
}
