import { InvalidInputError } from '../errors.js';

const slugPattern = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** Slugs appear in headers (@org/lib) and URLs: lowercase letters, digits and inner hyphens, 1 to 64 long. */
export function assertValidSlug(slug: string, what: string): void {
  if (!slugPattern.test(slug)) {
    throw new InvalidInputError(`${what} slug "${slug}" is invalid: use 1 to 64 lowercase letters, digits and inner hyphens`, { field: 'slug' });
  }
}

const domainPattern = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** A lower-case DNS name of at least two labels (acme.test), as verified domains and allowlists hold them. */
export function isDomainName(value: string): boolean {
  return domainPattern.test(value);
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}
