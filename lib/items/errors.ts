import { DomainError } from '../errors.js';

/** Errors of BOM and item writes that only lib/items raises. */

export class BomCycleError extends DomainError {
  constructor(path: string[]) {
    super('BOM_CYCLE', `The BOM would contain its own assembly: ${path.join(' -> ')}`, undefined, { path });
  }
}

/** An item write over the spec's limits; `details.limits` states them. */
export class ItemWriteTooLargeError extends DomainError {
  constructor(message: string, details: Record<string, unknown>) {
    super('ITEM_WRITE_TOO_LARGE', message, undefined, details);
  }
}

export class IndentedBomTooLargeError extends DomainError {
  constructor(depth: number, limit: number) {
    super('BOM_TOO_LARGE', `The indented BOM to depth ${depth} has more than ${limit} lines: ask for a smaller depth, or for each sub-assembly`, undefined, { limit, depth });
  }
}
