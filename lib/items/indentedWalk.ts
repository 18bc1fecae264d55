import * as z from 'zod';
import { InvalidInputError } from '../errors.js';
import { IndentedBomTooLargeError } from './errors.js';
import type { LibraryRef } from '../model/scope.js';
import { decodeCursor, encodeCursor } from '../search/cursor.js';
import { getBoms, type BomLine } from '../store/bom.js';
import type { Store } from '../store/client.js';
import { getUsages } from '../store/usage.js';
import { maxIndentedDepth, maxIndentedLines, type AssemblyLinkView } from './reads.js';

/**
 * The indented walks (indentedBom, indentedWhereUsed), unpaged or in pages, over one walker.
 *
 * A walk is depth first in line order. A node is what a line leads to (for indentedBom the child and its
 * BOM; for indentedWhereUsed the assembly and the lines of the assemblies that use it); a line needs the
 * node it leads to before it is shown (hasChildren). Nodes are read in rounds: each round simulates the walk
 * ahead from where it stands, an unread node counting as one line, and reads the unread nodes met within
 * the lines still wanted (at most `batch` of them: one BatchGetItem per round when paged, every one when
 * unpaged, so an unpaged walk reads about one round per level, as it always has).
 *
 * A line's cursor is its position: the node keys from the top down to the node the line leads to, and at
 * each level the line's index and id. Resuming reads those nodes in one round (the levels the position
 * crosses), finds each line again (by index, else by id when its BOM changed between pages), and walks on
 * from there: a page costs the page and the levels it crosses, never a walk from the top. Rolled-up
 * quantities are multiplied from the top in the same order as the unpaged walk, so they are the same
 * numbers to the last bit.
 */

/** One line of a node: its view, and the node it leads to (key to read it by, component id). */
export interface WalkLine {
  link: AssemblyLinkView;
  toKey: string;
  toId: string;
}

export interface WalkNode {
  lines: WalkLine[];
}

/** How a walk reads its nodes. */
export interface WalkSource {
  /** Names the walk in its cursors (a cursor of another walk is refused). */
  kind: 'bom' | 'bomAsOf' | 'whereUsed';
  /** What else a cursor is bound to (asOf), '' when nothing. */
  context: string;
  /** Nodes by key: every key asked for is in the answer (null: the component did not exist). */
  load(keys: string[]): Promise<Map<string, WalkNode | null>>;
  /** The line as shown, given the node it leads to (asOf shows the child as it was). */
  show?(line: WalkLine, to: WalkNode | null): AssemblyLinkView;
}

export interface IndentedBomEntry {
  level: number;
  /** Component ids from the component asked about to the one this line leads to. */
  path: string[];
  link: AssemblyLinkView;
  /** The line's quantity times the quantities of every line above it (an unset quantity counts as 1). */
  rolledUpQuantity: number;
  hasChildren: boolean;
  /** The line's position: `after` of the next page. */
  cursor: string;
}

/** Lines of one page (first); see schema/README.md for what a page costs against the query budget. */
export const maxIndentedPageLines = 1_000;
/** Lines of a page when `after` is given without `first`. */
export const defaultIndentedPageLines = 500;
/** Nodes read per round of a paged walk: one BatchGetItem. */
const pagedBatch = 100;

export interface PageRequest {
  first?: number | null;
  after?: string | null;
}

/** depth 1 to 25 (BAD_USER_INPUT otherwise). */
export function checkDepth(depth: number): void {
  if (!Number.isInteger(depth) || depth < 1 || depth > maxIndentedDepth) throw new InvalidInputError(`depth must be 1 to ${maxIndentedDepth}`, { field: 'depth' });
}

/** Paged when first or after is given; first 1 to 1,000. */
export function pageOf(request: PageRequest): { first: number; after: string | null } | null {
  const { first, after } = request;
  if ((first === undefined || first === null) && (after === undefined || after === null)) return null;
  const size = first ?? defaultIndentedPageLines;
  if (!Number.isInteger(size) || size < 1 || size > maxIndentedPageLines) throw new InvalidInputError(`first must be 1 to ${maxIndentedPageLines}`, { field: 'first' });
  return { first: size, after: after ?? null };
}

const cursorTag = 'indented';
const position = z.object({
  v: z.literal(1),
  /** The walk, its context and depth. */
  k: z.enum(['bom', 'bomAsOf', 'whereUsed']),
  c: z.string(),
  d: z.number().int(),
  /** Node keys from the top to the node the line leads to. */
  n: z
    .array(z.string())
    .min(2)
    .max(maxIndentedDepth + 1),
  /** At each level, the line's index in its node and its id. */
  i: z.array(z.number().int().nonnegative()).max(maxIndentedDepth),
  l: z.array(z.string()).max(maxIndentedDepth),
});
type Position = z.infer<typeof position>;

const badCursor = (why: string) => new InvalidInputError(`after is not a cursor of this walk: ${why}`, { field: 'after' });

