import { GraphQLError } from 'graphql';
import { describe, expect, it, vi } from 'vitest';
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

  it('logs what it hides, at ERROR with the cause and the path; a domain error or a GraphQL error is not logged', () => {
    const lines: string[] = [];
    // Powertools Logger writes through a Console of its own on the process's streams (ERROR: stderr).
    const capture = (chunk: unknown) => {
      if (String(chunk).includes('"level"')) lines.push(String(chunk));
      return true;
    };
    const spies = [vi.spyOn(process.stdout, 'write').mockImplementation(capture), vi.spyOn(process.stderr, 'write').mockImplementation(capture)];
    try {
      maskError(new GraphQLError('ignored', { originalError: new PermissionDeniedError('components.read') }), 'Unexpected error.');
      maskError(new GraphQLError('Cannot query field "nope" on type "Query".'), 'Unexpected error.');
      expect(lines).toEqual([]);
      maskError(new GraphQLError('boom', { originalError: new Error('stored item does not match its schema'), path: ['transfer', 'exportLibrary'] }), 'Unexpected error.');
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(lines).toHaveLength(1);
    const logged = JSON.parse(lines[0]!);
    expect(logged).toMatchObject({ level: 'ERROR', message: 'server fault', path: 'transfer.exportLibrary', error: { message: 'stored item does not match its schema' } });
    expect(logged.error.stack).toContain('maskError.test.ts');
  });
});
