import { describe, expect, it } from 'vitest';
import { findOneIds } from '../../functions/graphql/readAhead.js';

const a = '0b7a3f3e-5d8e-4c1a-9d1e-1f2a3b4c5d6e';
const b = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';

describe('read-ahead: the component ids an operation will read with component.findOne', () => {
  it('takes ids from literals and variables of the operation that runs', () => {
    expect(findOneIds(`{ component { findOne(id: "${a}") { id } } }`, {}, undefined)).toEqual([a]);
    expect(findOneIds('query($id: ID!) { component { findOne(id: $id) { id name } } }', { id: b }, undefined)).toEqual([b]);
    expect(findOneIds(`query One { component { x: findOne(id: "${a}") { id } y: findOne(id: $id) { id } } }`, { id: b }, 'One')).toEqual([a, b]);
    const two = `query A { component { findOne(id: "${a}") { id } } } query B { component { findOne(id: "${b}") { id } } }`;
    expect(findOneIds(two, {}, 'B')).toEqual([b]);
    // Without an operation name, a document of two operations names no operation: nothing is read ahead.
    expect(findOneIds(two, {}, undefined)).toEqual([]);
  });

  it('leaves out what it does not recognize (the resolver reads it as usual)', () => {
    // asOf reads history, not the item.
    expect(findOneIds(`{ component { findOne(id: "${a}", asOf: "2026-01-01T00:00:00Z") { id } } }`, {}, undefined)).toEqual([]);
    // Not a UUID, a missing variable, a mutation, a directive, a fragment, a field of another namespace.
    expect(findOneIds('{ component { findOne(id: "R-100") { id } } }', {}, undefined)).toEqual([]);
    expect(findOneIds('query($id: ID!) { component { findOne(id: $id) { id } } }', {}, undefined)).toEqual([]);
    expect(findOneIds(`mutation { component { findOne(id: "${a}") { id } } }`, {}, undefined)).toEqual([]);
    expect(findOneIds(`{ component @skip(if: true) { findOne(id: "${a}") { id } } }`, {}, undefined)).toEqual([]);
    expect(findOneIds(`{ component { findOne(id: "${a}") @include(if: false) { id } } }`, {}, undefined)).toEqual([]);
    expect(findOneIds(`{ component { ...F } } fragment F on ComponentQueryNamespace { findOne(id: "${a}") { id } }`, {}, undefined)).toEqual([]);
    expect(findOneIds(`{ file { findOne(id: "${a}") { id } } }`, {}, undefined)).toEqual([]);
    // A document it cannot parse, or a long one, is yoga's to answer.
    expect(findOneIds(`{ component { findOne(id: "${a}") { id }`, {}, undefined)).toEqual([]);
    expect(findOneIds(`{ component { findOne(id: "${a}") { id ${'name '.repeat(500)}} } }`, {}, undefined)).toEqual([]);
  });

  it('parses a document once, and takes the ids of each call from its own variables', () => {
    const query = 'query Find($id: ID!) { component { findOne(id: $id) { id } } } query Other($id: ID!) { component { findOne(id: $id) { id name } } }';
    expect(findOneIds(query, { id: a }, 'Find')).toEqual([a]);
    expect(findOneIds(query, { id: b }, 'Find')).toEqual([b]);
    expect(findOneIds(query, { id: 'R-100' }, 'Find')).toEqual([]);
    // Remembered per operation name: the same text without a name names no operation.
    expect(findOneIds(query, { id: a }, undefined)).toEqual([]);
    expect(findOneIds(query, { id: b }, 'Other')).toEqual([b]);
    // More documents than it remembers: the oldest are parsed again, with the same answers.
    for (let i = 0; i < 150; i++) expect(findOneIds(`query Q${i}($id: ID!) { component { findOne(id: $id) { id } } }`, { id: i % 2 ? a : b }, `Q${i}`)).toEqual([i % 2 ? a : b]);
    expect(findOneIds(query, { id: a }, 'Find')).toEqual([a]);
  });

  it('keeps an empty operation name apart from none (graphql-js runs no operation named "")', () => {
    const single = `{ component { findOne(id: "${a}") { id } } }`;
    expect(findOneIds(single, {}, undefined)).toEqual([a]);
    expect(findOneIds(single, {}, '')).toEqual([]);
  });
});