function decodePosition(after: string, source: WalkSource, rootKey: string, depth: number): Position {
  let parsed: Position;
  try {
    const [tag, body] = decodeCursor(after);
    if (tag !== cursorTag) throw new Error('tag');
    parsed = position.parse(JSON.parse(body));
  } catch {
    throw badCursor('not one this API issued');
  }
  if (parsed.k !== source.kind) throw badCursor(`it belongs to ${parsed.k === 'whereUsed' ? 'indentedWhereUsed' : parsed.k === 'bomAsOf' ? 'indentedBom with asOf' : 'indentedBom without asOf'}`);
  if (parsed.c !== source.context) throw badCursor('it was issued for another asOf');
  if (parsed.d !== depth) throw badCursor(`it was issued for depth ${parsed.d}`);
  if (parsed.n[0] !== rootKey) throw badCursor('it was issued for another component');
  if (parsed.i.length !== parsed.n.length - 1 || parsed.l.length !== parsed.i.length || parsed.i.length > depth) throw badCursor('not one this API issued');
  return parsed;
}

interface Frame {
  node: WalkNode;
  /** The index of the next line to show. */
  next: number;
  quantity: number;
  /** Component ids from the top to this node; node keys likewise; the line indices and ids leading here. */
  path: string[];
  keys: string[];
  indices: number[];
  lineIds: string[];
}

/**
 * Up to `limit` lines of the walk from the top (rootId, read by rootKey), or after the position `after`.
 * `limit` lines are returned only when there are that many; an unpaged caller asks for one more than it
 * allows and refuses a walk that has it.
 */
export async function walkIndented(source: WalkSource, rootKey: string, rootId: string, depth: number, limit: number, after: string | null, batch: number): Promise<IndentedBomEntry[]> {
  checkDepth(depth);
  const loaded = new Map<string, WalkNode | null>();
  const read = async (keys: string[]) => {
    const wanted = keys.filter((key) => !loaded.has(key));
    if (wanted.length === 0) return;
    const nodes = await source.load(wanted);
    for (const key of wanted) loaded.set(key, nodes.get(key) ?? null);
  };
  const at = after ? decodePosition(after, source, rootKey, depth) : null;
  await read(at ? at.n : [rootKey]);
  const root = loaded.get(rootKey);
  if (!root) return [];
  const frames: Frame[] = [{ node: root, next: 0, quantity: 1, path: [rootId], keys: [rootKey], indices: [], lineIds: [] }];

  if (at) {
    // Stand on the cursor's line again: each level's line by its index, or by its id if the BOM moved it.
    for (let k = 0; k < at.i.length; k += 1) {
      const frame = frames[k]!;
      const lines = frame.node.lines;
      const matches = (line: WalkLine | undefined) => line !== undefined && line.toKey === at.n[k + 1] && line.link.line.lineId === at.l[k];
      const index = matches(lines[at.i[k]!]) ? at.i[k]! : lines.findIndex(matches);
      if (index < 0) {
        // The line is gone: the walk goes on with the line that now stands where it stood.
        frame.next = Math.min(at.i[k]!, lines.length);
        break;
      }
      frame.next = index + 1;
      const line = lines[index]!;
      const to = loaded.get(line.toKey) ?? null;
      const level = k + 1;
      if (!to || level >= depth || frame.path.includes(line.toId)) break;
      frames.push(childFrame(frame, line, index, to));
    }
  }

  const lines: IndentedBomEntry[] = [];
  while (lines.length < limit && frames.length > 0) {
    const frame = frames.at(-1)!;
    if (frame.next >= frame.node.lines.length) {
      frames.pop();
      continue;
    }
    const line = frame.node.lines[frame.next]!;
    if (!loaded.has(line.toKey)) {
      await read(ahead(frames, loaded, depth, limit - lines.length, batch));
      continue;
    }
    const to = loaded.get(line.toKey) ?? null;
    const index = frame.next;
    frame.next += 1;
    const level = frames.length;
    const rolledUpQuantity = frame.quantity * (line.link.line.quantity ?? 1);
    // Line quantities up to 2^53 multiplied down 20 levels pass what a number holds: refused, not an error where the Float is written.
    if (!Number.isFinite(rolledUpQuantity)) {
      throw new InvalidInputError(`depth: at level ${level} the rolled-up quantity passes what a number holds; read fewer levels`, { field: 'depth', level });
    }
    const cursor = encodeCursor(
      cursorTag,
      JSON.stringify({
        v: 1,
        k: source.kind,
        c: source.context,
        d: depth,
        n: [...frame.keys, line.toKey],
        i: [...frame.indices, index],
        l: [...frame.lineIds, line.link.line.lineId],
      } satisfies Position),
    );
    lines.push({
      level,
      path: [...frame.path, line.toId],
      link: source.show ? source.show(line, to) : line.link,
      rolledUpQuantity,
      hasChildren: (to?.lines.length ?? 0) > 0,
      cursor,
    });
    // A BOM never contains its own assembly (writes refuse cycles); the path check guards old data anyway.
    if (to && level < depth && !frame.path.includes(line.toId)) frames.push(childFrame(frame, line, index, to));
  }
  return lines;
}

