/**
 * The one rule for numbers a client may store (attribute values, BOM quantities, configuration bounds).
 * DynamoDB keeps numbers of magnitude 1e-130 to 9.99e125, and the SDK refuses integers beyond 2^53 - 1
 * that it cannot carry exactly; a JavaScript number past 2^53 is always such an integer. So a storable
 * number is finite, at most 9,007,199,254,740,991 in magnitude, and zero or at least 1e-130 in magnitude.
 */
export const maxStorableMagnitude = Number.MAX_SAFE_INTEGER;
export const minStorableMagnitude = 1e-130;

/** Why the number cannot be stored, or null when it can. */
export function storableNumberProblem(value: number): string | null {
  if (!Number.isFinite(value)) return `must be a finite number (got ${value})`;
  const magnitude = Math.abs(value);
  if (magnitude > maxStorableMagnitude) return `must be at most ${maxStorableMagnitude} in magnitude (got ${value})`;
  if (magnitude !== 0 && magnitude < minStorableMagnitude) return `must be 0 or at least ${minStorableMagnitude} in magnitude (got ${value})`;
  return null;
}
