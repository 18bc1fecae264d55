import { randomUUID } from 'node:crypto';
import type { ImportProblem } from '../errors.js';
import { createTemplateInput, maxTemplateBytes, resolveParticipants } from '../changeOrders/templates.js';
import { defaultTemplates } from '../changeOrders/defaults.js';
import type { TemplateDocument, TemplateProblem } from '../changeOrders/templateRules.js';
import type { Store } from '../store/client.js';
import { listTemplates, type TemplateRecord } from '../store/changeOrderTemplate.js';
import { getUser } from '../store/user.js';
import type { ExportedTemplate } from './format.js';

/**
 * Change order templates in a library export. A stored document names its participants (reviewers and
 * notified users) by user id; the export writes each participant's primary email beside the template, and
 * the import turns every participant into its `{ email }` form and resolves it in the TARGET organization
 * with the same rules as changeOrders.createTemplate (resolveParticipants): the same people in the same
 * organization, the people of those addresses in another, and a problem for an address that is not a member.
 */

type Participant = string | { id?: string; email?: string; [flag: string]: unknown };
interface ParticipantList {
  path: (string | number)[];
  users: Participant[];
}

/** Every participant list of a document (the places resolveParticipants resolves). */
function participantLists(document: Record<string, unknown>): ParticipantList[] {
  const lists: ParticipantList[] = [];
  const stages = (document.stages ?? {}) as Record<string, unknown>;
  const open = Array.isArray(stages.open) ? (stages.open as Record<string, unknown>[]) : [];
  open.forEach((stage, index) => {
    const reviewers = stage?.reviewers as { users?: unknown } | undefined;
    if (Array.isArray(reviewers?.users)) lists.push({ path: ['stages', 'open', index, 'reviewers', 'users'], users: reviewers.users as Participant[] });
    const notify = stage?.notifyList as { users?: unknown } | undefined;
    if (Array.isArray(notify?.users)) lists.push({ path: ['stages', 'open', index, 'notifyList', 'users'], users: notify.users as Participant[] });
  });
  for (const kind of ['resolved', 'closed', 'onHold']) {
    const notify = (stages[kind] as { notifyList?: { users?: unknown } } | undefined)?.notifyList;
    if (Array.isArray(notify?.users)) lists.push({ path: ['stages', kind, 'notifyList', 'users'], users: notify.users as Participant[] });
  }
  return lists;
}

const idOf = (user: Participant) => (typeof user === 'string' ? user : typeof user?.id === 'string' ? user.id : undefined);

/** The library's own templates, by name, each with its participants' primary emails. */
export async function exportTemplates(store: Store, orgId: string, libraryId: string): Promise<ExportedTemplate[]> {
  const records = (await listTemplates(store, orgId, libraryId)).sort((a, b) => a.name.localeCompare(b.name));
  const ids = [...new Set(records.flatMap((r) => participantLists(r.document).flatMap((list) => list.users.map(idOf))).filter((id): id is string => !!id))];
  const users = await Promise.all(ids.map((id) => getUser(store, id)));
  const emails = new Map(ids.flatMap((id, i) => (users[i] ? [[id, users[i]!.primaryEmail] as const] : [])));
  return records.map((record) => {
    const participantEmails: Record<string, string> = {};
    for (const list of participantLists(record.document)) {
      for (const user of list.users) {
        const id = idOf(user);
        if (id && emails.has(id)) participantEmails[id] = emails.get(id)!;
      }
    }
    return { id: record.id, name: record.name, createdAt: record.createdAt, createdBy: record.createdBy, document: record.document, participantEmails };
  });
}

const templateProblemCode = (problem: TemplateProblem) => (problem.rule === 'notInOrganization' ? 'PARTICIPANT_NOT_IN_ORGANIZATION' : 'TEMPLATE_INVALID');

/**
 * Validates the exported templates for the target library and returns their records (new ids, participants
 * resolved in the target organization). Problems (each with its JSON path `<root>[i]...`): a document the
 * template rules refuse (TEMPLATE_INVALID), a participant without an email in participantEmails
 * (PARTICIPANT_EMAIL_MISSING) or whose email is not a member of the target organization
 * (PARTICIPANT_NOT_IN_ORGANIZATION), a name taken by a default, another imported template or one of the
 * target library's own (TEMPLATE_NAME_TAKEN).
 */
