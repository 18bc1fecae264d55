/** An API key as the domain hands it out (its secret only ever as a hash). */
export type { ApiKeyRecord as ApiKey } from '../store/apiKey.js';
