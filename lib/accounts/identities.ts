import type { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { AccountError } from './errors.js';

/** Tokens the user pool issues on sign-in: Bearer credentials for the GraphQL API. */
export interface PoolTokens {
  accessToken: string;
  idToken: string;
  refreshToken: string | null;
  expiresIn: number;
}

/**
 * The identity port: passwords live in the Cognito user pool (cognito-local in the local stack), never in
 * the table. The username is the email address (the pool signs in by email); the pool's `sub` ties an
 * identity to the service's user (lib/store/account.ts identity items).
 */
export interface IdentityProvider {
  /** Creates an identity with a permanent password; 'exists' when the address has one already. */
  create(email: string, password: string): Promise<{ sub: string } | 'exists'>;
  /** Sets the password, creating the identity when the address has none (users made by an operator). */
  setPassword(email: string, password: string): Promise<{ sub: string }>;
  /** Signs in with a password: the pool's tokens, or undefined for a wrong password or an unknown address. */
  authenticate(email: string, password: string): Promise<{ sub: string; tokens: PoolTokens } | undefined>;
  /** Marks the address verified in the pool. */
  markVerified(email: string): Promise<void>;
}

const errorName = (error: unknown) => (error as { name?: string }).name;

/** The `sub` claim of a token the pool has just issued to us (over TLS; verified tokens come in through bearer.ts). */
function subOf(accessToken: string): string {
  const payload = JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub?: string };
  if (!payload.sub) throw new Error('The user pool issued a token without sub');
  return payload.sub;
}

export class CognitoIdentities implements IdentityProvider {
  private client?: Promise<{ sdk: typeof import('@aws-sdk/client-cognito-identity-provider'); client: CognitoIdentityProviderClient }>;

  constructor(private readonly config: { userPoolId: string; clientId: string; endpoint?: string | undefined; region?: string | undefined }) {}

  /** The SDK is loaded on first use: GraphQL cold starts never pay for it. */
  private sdk() {
    this.client ??= import('@aws-sdk/client-cognito-identity-provider').then((sdk) => ({
      sdk,
      client: new sdk.CognitoIdentityProviderClient({
        ...(this.config.endpoint ? { endpoint: this.config.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
        ...(this.config.region ? { region: this.config.region } : {}),
      }),
    }));
    return this.client;
  }

  async create(email: string, password: string): Promise<{ sub: string } | 'exists'> {
    const { sdk, client } = await this.sdk();
    let created;
    try {
      created = await client.send(
        new sdk.AdminCreateUserCommand({
          UserPoolId: this.config.userPoolId,
          Username: email,
          MessageAction: 'SUPPRESS',
          UserAttributes: [
            { Name: 'email', Value: email },
            { Name: 'email_verified', Value: 'false' },
          ],
        }),
      );
    } catch (error) {
      if (errorName(error) === 'UsernameExistsException') return 'exists';
      throw error;
    }
    await this.sendPassword(email, password);
    const sub = created.User?.Attributes?.find((attribute) => attribute.Name === 'sub')?.Value;
    if (!sub) throw new Error('The user pool created an identity without sub');
    return { sub };
  }

  async setPassword(email: string, password: string): Promise<{ sub: string }> {
    const created = await this.create(email, password);
    if (created !== 'exists') return created;
    await this.sendPassword(email, password);
    const { sdk, client } = await this.sdk();
    const user = await client.send(new sdk.AdminGetUserCommand({ UserPoolId: this.config.userPoolId, Username: email }));
    const sub = user.UserAttributes?.find((attribute) => attribute.Name === 'sub')?.Value;
    if (!sub) throw new Error('The user pool has an identity without sub');
    return { sub };
  }

  /** The pool's own password policy is no stricter than the service's; should it refuse one, that is the client's 400. */
  private async sendPassword(email: string, password: string): Promise<void> {
    const { sdk, client } = await this.sdk();
    try {
      await client.send(new sdk.AdminSetUserPasswordCommand({ UserPoolId: this.config.userPoolId, Username: email, Password: password, Permanent: true }));
    } catch (error) {
      if (errorName(error) === 'InvalidPasswordException') throw new AccountError('AUTH_REQUEST_REJECTED', 400, `The password was refused: ${(error as Error).message}`);
      throw error;
    }
  }

  async authenticate(email: string, password: string): Promise<{ sub: string; tokens: PoolTokens } | undefined> {
    const { sdk, client } = await this.sdk();
    try {
      const result = await client.send(
        new sdk.AdminInitiateAuthCommand({
          UserPoolId: this.config.userPoolId,
          ClientId: this.config.clientId,
          AuthFlow: 'ADMIN_USER_PASSWORD_AUTH',
          AuthParameters: { USERNAME: email, PASSWORD: password },
        }),
      );
      const auth = result.AuthenticationResult;
      if (!auth?.AccessToken || !auth.IdToken) return undefined;
      return {
        sub: subOf(auth.AccessToken),
        tokens: { accessToken: auth.AccessToken, idToken: auth.IdToken, refreshToken: auth.RefreshToken ?? null, expiresIn: auth.ExpiresIn ?? 3600 },
      };
    } catch (error) {
      // cognito-local answers a wrong password with InvalidPasswordException, Cognito with NotAuthorizedException.
      const refusals = ['NotAuthorizedException', 'InvalidPasswordException', 'UserNotFoundException', 'PasswordResetRequiredException', 'UserNotConfirmedException'];
      if (refusals.includes(errorName(error) ?? '')) return undefined;
      throw error;
    }
  }

  async markVerified(email: string): Promise<void> {
    const { sdk, client } = await this.sdk();
    await client.send(new sdk.AdminUpdateUserAttributesCommand({ UserPoolId: this.config.userPoolId, Username: email, UserAttributes: [{ Name: 'email_verified', Value: 'true' }] }));
  }
}

export function identitiesFromEnv(env: NodeJS.ProcessEnv = process.env): IdentityProvider {
  if (!env.COGNITO_USER_POOL_ID || !env.COGNITO_CLIENT_ID) throw new Error('COGNITO_USER_POOL_ID and COGNITO_CLIENT_ID must name the user pool and its app client');
  return new CognitoIdentities({ userPoolId: env.COGNITO_USER_POOL_ID, clientId: env.COGNITO_CLIENT_ID, endpoint: env.COGNITO_ENDPOINT, region: env.AWS_REGION });
}
