import { samlProvidersFromEnv } from '../../lib/saml/providers.js';
import { resyncSamlFederation, type ResyncResult } from '../../lib/saml/resync.js';
import { createStore } from '../../lib/store/client.js';

/**
 * The SAML federation resync (lib/saml/resync.ts), run by the deployment's trigger after the federated
 * app client is created or updated (infra/stack/userPool.ts): CloudFormation writes the client's template list back,
 * this puts the enabled organizations' providers on it again. An organization whose provider cannot be put
 * back is logged as an ERROR and left off; the deployment fails only when the resync cannot run at all.
 */
export async function handler(): Promise<ResyncResult> {
  const store = createStore();
  const result = await resyncSamlFederation(store, samlProvidersFromEnv());
  const problems = result.organizations.filter((organization) => organization.problem);
  console.log(JSON.stringify({ level: problems.length ? 'ERROR' : 'INFO', message: 'SAML federation resync', ...result }));
  return result;
}
