import { findCategory, type LibraryConfiguration } from '../config/libraryConfig.js';
import { validateAttributeValues, type AttributeError } from './attributeValidation.js';
import type { AttributeValueChange } from './commands.js';
import { ValidationBatchTooLargeError } from './errors.js';
import { mergeAttributeValues, repeatedAttributeId } from './rules.js';

export interface AttributeValidationResult {
  success: boolean;
  message: string | null;
  errors: AttributeError[];
}

export interface AttributeValidationRequest {
  key: string;
  categoryId: string;
  attributeValues: AttributeValueChange[];
}

/** Spec limit: more requests than this refuse the whole call with HTTP 400. */
export const maxValidationRequests = 10_000;

/** The prefix that tells a client the check did not run (spec rule 7): unknown, not valid. */
export const couldNotComplete = 'Validation could not be completed';

/**
 * Pre-flight check of a component's attribute values for a category, as create and update will check them
 * (the server-side check on write is authoritative). Read-only.
 */
export function validateAttributesFor(config: LibraryConfiguration | Error, categoryId: string, attributeValues: AttributeValueChange[]): AttributeValidationResult {
  if (config instanceof Error) return { success: false, message: `${couldNotComplete}: ${config.message}`, errors: [] };
  const category = findCategory(config, categoryId);
  if (!category) return { success: false, message: `${couldNotComplete}: category "${categoryId}" does not exist in this library`, errors: [] };
  const repeated = repeatedAttributeId(attributeValues);
  const errors = repeated
    ? [{ attributeId: repeated.attributeId, message: `attributeValues[${repeated.first}] and attributeValues[${repeated.again}] both set attribute "${repeated.attributeId}"` }]
    : validateAttributeValues(category, mergeAttributeValues({}, attributeValues));
  return errors.length === 0
    ? { success: true, message: null, errors: [] }
    : { success: false, message: `${errors.length} attribute value${errors.length > 1 ? 's are' : ' is'} invalid for ${category.name}`, errors };
}

/** Each request independently, results in submission order; one failure does not fail the others. */
export function validateAttributesBatch(config: LibraryConfiguration | Error, requests: AttributeValidationRequest[]) {
  if (requests.length > maxValidationRequests) throw new ValidationBatchTooLargeError(maxValidationRequests, requests.length);
  const results = requests.map((request) => ({ key: request.key, ...validateAttributesFor(config, request.categoryId, request.attributeValues) }));
  return { success: results.every((r) => r.success), results };
}
