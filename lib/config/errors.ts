import { DomainError } from '../errors.js';

/** A refused configuration document. */

/** A configuration document that fails validation; every problem is listed, nothing is stored. */
export class ConfigInvalidError extends DomainError {
  constructor(
    type: string,
    readonly problems: { path: string; message: string }[],
  ) {
    super('CONFIG_INVALID', `The ${type} document is invalid: ${problems.map((p) => `${p.path || '(root)'}: ${p.message}`).join('; ')}`, undefined, {
      configType: type,
      problems,
    });
  }
}
