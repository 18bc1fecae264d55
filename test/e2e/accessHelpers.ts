import { randomUUID } from 'node:crypto';
import { addMember } from '../../lib/orgs/operator.js';
import { graphql, ok, stack, testStore, type GraphQLResponse, type Tenant } from '../support/api.js';
import { eventually } from '../support/webhooks.js';
// Moved to test/support/api.ts; named here too for test files written against this module.
export { ok } from '../support/api.js';

export interface Member {
  userId: string;
  email: string;
  headers: Record<string, string>;
}

/**
 * A person with an organization role in the tenant and an API key acting as them in its library, made the
 * way `npm run admin -- member add --api-key-library` makes them.
 */
export async function memberWithRole(tenant: Tenant, role: string, email = `${role.toLowerCase().replace(/\W+/g, '-')}-${randomUUID().slice(0, 8)}@example.com`): Promise<Member> {
  const added = await addMember(testStore(), { orgSlug: tenant.organization.slug, email, role, apiKeyLibrary: tenant.library.slug });
  return {
    userId: added.user.id,
    email,
    headers: { 'x-api-key': added.apiKey!, 'x-organization': `@${tenant.organization.slug}`, 'x-library': tenant.library.path },
  };
}

/** The first error's code (and the whole response), for asserting refusals. */
export async function refusal(headers: Record<string, string>, query: string, variables?: Record<string, unknown>) {
  const response: GraphQLResponse<any> = await graphql(query, variables, headers);
  const error = response.body.errors?.[0];
  return { status: response.status, code: error?.extensions?.code, error, data: response.body.data };
}

/** The mail the local stack captured for an address, newest last. */
export async function mailTo(address: string): Promise<{ to: string[]; subject: string; text: string; html: string }[]> {
  const all = (await (await fetch(`${stack.baseUrl}/_local/mail?to=${encodeURIComponent(address)}`)).json()) as { to: string[]; subject: string; text: string; html: string }[];
  return all.filter((mail) => mail.to.includes(address.toLowerCase()));
}

/** Subjects of the watchers' notification mail (lib/notifications/digest.ts), sent from the stream at its own pace. */
const notificationSubject = /^(Update: |You were mentioned$|Your daily digest: )/;

/** The workflow mail of an address (change order requests and outcomes), newest last: notification mail left out. */
export async function workflowMailTo(address: string): Promise<{ to: string[]; subject: string; text: string; html: string }[]> {
  return (await mailTo(address)).filter((mail) => !notificationSubject.test(mail.subject));
}

/**
 * The workflow mail of an address once a mail with this subject (exact, or the start of it) arrived, newest last.
 * Change order mails go from the table's stream (the jobs function sends an action's outbox item), a moment
 * after the action answered.
 */
export function workflowMailAfter(address: string, subject: string): Promise<{ to: string[]; subject: string; text: string; html: string }[]> {
  return eventually(
    () => workflowMailTo(address),
    (mails) => mails.some((mail) => mail.subject.startsWith(subject)),
    `a mail "${subject}" to ${address}`,
  );
}

/** A notification as the notification tests read it (user.notifications). */
export interface Note {
  id: string;
  kind: string;
  targetId: string;
  subjectId: string | null;
  actorId: string | null;
  summary: string;
  read: boolean;
}

const notificationsQuery = `query($unreadOnly: Boolean) { user { notifications(unreadOnly: $unreadOnly, pagination: { first: 200 }) { edges { node { id kind targetId subjectId actorId summary read } } } } }`;

/** The member's notifications, newest first (the first 200). */
export async function notificationsOf(who: Member, unreadOnly = false): Promise<Note[]> {
  return (await ok(who.headers, notificationsQuery, { unreadOnly })).user.notifications.edges.map((e: { node: Note }) => e.node);
}

/** Waits (polling) until `test` holds of the member's notifications; the stream delivers a moment after the write. */
export async function untilNotifications(who: Member, test: (notes: Note[]) => boolean): Promise<Note[]> {
  for (let attempt = 0; attempt < 150; attempt += 1) {
    const notes = await notificationsOf(who);
    if (test(notes)) return notes;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`notifications never arrived for ${who.email}: ${JSON.stringify(await notificationsOf(who))}`);
}
