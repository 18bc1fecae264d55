/** The operator's SAML command: the user pool's identity providers and federated client put back in line with the table. */
import { samlProvidersFromEnv } from '../../lib/saml/providers.js';
import { resyncSamlFederation } from '../../lib/saml/resync.js';
import { InvalidInputError } from '../../lib/errors.js';
import { scanOrganizations } from '../../lib/store/organization.js';
import { localConfig } from '../local/config.js';
import { findLocalFederation } from '../local/emulators.js';
import { optionsOf, runCommand, targetEnv, type CommandHandlers } from './runCommand.js';

/**
 * Puts the user pool back in line with the table (lib/saml/resync.ts), as the deployment's trigger does:
 * lost identity providers registered again from the stored metadata, the federated client's list set to the
 * enabled ones. --scan also finds configurations saved before the metadata was stored (a Scan of the table).
 * Deployed: the pool and the federated client come from COGNITO_USER_POOL_ID and COGNITO_FEDERATED_CLIENT_ID
 * (the stack's UserPoolId and FederatedClientId outputs); local: from the running local stack. One audit
 * entry in the operator's chain, naming the organizations it went through.
 */
async function samlResync(args: string[]): Promise<void> {
  const values = optionsOf(args, { scan: { type: 'boolean' } });
  const env = targetEnv(process.env);
  let problem = false;
  await runCommand('saml-resync', values, async (store, operation) => {
    let registryEnv: NodeJS.ProcessEnv = env;
    if (env.DYNAMODB_ENDPOINT && !env.COGNITO_FEDERATION_ENDPOINT) {
      const local = await findLocalFederation(localConfig(process.env));
      registryEnv = {
        ...env,
        COGNITO_USER_POOL_ID: local.userPoolId,
        COGNITO_FEDERATED_CLIENT_ID: local.federatedClientId,
        COGNITO_FEDERATION_ENDPOINT: local.endpoint,
        AWS_REGION: env.AWS_REGION || 'us-east-1',
      };
    }
    if (!registryEnv.COGNITO_USER_POOL_ID || !registryEnv.COGNITO_FEDERATED_CLIENT_ID)
      throw new InvalidInputError("Set COGNITO_USER_POOL_ID and COGNITO_FEDERATED_CLIENT_ID (the stack's UserPoolId and FederatedClientId outputs)");
    const extra = values.scan === true ? (await scanOrganizations(store)).filter((organization) => organization.saml).map((organization) => organization.id) : [];
    const result = await resyncSamlFederation(store, samlProvidersFromEnv(registryEnv), { extraOrganizationIds: extra });
    operation.targets = result.organizations.map((organization) => organization.organizationId).slice(0, 50);
    problem = result.organizations.some((organization) => organization.problem);
    return result;
  });
  if (problem) process.exitCode = 1;
}

export const samlCommands = { 'saml-resync': samlResync } satisfies CommandHandlers;
