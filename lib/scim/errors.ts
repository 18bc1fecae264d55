/** RFC 7644 §3.12 scimType values this service answers with. */
export type ScimType = 'invalidFilter' | 'invalidSyntax' | 'invalidValue' | 'uniqueness' | 'noTarget' | 'mutability' | 'invalidPath' | 'tooMany';

/**
 * A refusal of a SCIM request, answered as the RFC 7644 error body (`schemas`, `status`, `scimType`,
 * `detail`). Only the SCIM handler formats it.
 */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail);
    this.name = 'ScimError';
  }
}

export const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue');
