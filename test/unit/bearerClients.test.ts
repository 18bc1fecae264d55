import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerVerifierFromEnv, type BearerVerifier } from '../../lib/access/bearer.js';

/**
 * Which clients' access tokens authenticate GraphQL: the password client's (cognito-local's issuer locally)
 * and the federated client's (the federation stand-in's issuer locally), each only from its own issuer;
 * any other client's, and ID tokens, are refused. Two key pairs serve JWKS over http as the emulators do.
 */
const keys = { cognito: generateKeyPairSync('rsa', { modulusLength: 2048 }), pool: generateKeyPairSync('rsa', { modulusLength: 2048 }) };
let server: Server;
let base: string;
let verify: BearerVerifier;

function jwt(which: keyof typeof keys, payload: Record<string, unknown>): string {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${b64({ alg: 'RS256', typ: 'JWT', kid: which })}.${b64(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), keys[which].privateKey).toString('base64url')}`;
}

const now = () => Math.floor(Date.now() / 1000);
const access = (which: keyof typeof keys, clientId: string, extra: Record<string, unknown> = {}) =>
  jwt(which, { sub: randomUUID(), iss: which === 'cognito' ? `${base}/cognito/local_pool` : `${base}/pool`, client_id: clientId, token_use: 'access', iat: now(), exp: now() + 600, ...extra });

beforeAll(async () => {
  server = createServer((request, response) => {
    const which = request.url === '/cognito/local_pool/.well-known/jwks.json' ? 'cognito' : request.url === '/pool/.well-known/jwks.json' ? 'pool' : undefined;
    if (!which) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [{ ...keys[which].publicKey.export({ format: 'jwk' }), kid: which, alg: 'RS256', use: 'sig' }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  verify = bearerVerifierFromEnv({
    COGNITO_ENDPOINT: `${base}/cognito`,
    COGNITO_USER_POOL_ID: 'local_pool',
    COGNITO_CLIENT_ID: 'appclient',
    COGNITO_FEDERATED_CLIENT_ID: 'fedclient',
    SAML_TOKEN_ISSUER: `${base}/pool`,
  })!;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('Bearer access tokens by client', () => {
  it("accepts the password client's and the federated client's access tokens", async () => {
    const sub = randomUUID();
    // The sign-in time: auth_time, which refreshed tokens keep, else iat.
    expect(await verify(access('cognito', 'appclient', { sub, auth_time: 1_700_000_000 }))).toEqual({ sub, authTime: 1_700_000_000 });
    expect(await verify(access('pool', 'fedclient', { sub }))).toEqual({ sub, authTime: expect.any(Number) });
  });

  it("refuses another client's tokens, a client's token from the other issuer, and ID tokens", async () => {
    await expect(verify(access('pool', 'otherclient'))).rejects.toThrow();
    await expect(verify(access('cognito', 'otherclient'))).rejects.toThrow();
    await expect(verify(access('cognito', 'fedclient'))).rejects.toThrow();
    await expect(verify(access('pool', 'appclient'))).rejects.toThrow();
    await expect(verify(access('pool', 'fedclient', { token_use: 'id', aud: 'fedclient' }))).rejects.toThrow();
  });

  it('refuses the federated client when the deployment does not name it', async () => {
    const without = bearerVerifierFromEnv({ COGNITO_ENDPOINT: `${base}/cognito`, COGNITO_USER_POOL_ID: 'local_pool', COGNITO_CLIENT_ID: 'appclient', SAML_TOKEN_ISSUER: `${base}/pool` })!;
    await expect(without(access('pool', 'fedclient'))).rejects.toThrow();
    expect((await without(access('cognito', 'appclient', { sub: 'x-1' }))).sub).toBe('x-1');
  });
});
