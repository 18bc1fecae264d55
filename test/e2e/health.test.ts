import { describe, expect, it } from 'vitest';
import { stack } from '../support/api.js';
import { eventually } from '../support/webhooks.js';
import { freshClientIp, newAddress, postAuth, strongPassword } from './accountHelpers.js';

describe('local stack', () => {
  it('answers /health with 200 once ready', async () => {
    const response = await fetch(`${stack.baseUrl}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('serves the password policy at /auth/config without credentials', async () => {
    const response = await fetch(`${stack.baseUrl}/auth/config`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ passwordPolicy: { mode: 'standard', minLength: 12, maxLength: 256, requireClasses: true } });
  });

  it('serves GraphiQL on GET /graphql to a browser', async () => {
    const response = await fetch(`${stack.baseUrl}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(await response.text()).toContain('GraphiQL');
  });

  it('returns the captured outbox at /_local/mail as a JSON array', async () => {
    const response = await fetch(`${stack.baseUrl}/_local/mail`);
    expect(response.status).toBe(200);
    expect(Array.isArray(await response.json())).toBe(true);
  });

  it('serves the mail to one address with ?to=, case-insensitively', async () => {
    const address = newAddress('outbox');
    expect((await postAuth('/auth/signup', { email: address, password: strongPassword() }, freshClientIp())).status).toBe(202);
    const mailTo = async (to: string) => (await (await fetch(`${stack.baseUrl}/_local/mail?to=${encodeURIComponent(to)}`)).json()) as { to: string[]; subject: string }[];
    const mine = await eventually(
      () => mailTo(address.toUpperCase()),
      (mails) => mails.length > 0,
      `the signup mail to ${address}`,
    );
    expect(mine.map((mail) => mail.to)).toEqual([[address]]);
    const all = (await (await fetch(`${stack.baseUrl}/_local/mail`)).json()) as { to: string[] }[];
    expect(all.filter((mail) => mail.to.includes(address))).toEqual(mine);
    expect(await mailTo(newAddress('nobody'))).toEqual([]);
  });

  it('refuses SCIM requests without a valid token with a SCIM error body', async () => {
    const response = await fetch(`${stack.baseUrl}/scim/v2/Users`, { headers: { authorization: 'Bearer nope' } });
    expect(response.status).toBe(401);
    const body = await response.json();
    expect(body.schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
    expect(body.status).toBe('401');
  });

  it('answers unknown routes with 404', async () => {
    expect((await fetch(`${stack.baseUrl}/nope`)).status).toBe(404);
  });
});
