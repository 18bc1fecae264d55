import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getNamedType, isNonNullType, isObjectType, type GraphQLField, type GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../../functions/graphql/schema.js';

/**
 * Holds every operation of the spec's Queries and Mutations tables against the built schema: each
 * argument the spec types (`name: Type`) must exist with exactly that type, nullability included, and a
 * return the spec names as a type must be that type. A client written from the spec must work unmodified.
 */
const specPath = fileURLToPath(new URL('../../../shared/spec/interface.md', import.meta.url));
const spec = readFileSync(specPath, 'utf8');
const schema = buildSchema();

interface SpecOperation {
  root: 'Query' | 'Mutation';
  name: string;
  args: { name: string; type: string }[];
  returns: string;
}

function tableRows(heading: string): string[][] {
  const section = spec.split(`### ${heading}\n`)[1]!.split('\n### ')[0]!;
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| ---') && !line.startsWith('| Operation '))
    .map((line) =>
      line
        .slice(2, -2)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
}

function operations(root: 'Query' | 'Mutation', heading: string): SpecOperation[] {
  return tableRows(heading).map(([name, args, returns]) => ({
    root,
    name: name!,
    args: [...(args ?? '').matchAll(/(\w+): ([A-Z[][[\]\w!]*)/g)].map((match) => ({ name: match[1]!, type: match[2]! })),
    returns: returns ?? '',
  }));
}

/** `component.findOne` -> the field under Query.component; a bare name is looked up at the root or in any namespace. */
function findField(root: GraphQLObjectType, name: string): GraphQLField<unknown, unknown> | undefined {
  const namespace = /^(\w+) \((?:query|mutation) namespace\)$/.exec(name);
  if (namespace) return root.getFields()[namespace[1]!];
  if (/^\w+([.\s]\w+)+$/.test(name)) {
    // A path through namespaces: organization.membership.update.
    let type: GraphQLObjectType | undefined = root;
    let field: GraphQLField<unknown, unknown> | undefined;
    for (const part of name.split(/[.\s]+/)) {
      field = type?.getFields()[part];
      const next: ReturnType<typeof getNamedType> | undefined = field && getNamedType(field.type);
      type = next && isObjectType(next) ? next : undefined;
    }
    return field;
  }
  const direct = root.getFields()[name];
  if (direct) return direct;
  for (const field of Object.values(root.getFields())) {
    const type = getNamedType(field.type);
    if (isObjectType(type) && type.getFields()[name]) return type.getFields()[name];
  }
  return undefined;
}

/**
 * Operations of the spec that the service does not serve yet (their issues are open). Listing one that
 * exists fails the test, so the list only shrinks. Every operation of the spec is served now.
 */
const notYetServed = new Set<string>([]);

/** A return cell that names a type: `[Library]`, `Boolean!`, `FilterWithAiOutput`, `Component (nullable)`. */
function namedReturn(cell: string): { type: string; nullable?: boolean } | undefined {
  const nullable = /^(\w+) \(nullable\)$/.exec(cell);
  if (nullable) return { type: nullable[1]!, nullable: true };
  const typed = /^(\[?[A-Z]\w*!?\]?!?)$/.exec(cell);
  return typed ? { type: typed[1]! } : undefined;
}

const all = [...operations('Query', 'Queries'), ...operations('Mutation', 'Mutations')];

describe("the spec's operation signatures", () => {
  it('reads both tables of the spec', () => {
    expect(all.length).toBeGreaterThan(50);
  });

  for (const operation of all) {
    const served = !notYetServed.has(operation.name);
    it(`${operation.root} ${operation.name}${served ? '' : ' (not served yet)'}`, () => {
      const root = operation.root === 'Query' ? schema.getQueryType()! : schema.getMutationType()!;
      // A row naming several operations ("recommendedAttributes, accessPolicy") shows no signature: each must exist.
      if (served && operation.name.includes(', ')) {
        for (const name of operation.name.split(', ')) expect(findField(root, name), `${operation.root} ${name} is missing`).toBeDefined();
        return;
      }
      const field = findField(root, operation.name);
      if (!served) {
        expect(field, `${operation.name} is served now: remove it from notYetServed`).toBeUndefined();
        return;
      }
      expect(field, `${operation.root} ${operation.name} is missing`).toBeDefined();
      for (const arg of operation.args) {
        const actual = field!.args.find((candidate) => candidate.name === arg.name);
        expect(actual, `${operation.name}(${arg.name}) is missing`).toBeDefined();
        expect(String(actual!.type), `${operation.name}(${arg.name})`).toBe(arg.type);
      }
      const returns = namedReturn(operation.returns);
      if (returns) {
        const actual = String(field!.type);
        if (returns.nullable) {
          expect(isNonNullType(field!.type), `${operation.name} returns a nullable ${returns.type}`).toBe(false);
          expect(getNamedType(field!.type).name).toBe(returns.type);
        } else {
          // The spec writes [Library] for a list of libraries; the schema may say [Library!]!: compare the names and list-ness.
          expect(actual.replaceAll('!', ''), `${operation.name} returns`).toBe(returns.type.replaceAll('!', ''));
          if (returns.type.endsWith('!')) expect(actual.endsWith('!')).toBe(true);
        }
      }
    });
  }
});