function childFrame(parent: Frame, line: WalkLine, index: number, node: WalkNode): Frame {
  return {
    node,
    next: 0,
    quantity: parent.quantity * (line.link.line.quantity ?? 1),
    path: [...parent.path, line.toId],
    keys: [...parent.keys, line.toKey],
    indices: [...parent.indices, index],
    lineIds: [...parent.lineIds, line.link.line.lineId],
  };
}

/**
 * The unread nodes the next `wanted` lines may need, in walk order, at most `batch`: the walk simulated from
 * where it stands, each unread node counted as one line (the least it can be).
 */
function ahead(frames: Frame[], loaded: Map<string, WalkNode | null>, depth: number, wanted: number, batch: number): string[] {
  const keys = new Set<string>();
  const stack = frames.map((frame) => ({ node: frame.node, next: frame.next, path: frame.path }));
  let count = 0;
  while (stack.length > 0 && count < wanted && keys.size < batch) {
    const frame = stack.at(-1)!;
    if (frame.next >= frame.node.lines.length) {
      stack.pop();
      continue;
    }
    const line = frame.node.lines[frame.next]!;
    frame.next += 1;
    count += 1;
    if (!loaded.has(line.toKey)) {
      keys.add(line.toKey);
      continue;
    }
    const to = loaded.get(line.toKey);
    if (to && stack.length < depth && !frame.path.includes(line.toId)) stack.push({ node: to, next: 0, path: [...frame.path, line.toId] });
  }
  return [...keys];
}

/**
 * A walk unpaged (at most maxIndentedLines, else BOM_TOO_LARGE; nodes read level by level) or one page of
 * it (first lines after `after`; one BatchGetItem of nodes per round).
 */
export async function readIndented(source: WalkSource, rootKey: string, rootId: string, depth: number, page: PageRequest): Promise<IndentedBomEntry[]> {
  checkDepth(depth);
  const paged = pageOf(page);
  if (paged) return walkIndented(source, rootKey, rootId, depth, paged.first, paged.after, pagedBatch);
  const lines = await walkIndented(source, rootKey, rootId, depth, maxIndentedLines + 1, null, Number.POSITIVE_INFINITY);
  if (lines.length > maxIndentedLines) throw new IndentedBomTooLargeError(depth, maxIndentedLines);
  return lines;
}

/** The current BOMs: a node is a component's BOM (none: no lines). */
export function currentBomSource(store: Store, ref: LibraryRef): WalkSource {
  return {
    kind: 'bom',
    context: '',
    async load(ids) {
      const boms = await getBoms(store, ref.organizationId, ref.libraryId, ids);
      return new Map(ids.map((id) => [id, { lines: (boms.get(id)?.lines ?? []).map((line) => ({ link: { assemblyId: id, line }, toKey: line.childId, toId: line.childId })) }]));
    },
  };
}

/**
 * The where-used entries upwards: a node is a component's where-used entry, its lines the lines of the
 * assemblies it names that use the component (as `whereUsed` confirms each against the BOM), assemblies in
 * id order. One round reads the entries (one BatchGetItem) and then the BOMs they name (one per 100).
 */
export function whereUsedSource(store: Store, ref: LibraryRef): WalkSource {
  const boms = new Map<string, BomLine[]>();
  return {
    kind: 'whereUsed',
    context: '',
    async load(ids) {
      const usages = await getUsages(store, ref.organizationId, ref.libraryId, ids);
      const assemblies = new Map(ids.map((id) => [id, [...(usages.get(id)?.assemblies ?? [])].sort()]));
      const unread = [...new Set([...assemblies.values()].flat())].filter((id) => !boms.has(id));
      if (unread.length > 0) {
        const read = await getBoms(store, ref.organizationId, ref.libraryId, unread);
        for (const id of unread) boms.set(id, read.get(id)?.lines ?? []);
      }
      return new Map(
        ids.map((id) => [
          id,
          {
            lines: assemblies.get(id)!.flatMap((assemblyId) =>
              boms
                .get(assemblyId)!
                .filter((line) => line.childId === id || line.substitutes.includes(id))
                .map((line) => ({ link: { assemblyId, line }, toKey: assemblyId, toId: assemblyId })),
            ),
          },
        ]),
      );
    },
  };
}

/** indentedBom without asOf: the current BOMs, depth first in line order. */
export function indentedBom(store: Store, ref: LibraryRef, assemblyId: string, depth: number, page: PageRequest = {}): Promise<IndentedBomEntry[]> {
  const id = assemblyId.toLowerCase();
  return readIndented(currentBomSource(store, ref), id, id, depth, page);
}

/** indentedWhereUsed: the assemblies that use the component, and those that use them, depth first. */
export function indentedWhereUsed(store: Store, ref: LibraryRef, componentId: string, depth: number, page: PageRequest = {}): Promise<IndentedBomEntry[]> {
  const id = componentId.toLowerCase();
  return readIndented(whereUsedSource(store, ref), id, id, depth, page);
}