export async function importTemplates(
  store: Store,
  target: { organizationId: string; libraryId: string },
  templates: ExportedTemplate[],
  root: string,
  problems: ImportProblem[],
): Promise<TemplateRecord[]> {
  if (templates.length === 0) return [];
  const { validateTemplateDocument, jsonPath } = await import('../changeOrders/templateRules.js');
  const taken = await targetTemplateNames(store, target);
  const seen = new Map<string, number>();
  const records: TemplateRecord[] = [];
  for (const [i, template] of templates.entries()) {
    const at = `${root}[${i}]`;
    const name = createTemplateInput.shape.name.safeParse(template.name);
    if (!name.success) problems.push({ path: `${at}.name`, code: 'TEMPLATE_INVALID', message: name.error.issues[0]!.message });
    else {
      const key = name.data.toLowerCase();
      if (defaultTemplates.some((d) => d.name.toLowerCase() === key)) problems.push({ path: `${at}.name`, code: 'TEMPLATE_NAME_TAKEN', message: `"${name.data}" is the name of a default template` });
      else if (taken.has(key)) problems.push({ path: `${at}.name`, code: 'TEMPLATE_NAME_TAKEN', message: `the target library already has a template named "${name.data}"` });
      else if (seen.has(key)) problems.push({ path: `${at}.name`, code: 'TEMPLATE_NAME_TAKEN', message: `"${name.data}" is also the name of ${root}[${seen.get(key)}]` });
      seen.set(key, i);
    }
    const checked = validateTemplateDocument(template.document);
    if (!checked.template) {
      problems.push(...checked.problems.map((p) => ({ path: `${at}.document${p.path.slice(1)}`, code: templateProblemCode(p), message: p.message })));
      continue;
    }
    // Every participant in its { email } form; which ones were plain id strings, to give them that form back.
    const byEmail = structuredClone(checked.template) as unknown as Record<string, unknown>;
    const plain = new Set<string>();
    let missing = false;
    for (const list of participantLists(byEmail)) {
      list.users.forEach((user, index) => {
        if (typeof user === 'object' && user.email !== undefined) return;
        const id = idOf(user)!;
        const email = template.participantEmails[id];
        if (!email) {
          missing = true;
          problems.push({ path: `${at}.document${jsonPath([...list.path, index]).slice(1)}`, code: 'PARTICIPANT_EMAIL_MISSING', message: `participant ${id} has no email in ${at}.participantEmails` });
          return;
        }
        if (typeof user === 'string') plain.add(`${list.path.join('/')}#${index}`);
        const { id: _id, ...flags } = typeof user === 'string' ? {} : user;
        list.users[index] = { ...flags, email };
      });
    }
    if (missing) continue;
    const resolved = await resolveParticipants(store, target.organizationId, byEmail as unknown as TemplateDocument);
    if (resolved.problems.length > 0) {
      problems.push(...resolved.problems.map((p) => ({ path: `${at}.document${p.path.slice(1)}`, code: templateProblemCode(p), message: p.message })));
      continue;
    }
    const document = resolved.document as unknown as Record<string, unknown>;
    const before = participantLists(byEmail);
    participantLists(document).forEach((list, k) => {
      // Duplicates dropped by the resolution shift the places: keep the object form then.
      if (list.users.length !== before[k]?.users.length) return;
      list.users.forEach((user, index) => {
        if (plain.has(`${list.path.join('/')}#${index}`) && typeof user === 'object' && user.id) list.users[index] = user.id;
      });
    });
    if (Buffer.byteLength(JSON.stringify(document)) > maxTemplateBytes) {
      problems.push({ path: `${at}.document`, code: 'TEMPLATE_INVALID', message: `The template is larger than ${maxTemplateBytes} bytes` });
      continue;
    }
    records.push({
      id: randomUUID(),
      organizationId: target.organizationId,
      libraryId: target.libraryId,
      name: template.name.trim(),
      document,
      createdAt: template.createdAt,
      createdBy: template.createdBy,
    });
  }
  return records;
}

/** The lower-case names of the target library's own templates. */
export async function targetTemplateNames(store: Store, target: { organizationId: string; libraryId: string }): Promise<Set<string>> {
  return new Set((await listTemplates(store, target.organizationId, target.libraryId)).map((t) => t.name.trim().toLowerCase()));
}
