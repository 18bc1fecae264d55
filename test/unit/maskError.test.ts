import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { maskError } from '../../functions/graphql/yoga.js';
import { PermissionDeniedError } from '../../lib/errors.js';

describe('maskError', () => {
  it('keeps a domain error message and code, with its HTTP status, even when graphql-js wrapped it', () => {
    const wrapped = new GraphQLError('ignored', { originalError: new PermissionDeniedError('components.read'), path: ['component', 'findOne'] });
    const masked = maskError(wrapped, 'Unexpected error.') as GraphQLError;
    expect(masked.message).toBe('Missing permission components.read');
    expect(masked.path).toEqual(['component', 'findOne']);
    expect(masked.extensions).toEqual({ code: 'FORBIDDEN', requiredPermission: 'components.read', http: { status: 403 } });
  });

  it('hides an unexpected error behind a generic message', () => {
    const wrapped = new GraphQLError('secret table name plm in message', { originalError: new Error('secret table name plm in message') });
    const masked = maskError(wrapped, 'Unexpected error.') as GraphQLError;
    expect(masked.message).toBe('Unexpected error.');
    expect(masked.extensions.code).toBe('INTERNAL_SERVER_ERROR');
    expect(JSON.stringify(masked.toJSON())).not.toContain('secret');
  });
});
