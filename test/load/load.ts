/**
 * `npm run load`: sustained mixed load on the local stack, then invariants over the table.
 *
 *   npm run load                                 # 60 s, 8 clients
 *   npm run load -- --duration 60 --clients 8    # the same, said
 *   npm run load -- --duration 20 --seed 7 --json
 *
 * Starts its own local stack (infra/local/start.ts) on free ports with the deployed defaults (per-caller
 * rate limits 1,200 a minute and 300 per 10 s, PLM_CALLER_CONCURRENCY 1), seeds one organization and
 * library over the API (200 parts, 20 sub-assemblies of parts, 5 top assemblies of sub-assemblies and parts),
 * gives each client an API key of its own (a caller each: its own rate counters and its own turn), and runs
 * the clients for --duration seconds. Each client sends one request at a time, picked by weight from a mix
 * of reads, searches, item writes with BOMs and change order actions; the writes go to a small set of
 * shared components, so clients write the same components at the same moment on purpose.
 *
 * Outcomes: an answer without errors is accepted; VERSION_CONFLICT, CONFLICT (concurrent writers),
 * COMPONENT_IN_CHANGE_ORDER (a held component), RATE_LIMITED and QUERY_BUDGET_EXCEEDED (documented limits)
 * are documented refusals, counted apart; anything else (INTERNAL_SERVER_ERROR, a 5xx, another code, a
 * network failure or a timeout) is an error.
 *
 * After the run, with every client stopped, it reads the library's partition (strongly consistent Queries)
 * and checks: each component's version is its seeded version plus the writes the clients saw accepted
 * (no lost update, no write that answered an error and landed), no two accepted writes answered the same
 * version, one history record per version; each assembly's BOM is the one its latest accepted write sent;
 * every BOM line's child and substitutes have a where-used entry naming the assembly; every held component
 * is held by an OPEN or ON_HOLD change order that lists it, and every such order holds all its components;
 * each change order is in the status its client last saw; a search by state finds exactly the RELEASED and
 * the MODIFIED components of the table. Exit 1 on any error or broken invariant, 2 when the run itself fails.
 * test/bench/README.md ("Sustained load") has the figures.
 *
 * `--self-test` shows that the checks can fail: after the run and its checks, it breaks each invariant in
 * the table on purpose (a version without its write, a BOM line dropped, a where-used entry deleted, a hold
 * without its order, a change order's status moved, a component's state changed behind its search entry) and sends one request that is refused with a code the
 * workload does not expect; it exits 0 only when every invariant then reports the breach.
 *
 * Environment: LOAD_STACK_LOGS=true forwards the stack's output to stderr.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { createApiKey } from '../../lib/apikeys/apiKeys.js';
import { bootstrapTenant, type BootstrapResult } from '../../lib/orgs/bootstrap.js';
import { bomChildIds, bomRecord, type BomRecord } from '../../lib/store/bom.js';
import { changeOrderRecord, type ChangeOrderRecord } from '../../lib/store/changeOrder.js';
import { createStore, type Store } from '../../lib/store/client.js';
import { componentRecord, type ComponentRecord } from '../../lib/store/component.js';
import { listKeysWithPrefix, queryPrefix } from '../../lib/store/items.js';
import { libraryPartition } from '../../lib/store/library.js';
import { usageRecord, type UsageRecord } from '../../lib/store/usage.js';
import { startLocalStack, type LocalStack } from '../support/localStack.js';

// ---- options ------------------------------------------------------------------------------------------------

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    clients: { type: 'string', default: '8' },
    seed: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
    'self-test': { type: 'boolean', default: false },
  },
});
const durationSeconds = positive('duration', options.duration);
const clientCount = positive('clients', options.clients);
const randomSeed = positive('seed', options.seed);
/** One request that has not answered after this long is an error (TIMEOUT); the run stays bounded. */
const REQUEST_TIMEOUT_MS = 120_000;

function positive(name: string, raw: string | undefined): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer, not "${raw}"`);
  return value;
}

const log = (message: string) => process.stderr.write(`${message}\n`);

/** Refusals the API documents for what this workload does on purpose: concurrent writers, holds, limits. */
const DOCUMENTED = new Set(['VERSION_CONFLICT', 'CONFLICT', 'COMPONENT_IN_CHANGE_ORDER', 'RATE_LIMITED', 'QUERY_BUDGET_EXCEEDED']);

// ---- the shape of the library -------------------------------------------------------------------------------

const PARTS = 200;
/** The parts every client edits (component.update, item.update beside an assembly, change orders). */
const HOT_PARTS = 12;
const SUB_ASSEMBLIES = 20;
const TOP_ASSEMBLIES = 5;

// ---- a seeded random source, so a run's choices can be replayed (--seed) ----------------------------------

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Random {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(values: readonly T[]): T {
    return values[Math.floor(this.next() * values.length)]!;
  }
  /** `count` distinct values, in random order. */
  sample<T>(values: readonly T[], count: number): T[] {
    const copy = [...values];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy.slice(0, Math.min(count, copy.length));
  }
}

// ---- HTTP and outcome accounting ----------------------------------------------------------------------------

interface Cost {
  requests: number;
  readCapacityUnits: number;
  writeCapacityUnits: number;
}

interface OperationStats {
  latencies: number[];
  accepted: number;
  documented: Map<string, number>;
  errors: Map<string, number>;
  cost: Cost;
  costed: number;
}

const stats = new Map<string, OperationStats>();
/** The first few messages of each unexpected outcome, for the report. */
const errorSamples = new Map<string, string[]>();

function statsOf(operation: string): OperationStats {
  let entry = stats.get(operation);
  if (!entry) {
    entry = { latencies: [], accepted: 0, documented: new Map(), errors: new Map(), cost: { requests: 0, readCapacityUnits: 0, writeCapacityUnits: 0 }, costed: 0 };
    stats.set(operation, entry);
  }
  return entry;
}

const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

type Outcome = { kind: 'accepted'; data: any } | { kind: 'documented'; code: string } | { kind: 'error'; code: string };

interface Caller {
  name: string;
  headers: Record<string, string>;
}

let baseUrl = '';

async function call(caller: Caller, operation: string, query: string, variables: Record<string, unknown>): Promise<Outcome> {
  const started = performance.now();
  let outcome: Outcome;
  let cost: Cost | null = null;
  let detail = '';
  try {
    const response = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...caller.headers },
      body: JSON.stringify({ query, variables }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    const header = response.headers.get('x-plm-consumed-capacity');
    if (header) cost = JSON.parse(header) as Cost;
    let body: { data?: any; errors?: { message?: string; extensions?: { code?: string } }[] } = {};
    try {
      body = JSON.parse(text);
    } catch {
      detail = text.slice(0, 300);
    }
    const first = body.errors?.[0];
    if (response.status >= 500) {
      outcome = { kind: 'error', code: first?.extensions?.code ?? `HTTP_${response.status}` };
      detail = first?.message ?? detail;
    } else if (first) {
      const code = first.extensions?.code ?? `HTTP_${response.status}_NO_CODE`;
      outcome = DOCUMENTED.has(code) ? { kind: 'documented', code } : { kind: 'error', code };
      detail = first.message ?? '';
    } else if (response.status !== 200 || !body.data) {
      outcome = { kind: 'error', code: `HTTP_${response.status}` };
    } else {
      outcome = { kind: 'accepted', data: body.data };
    }
  } catch (error) {
    const name = (error as Error).name;
    outcome = { kind: 'error', code: name === 'TimeoutError' ? 'TIMEOUT' : 'NETWORK_ERROR' };
    detail = (error as Error).message;
  }
  const entry = statsOf(operation);
  entry.latencies.push(performance.now() - started);
  if (cost) {
    entry.cost.requests += cost.requests;
    entry.cost.readCapacityUnits += cost.readCapacityUnits;
    entry.cost.writeCapacityUnits += cost.writeCapacityUnits;
    entry.costed += 1;
  }
  if (outcome.kind === 'accepted') entry.accepted += 1;
  else if (outcome.kind === 'documented') bump(entry.documented, outcome.code);
  else {
    bump(entry.errors, outcome.code);
    const key = `${operation} ${outcome.code}`;
    const samples = errorSamples.get(key) ?? [];
    if (samples.length < 3) samples.push(`${caller.name}: ${detail.slice(0, 400)}`);
    errorSamples.set(key, samples);
  }
  return outcome;
}

/** Seeding must succeed: any refusal there stops the run. */
async function must(caller: Caller, query: string, variables: Record<string, unknown>): Promise<any> {
  const outcome = await call(caller, 'seed', query, variables);
  if (outcome.kind !== 'accepted') throw new Error(`seeding failed: ${outcome.code} ${JSON.stringify([...errorSamples.entries()])}`);
  return outcome.data;
}

// ---- what the clients saw: the model the invariants are checked against -------------------------------------

interface Line {
  childId: string;
  quantity: number;
  substitutes?: string[];
}

interface Written {
  /** The version the component had when the run began (or 1 for a component the run created). */
  base: number;
  /** Accepted writes of the component during the run (updates, item writes and releases). */
  accepted: number;
  /** The versions accepted writes answered (releases answer none of their own). */
  versions: number[];
  /** The lines of the accepted BOM write with the highest version, when one set the BOM. */
  bom: { version: number; lines: Line[] } | null;
}

const written = new Map<string, Written>();
/** Components some request touched without a clear outcome (an error): their invariants are reported, not judged exactly. */
const uncertain = new Set<string>();
/** The newest version any answer showed, for updates that say what they expect (expectedVersion). */
const lastSeen = new Map<string, number>();

function track(id: string, base: number): void {
  written.set(id, { base, accepted: 0, versions: [], bom: null });
  lastSeen.set(id, base);
}

function accept(id: string, version: number | null, lines?: Line[]): void {
  const entry = written.get(id);
  if (!entry) throw new Error(`accepted write of an untracked component ${id}`);
  entry.accepted += 1;
  if (version !== null) {
    entry.versions.push(version);
    lastSeen.set(id, Math.max(lastSeen.get(id) ?? 0, version));
    if (lines && (!entry.bom || version > entry.bom.version)) entry.bom = { version, lines };
  }
}

interface TrackedChangeOrder {
  client: string;
  componentIds: string[];
  /** The status its client last saw in an answer. */
  status: string;
  uncertain: boolean;
}

const changeOrders = new Map<string, TrackedChangeOrder>();

// ---- the library ------------------------------------------------------------------------------------------

interface Library {
  tenant: BootstrapResult;
  parts: string[];
  hotParts: string[];
  subAssemblies: string[];
  tops: string[];
  /** Assemblies the clients create during the run (writable once created). */
  created: string[];
}

const createItems = 'mutation ($inputs: [CreateItemInput!]!) { item { create(inputs: $inputs) { id version } } }';

async function seedLibrary(store: Store, admin: Caller & { tenant: BootstrapResult }): Promise<Library> {
  const random = new Random(randomSeed * 7919);
  const parts: string[] = [];
  for (let start = 0; start < PARTS; start += 10) {
    const data = await must(admin, createItems, {
      inputs: Array.from({ length: 10 }, (_, i) => ({ name: `Load part ${start + i}`, categoryId: 'mechanical', description: `Seeded part ${start + i}` })),
    });
    for (const created of data.item.create as { id: string; version: number }[]) {
      parts.push(created.id);
      track(created.id, created.version);
    }
  }
  const subAssemblies: string[] = [];
  for (let start = 0; start < SUB_ASSEMBLIES; start += 10) {
    const inputs = Array.from({ length: 10 }, (_, i) => ({ name: `Load sub-assembly ${start + i}`, categoryId: 'pcba', children: partLines(random, parts, 8) }));
    const data = await must(admin, createItems, { inputs });
    for (const [i, created] of (data.item.create as { id: string; version: number }[]).entries()) {
      subAssemblies.push(created.id);
      track(created.id, created.version);
      written.get(created.id)!.bom = { version: created.version, lines: inputs[i]!.children };
    }
  }
  const tops: string[] = [];
  const topInputs = Array.from({ length: TOP_ASSEMBLIES }, (_, i) => ({ name: `Load product ${i}`, categoryId: 'top-level-assembly', children: topLines(random, subAssemblies, parts) }));
  const data = await must(admin, createItems, { inputs: topInputs });
  for (const [i, created] of (data.item.create as { id: string; version: number }[]).entries()) {
    tops.push(created.id);
    track(created.id, created.version);
    written.get(created.id)!.bom = { version: created.version, lines: topInputs[i]!.children };
  }
  void store;
  return { tenant: admin.tenant, parts, hotParts: parts.slice(0, HOT_PARTS), subAssemblies, tops, created: [] };
}

/** Distinct parts with quantities; about one line in four with a substitute (another part, not on the BOM). */
function partLines(random: Random, parts: readonly string[], count: number): Line[] {
  const chosen = random.sample(parts, count + 3);
  const children = chosen.slice(0, count);
  const spare = chosen.slice(count);
  return children.map((childId, i) => ({ childId, quantity: random.int(1, 8), ...(random.next() < 0.25 && spare[i % spare.length] ? { substitutes: [spare[i % spare.length]!] } : {}) }));
}

function topLines(random: Random, subAssemblies: readonly string[], parts: readonly string[]): Line[] {
  return [...random.sample(subAssemblies, random.int(2, 4)).map((childId) => ({ childId, quantity: random.int(1, 3) })), ...partLines(random, parts, random.int(2, 6))];
}

// ---- the clients --------------------------------------------------------------------------------------------

const findOne = `query ($id: ID!) { component { findOne(id: $id) { id version name state revisionValue children { childId quantity } whereUsed { assemblyId } } } }`;
const indentedBom = `query ($id: ID!) { component { findOne(id: $id) { id indentedBom(depth: 3) { level rolledUpQuantity path } } } }`;
const filter = `query ($input: AdvancedComponentFilterInput) { component { filter(input: $input) { totalCount edges { node { id name version } } } } }`;
const findAll = `query ($p: PaginationInput) { component { findAll(pagination: $p) { totalCount edges { node { id name } } } } }`;
const listChangeOrders = `query { changeOrders { get(pagination: { first: 20 }) { totalCount nodes { id number status } } } }`;
const updateComponents = `mutation ($inputs: [UpdateComponentInput!]!) { component { update(inputs: $inputs) { id version } } }`;
const updateItems = `mutation ($inputs: [UpdateItemInput!]!) { item { update(inputs: $inputs) { id version } } }`;
const coFields = 'id status resolution components { componentId }';
const createChangeOrder = `mutation ($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { ${coFields} } } }`;
const changeOrderAction = (name: string) => `mutation ($id: ID!) { changeOrders { ${name}(id: $id) { ${coFields} } } }`;
const deleteChangeOrder = 'mutation ($id: ID!) { changeOrders { delete(id: $id) } }';

interface Client extends Caller {
  random: Random;
  /** The change order this client is taking through its lifecycle, one action per turn. */
  changeOrder: { id: string; status: string } | null;
  runs: number;
}

type Step = (client: Client, library: Library) => Promise<void>;

/** The mix: weights out of 100. Reads and searches 45, component and item writes 40, change order actions 15. */
const mix: { weight: number; step: Step }[] = [
  { weight: 15, step: readComponent },
  { weight: 5, step: readIndentedBom },
  { weight: 8, step: searchFilter },
  { weight: 5, step: searchFindAll },
  { weight: 4, step: readChangeOrders },
  { weight: 8, step: updateHotPart },
  { weight: 6, step: updateHotPartExpectingVersion },
  { weight: 6, step: updateSubAssemblyBom },
  { weight: 4, step: churnBom },
  { weight: 4, step: updateTopBom },
  { weight: 6, step: updateAssemblyWithPart },
  { weight: 6, step: createAssembly },
  { weight: 15, step: changeOrderStep },
];
const totalWeight = mix.reduce((sum, entry) => sum + entry.weight, 0);

function nextStep(random: Random): Step {
  let roll = random.next() * totalWeight;
  for (const entry of mix) {
    roll -= entry.weight;
    if (roll < 0) return entry.step;
  }
  return mix[mix.length - 1]!.step;
}

const allComponents = (library: Library) => [...library.parts, ...library.subAssemblies, ...library.tops, ...library.created];

async function readComponent(client: Client, library: Library): Promise<void> {
  const id = client.random.next() < 0.5 ? client.random.pick(library.hotParts) : client.random.pick(allComponents(library));
  const outcome = await call(client, 'component.findOne (children, whereUsed)', findOne, { id });
  if (outcome.kind === 'accepted' && outcome.data.component.findOne) {
    const version = outcome.data.component.findOne.version as number;
    lastSeen.set(id, Math.max(lastSeen.get(id) ?? 0, version));
  }
}

async function readIndentedBom(client: Client, library: Library): Promise<void> {
  await call(client, 'component.indentedBom (depth 3)', indentedBom, { id: client.random.pick(library.tops) });
}

async function searchFilter(client: Client): Promise<void> {
  const digit = client.random.int(0, 9);
  await call(client, 'component.filter (name contains AND category)', filter, {
    input: { and: [{ name: { contains: `part ${digit}` } }, { category: { id: { eq: 'mechanical' } } }], pagination: { first: 20 } },
  });
}

async function searchFindAll(client: Client): Promise<void> {
  await call(client, 'component.findAll (first 50 by name)', findAll, { p: { first: 50, orderBy: { field: 'NAME', direction: 'ASC' } } });
}

async function readChangeOrders(client: Client): Promise<void> {
  await call(client, 'changeOrders.get (first 20)', listChangeOrders, {});
}

/** Marks what a write touched when its outcome is unclear; accepted writes are counted from the answer. */
function settleWrite(outcome: Outcome, ids: string[], onAccepted: (data: any) => void): void {
  if (outcome.kind === 'accepted') onAccepted(outcome.data);
  else if (outcome.kind === 'error') for (const id of ids) uncertain.add(id);
}

async function updateHotPart(client: Client, library: Library): Promise<void> {
  const id = client.random.pick(library.hotParts);
  const outcome = await call(client, 'component.update (hot part)', updateComponents, { inputs: [{ id, description: `${client.name} run ${client.runs}` }] });
  settleWrite(outcome, [id], (data) => accept(id, data.component.update[0].version));
}

async function updateHotPartExpectingVersion(client: Client, library: Library): Promise<void> {
  const id = client.random.pick(library.hotParts);
  const expectedVersion = lastSeen.get(id)!;
  const outcome = await call(client, 'component.update (hot part, expectedVersion)', updateComponents, {
    inputs: [{ id, expectedVersion, description: `${client.name} expected ${expectedVersion}` }],
  });
  settleWrite(outcome, [id], (data) => accept(id, data.component.update[0].version));
}

async function writeBoms(client: Client, operation: string, inputs: { id: string; children?: Line[]; description?: string }[]): Promise<void> {
  const outcome = await call(client, operation, updateItems, { inputs });
  settleWrite(
    outcome,
    inputs.map((input) => input.id),
    (data) => {
      for (const [i, answer] of (data.item.update as { id: string; version: number }[]).entries()) accept(answer.id, answer.version, inputs[i]!.children);
    },
  );
}

async function updateSubAssemblyBom(client: Client, library: Library): Promise<void> {
  const id = client.random.pick(library.subAssemblies);
  await writeBoms(client, 'item.update (sub-assembly BOM)', [{ id, children: partLines(client.random, library.parts, client.random.int(4, 12)) }]);
}

/**
 * The first 3 sub-assemblies rewritten from a pool of 6 parts: lines dropped by one write and put back by the
 * next, where a late where-used removal would take a live line's entry away.
 */
async function churnBom(client: Client, library: Library): Promise<void> {
  const id = client.random.pick(library.subAssemblies.slice(0, 3));
  const pool = library.parts.slice(HOT_PARTS, HOT_PARTS + 6);
  const children = client.random.sample(pool, client.random.int(2, 4)).map((childId) => ({ childId, quantity: client.random.int(1, 4) }));
  await writeBoms(client, 'item.update (BOM churn: 3 assemblies, 6 parts)', [{ id, children }]);
}

async function updateTopBom(client: Client, library: Library): Promise<void> {
  const id = client.random.pick(library.tops);
  await writeBoms(client, 'item.update (top assembly BOM)', [{ id, children: topLines(client.random, library.subAssemblies, library.parts) }]);
}

/** One call writing an assembly's BOM (a created one when there are some) and a hot part: both or neither. */
async function updateAssemblyWithPart(client: Client, library: Library): Promise<void> {
  const pool = library.created.length > 0 && client.random.next() < 0.5 ? library.created : library.subAssemblies;
  const assembly = client.random.pick(pool);
  const part = client.random.pick(library.hotParts);
  await writeBoms(client, 'item.update (assembly BOM + hot part)', [
    { id: assembly, children: partLines(client.random, library.parts, client.random.int(3, 10)) },
    { id: part, description: `${client.name} beside ${assembly.slice(0, 8)}` },
  ]);
}

async function createAssembly(client: Client, library: Library): Promise<void> {
  const children = partLines(client.random, library.parts, client.random.int(3, 8));
  const outcome = await call(client, 'item.create (assembly with BOM)', createItems, { inputs: [{ name: `Load ${client.name} assembly ${client.runs}`, categoryId: 'pcba', children }] });
  if (outcome.kind === 'accepted') {
    const created = outcome.data.item.create[0] as { id: string; version: number };
    track(created.id, created.version);
    written.get(created.id)!.bom = { version: created.version, lines: children };
    library.created.push(created.id);
  }
}

/**
 * One action of the client's change order: create (a DRAFT of one or two hot parts, the admin as the one
 * reviewer of the one-stage template), submit (holds them; refused while another order holds one), then
 * approve (releases: one more version of each), hold and resume, withdraw, or reset to DRAFT; a DRAFT whose
 * submit was refused is deleted. Only its client acts on an order, so its status is what the client last saw.
 */
async function changeOrderStep(client: Client, library: Library): Promise<void> {
  const current = client.changeOrder;
  const random = client.random;
  if (!current) {
    const componentIds = random.sample(library.hotParts, random.int(1, 2));
    const outcome = await call(client, 'changeOrders.create', createChangeOrder, {
      input: {
        name: `Load ${client.name} ${client.runs}`,
        templateId: 'default-one-stage',
        componentIds,
        values: { reason: 'Load test' },
        stages: [{ index: 0, reviewerIds: [library.tenant.user.id], approvalType: 'Majority' }],
      },
    });
    if (outcome.kind === 'accepted') {
      const created = outcome.data.changeOrders.create as { id: string; status: string };
      changeOrders.set(created.id, { client: client.name, componentIds, status: created.status, uncertain: false });
      client.changeOrder = { id: created.id, status: created.status };
    }
    return;
  }
  let action: string;
  if (current.status === 'DRAFT') action = random.next() < 0.85 ? 'submit' : 'delete';
  else if (current.status === 'OPEN') {
    const roll = random.next();
    action = roll < 0.55 ? 'approve' : roll < 0.7 ? 'hold' : roll < 0.85 ? 'withdraw' : 'reset';
  } else if (current.status === 'ON_HOLD') action = random.next() < 0.6 ? 'resume' : 'withdraw';
  else if (current.status === 'RESOLVED') action = 'close';
  else {
    client.changeOrder = null;
    return;
  }
  const tracked = changeOrders.get(current.id)!;
  if (action === 'delete') {
    const outcome = await call(client, 'changeOrders.delete', deleteChangeOrder, { id: current.id });
    if (outcome.kind === 'accepted') {
      tracked.status = 'DELETED';
      client.changeOrder = null;
    } else if (outcome.kind === 'error') {
      tracked.uncertain = true;
      client.changeOrder = null;
    }
    return;
  }
  const outcome = await call(client, `changeOrders.${action}`, changeOrderAction(action), { id: current.id });
  if (outcome.kind === 'accepted') {
    const answer = outcome.data.changeOrders[action] as { status: string; resolution: string | null };
    if (action === 'approve' && answer.resolution === 'APPROVED') for (const id of tracked.componentIds) accept(id, null);
    tracked.status = answer.status;
    client.changeOrder = answer.status === 'CLOSED' ? null : { id: current.id, status: answer.status };
  } else if (outcome.kind === 'documented' && action === 'submit' && outcome.code === 'COMPONENT_IN_CHANGE_ORDER') {
    // Another order holds one of its parts: this draft is deleted next turn.
    client.changeOrder = { id: current.id, status: 'DRAFT' };
  } else if (outcome.kind === 'error') {
    tracked.uncertain = true;
    for (const id of tracked.componentIds) uncertain.add(id);
    client.changeOrder = null;
  }
}

async function runClient(client: Client, library: Library, deadline: number): Promise<void> {
  while (performance.now() < deadline) {
    client.runs += 1;
    await nextStep(client.random)(client, library);
  }
}

// ---- invariants over the table ------------------------------------------------------------------------------

interface Invariant {
  name: string;
  checked: number;
  breaches: string[];
  /** Findings about components whose outcome was unclear (an error answered): reported, not judged. */
  notes: string[];
}

const sameLines = (a: readonly Line[], b: readonly { childId: string; quantity: number | null; substitutes?: string[] | undefined }[]) => {
  const key = (line: { childId: string; quantity: number | null; substitutes?: string[] | undefined }) => `${line.childId}:${line.quantity}:${(line.substitutes ?? []).join('|')}`;
  return JSON.stringify(a.map(key).sort()) === JSON.stringify(b.map(key).sort());
};

const searchIds = `query ($input: AdvancedComponentFilterInput) { component { filter(input: $input) { totalCount edges { node { id } } } } }`;

/** The ids a search answers for one condition (every page of up to 1,000), or the code it was refused with. */
async function searched(caller: Caller, condition: Record<string, unknown>): Promise<Set<string> | string> {
  const outcome = await call(caller, 'check: component.filter', searchIds, { input: { and: [condition], pagination: { first: 1000 } } });
  if (outcome.kind !== 'accepted') return outcome.code;
  const page = outcome.data.component.filter as { totalCount: number; edges: { node: { id: string } }[] };
  if (page.totalCount > page.edges.length) return `more than ${page.edges.length} matches`;
  return new Set(page.edges.map((edge) => edge.node.id));
}

async function checkInvariants(store: Store, library: Library, caller: Caller): Promise<Invariant[]> {
  const { organization, library: lib } = library.tenant;
  const pk = libraryPartition(organization.id, lib.id);
  const consistent = { ConsistentRead: true } as const;
  const [components, boms, usages, orders, historyKeys] = await Promise.all([
    queryPrefix(store, pk, 'C#', componentRecord, 'component', consistent),
    queryPrefix(store, pk, 'BOM#', bomRecord, 'BOM', consistent),
    queryPrefix(store, pk, 'USEDBY#', usageRecord, 'where-used entry', consistent),
    queryPrefix(store, pk, 'CO#', changeOrderRecord, 'change order', consistent),
    listKeysWithPrefix(store, pk, 'H#'),
  ]);
  const byId = new Map<string, ComponentRecord>(components.map((c) => [c.id, c]));
  const usageOf = new Map<string, UsageRecord>(usages.map((u) => [u.childId, u]));
  const orderOf = new Map<string, ChangeOrderRecord>(orders.map((o) => [o.id, o]));
  const historyCount = new Map<string, number>();
  for (const { SK } of historyKeys) {
    const id = SK.split('#')[1]!;
    historyCount.set(id, (historyCount.get(id) ?? 0) + 1);
  }
  const judge = (invariant: Invariant, ids: readonly string[], message: string) => (ids.some((id) => uncertain.has(id)) ? invariant.notes : invariant.breaches).push(message);

  // 1. No lost update: version = seeded version + accepted writes; answered versions distinct; one history record per version.
  const versions: Invariant = { name: 'no lost update: version = seeded version + accepted writes (distinct answers, one history record per version)', checked: 0, breaches: [], notes: [] };
  for (const [id, entry] of written) {
    versions.checked += 1;
    const component = byId.get(id);
    if (!component) {
      judge(versions, [id], `${id}: accepted writes but no component in the table`);
      continue;
    }
    const expected = entry.base + entry.accepted;
    if (component.version !== expected) judge(versions, [id], `${id}: version ${component.version}, expected ${entry.base} + ${entry.accepted} accepted writes = ${expected}`);
    const duplicates = entry.versions.filter((v, i) => entry.versions.indexOf(v) !== i);
    if (duplicates.length) versions.breaches.push(`${id}: two accepted writes answered version ${[...new Set(duplicates)].join(', ')}`);
    if (historyCount.get(id) !== component.version) judge(versions, [id], `${id}: ${historyCount.get(id) ?? 0} history records for version ${component.version}`);
  }
  for (const component of components) {
    if (!written.has(component.id)) versions.notes.push(`${component.id}: in the table, created by no accepted write (a create that answered an error)`);
  }
  const unknownCreated = components.filter((c) => !written.has(c.id)).length;
  if (unknownCreated && statsOf('item.create (assembly with BOM)').errors.size === 0) versions.breaches.push(`${unknownCreated} components in the table that no create answered`);

  // 2. Each assembly's BOM is what its latest accepted BOM write sent.
  const bomWrites: Invariant = { name: "each BOM is its latest accepted write's lines", checked: 0, breaches: [], notes: [] };
  const bomOf = new Map<string, BomRecord>(boms.map((b) => [b.assemblyId, b]));
  for (const [id, entry] of written) {
    if (!entry.bom) continue;
    bomWrites.checked += 1;
    const bom = bomOf.get(id);
    if (!bom) judge(bomWrites, [id], `${id}: no BOM item, expected ${entry.bom.lines.length} lines`);
    else if (!sameLines(entry.bom.lines, bom.lines))
      judge(bomWrites, [id], `${id}: BOM of ${bom.lines.length} lines is not the one written at version ${entry.bom.version} (${entry.bom.lines.length} lines)`);
  }

  // 3. No BOM line without its where-used entry (children and substitutes alike).
  const whereUsed: Invariant = { name: 'every BOM line has its where-used entry (child and substitutes)', checked: 0, breaches: [], notes: [] };
  for (const bom of boms) {
    for (const childId of bomChildIds(bom.lines)) {
      whereUsed.checked += 1;
      const usage = usageOf.get(childId);
      if (!usage?.assemblies?.has(bom.assemblyId))
        whereUsed.breaches.push(`${bom.assemblyId} uses ${childId}, whose where-used entry ${usage ? `names ${[...(usage.assemblies ?? [])].length} others` : 'is missing'}`);
      else if (usage.deleted) whereUsed.breaches.push(`${bom.assemblyId} uses ${childId}, whose entry is marked deleted`);
      if (!byId.has(childId)) whereUsed.breaches.push(`${bom.assemblyId} uses ${childId}, which is not in the library`);
    }
  }

  // 4. Holds: every held component is held by an open order that lists it; every open order holds all its components.
  const holds: Invariant = { name: 'every held component has an open change order (OPEN, ON_HOLD) holding it, and back', checked: 0, breaches: [], notes: [] };
  for (const component of components) {
    if (!component.lockedBy) continue;
    holds.checked += 1;
    const order = orderOf.get(component.lockedBy);
    if (!order) holds.breaches.push(`${component.id} is held by ${component.lockedBy}, which does not exist`);
    else if (order.status !== 'OPEN' && order.status !== 'ON_HOLD') holds.breaches.push(`${component.id} is held by ${order.number}, which is ${order.status}`);
    else if (!order.components.some((c) => c.componentId === component.id)) holds.breaches.push(`${component.id} is held by ${order.number}, which does not list it`);
  }
  for (const order of orders) {
    if (order.status !== 'OPEN' && order.status !== 'ON_HOLD') continue;
    for (const { componentId } of order.components) {
      holds.checked += 1;
      if (byId.get(componentId)?.lockedBy !== order.id) holds.breaches.push(`${order.number} is ${order.status} but ${componentId} is held by ${byId.get(componentId)?.lockedBy ?? 'nobody'}`);
    }
  }

  // 5. Each change order is in the status its client last saw (only that client acts on it).
  const statuses: Invariant = { name: 'each change order is in the status its client last saw', checked: 0, breaches: [], notes: [] };
  for (const [id, tracked] of changeOrders) {
    statuses.checked += 1;
    const actual = orderOf.get(id)?.status ?? 'DELETED';
    if (actual !== tracked.status) (tracked.uncertain ? statuses.notes : statuses.breaches).push(`${id} (${tracked.client}): ${actual} in the table, ${tracked.status} last answered`);
  }

  // 6. The search index agrees with the table: every component, and the released ones, found by a search.
  const search: Invariant = { name: 'search finds every component, and exactly the RELEASED and MODIFIED ones, as the table has them', checked: 0, breaches: [], notes: [] };
  for (const state of ['RELEASED', 'MODIFIED'] as const) {
    const found = await searched(caller, { state: { eq: state } });
    const expected = components.filter((c) => c.state === state).map((c) => c.id);
    search.checked += expected.length;
    if (typeof found === 'string') {
      search.breaches.push(`state ${state}: the search was refused (${found})`);
      continue;
    }
    const missing = expected.filter((id) => !found.has(id));
    const extra = [...found].filter((id) => byId.get(id)?.state !== state);
    if (missing.length) search.breaches.push(`state ${state}: ${missing.length} components not found (${missing.slice(0, 3).join(', ')})`);
    if (extra.length) search.breaches.push(`state ${state}: ${extra.length} components found that are not ${state} in the table (${extra.slice(0, 3).join(', ')})`);
  }

  // 7. No internal error: no 5xx, no INTERNAL_SERVER_ERROR, no unexpected code, no timeout.
  const internal: Invariant = { name: 'no internal error (5xx, INTERNAL_SERVER_ERROR, unexpected code, timeout)', checked: 0, breaches: [], notes: [] };
  for (const [operation, entry] of stats) {
    internal.checked += entry.latencies.length;
    for (const [code, count] of entry.errors) internal.breaches.push(`${operation}: ${count} x ${code}`);
  }
  return [versions, bomWrites, whereUsed, holds, statuses, search, internal];
}

// ---- self-test: break each invariant on purpose, and see it reported ---------------------------------------

async function breakInvariants(store: Store, library: Library, caller: Caller): Promise<void> {
  const pk = libraryPartition(library.tenant.organization.id, library.tenant.library.id);
  const get = async (SK: string) => {
    const { Item } = await store.ddb.send(new GetCommand({ TableName: store.tableName, Key: { PK: pk, SK }, ConsistentRead: true }));
    if (!Item) throw new Error(`self-test: no item ${SK}`);
    return Item;
  };
  const put = (Item: Record<string, unknown>) => store.ddb.send(new PutCommand({ TableName: store.tableName, Item }));
  // A version without its write (as a lost update's survivor would look): a part no client writes.
  const cold = await get(`C#${library.parts[PARTS - 1]}`);
  await put({ ...cold, version: (cold.version as number) + 1 });
  // A BOM line gone: the first top assembly's last line.
  const top = await get(`BOM#${library.tops[0]}`);
  await put({ ...top, lines: (top.lines as unknown[]).slice(0, -1) });
  // A where-used entry gone: the first child of the first sub-assembly.
  const sub = await get(`BOM#${library.subAssemblies[0]}`);
  const childId = (sub.lines as { childId: string }[])[0]!.childId;
  await store.ddb.send(new DeleteCommand({ TableName: store.tableName, Key: { PK: pk, SK: `USEDBY#${childId}` } }));
  // A hold without its order.
  const free = await get(`C#${library.parts[PARTS - 2]}`);
  await put({ ...free, lockedBy: randomUUID() });
  // A component released behind the search index's back.
  const hidden = await get(`C#${library.parts[PARTS - 3]}`);
  await put({ ...hidden, state: hidden.state === 'RELEASED' ? 'MODIFIED' : 'RELEASED' });
  // A change order moved behind its client's back.
  const [orderId] = [...changeOrders.entries()].find(([, tracked]) => tracked.status !== 'DELETED') ?? [];
  if (!orderId) throw new Error('self-test: the run created no change order to move; run longer');
  const order = await get(`CO#${orderId}`);
  await put({ ...order, status: order.status === 'CLOSED' ? 'RESOLVED' : 'CLOSED' });
  // A refusal the workload does not expect (a field the schema does not have).
  await call(caller, 'self-test: unknown field', 'query { component { noSuchField } }', {});
}

// ---- report -------------------------------------------------------------------------------------------------

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

const fmt = (value: number) => value.toFixed(1);
const codes = (map: Map<string, number>) =>
  [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([code, count]) => `${code} ${count}`)
    .join(', ');

interface Row {
  operation: string;
  calls: number;
  accepted: number;
  documented: number;
  errors: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
  requests: number;
  readCapacityUnits: number;
  writeCapacityUnits: number;
  documentedCodes: Record<string, number>;
  errorCodes: Record<string, number>;
}

function rows(seconds: number): Row[] {
  return [...stats.entries()]
    .filter(([operation]) => operation !== 'seed' && !operation.startsWith('check:') && !operation.startsWith('self-test:'))
    .sort((a, b) => b[1].latencies.length - a[1].latencies.length)
    .map(([operation, entry]) => {
      const sorted = [...entry.latencies].sort((a, b) => a - b);
      const sum = (map: Map<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);
      const per = (value: number) => (entry.costed ? value / entry.costed : 0);
      return {
        operation,
        calls: sorted.length,
        accepted: entry.accepted,
        documented: sum(entry.documented),
        errors: sum(entry.errors),
        perSecond: sorted.length / seconds,
        p50: percentile(sorted, 50),
        p95: percentile(sorted, 95),
        p99: percentile(sorted, 99),
        requests: per(entry.cost.requests),
        readCapacityUnits: per(entry.cost.readCapacityUnits),
        writeCapacityUnits: per(entry.cost.writeCapacityUnits),
        documentedCodes: Object.fromEntries(entry.documented),
        errorCodes: Object.fromEntries(entry.errors),
      };
    });
}

function renderTable(table: Row[]): string {
  const header = ['operation', 'calls', '/s', 'accepted', 'documented', 'errors', 'p50 ms', 'p95 ms', 'p99 ms', 'req', 'RCU', 'WCU'];
  const cells = table.map((row) => [
    row.operation,
    String(row.calls),
    fmt(row.perSecond),
    String(row.accepted),
    String(row.documented),
    String(row.errors),
    fmt(row.p50),
    fmt(row.p95),
    fmt(row.p99),
    fmt(row.requests),
    fmt(row.readCapacityUnits),
    fmt(row.writeCapacityUnits),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => row[column]!.length)));
  const line = (row: string[]) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

// ---- main ---------------------------------------------------------------------------------------------------

let stack: LocalStack | undefined;

async function main(): Promise<number> {
  log(`Starting the local stack (node ${process.version}; deployed defaults for rate limits and PLM_CALLER_CONCURRENCY)...`);
  stack = await startLocalStack({}, process.env.LOAD_STACK_LOGS === 'true');
  baseUrl = stack.baseUrl;
  const store = createStore({ DYNAMODB_ENDPOINT: stack.dynamodbEndpoint, TABLE_NAME: stack.tableName, AWS_REGION: 'us-east-1' });
  const slug = `load-${Date.now().toString(36)}`;
  const tenant = await bootstrapTenant(store, { orgName: `Load ${slug}`, orgSlug: slug, libraryName: 'Main', librarySlug: 'main', email: `${slug}@example.com` });
  const context = { 'x-organization': tenant.organization.id, 'x-library': tenant.library.id };
  const admin = { name: 'seed', headers: { ...context, 'x-api-key': tenant.apiKey }, tenant };
  log(`Seeding ${PARTS} parts, ${SUB_ASSEMBLIES} sub-assemblies and ${TOP_ASSEMBLIES} top assemblies over the API...`);
  const library = await seedLibrary(store, admin);
  const scope = { organizationId: tenant.organization.id, libraryId: tenant.library.id, userId: tenant.user.id };
  const clients: Client[] = [];
  for (let i = 0; i < clientCount; i++) {
    const { secret } = await createApiKey(store, scope, { name: `load client ${i + 1}` });
    clients.push({ name: `client ${i + 1}`, headers: { ...context, 'x-api-key': secret }, random: new Random(randomSeed * 1_000 + i), changeOrder: null, runs: 0 });
  }
  log(`Running ${clientCount} clients for ${durationSeconds} s (each its own API key, one request at a time)...`);
  const started = performance.now();
  await Promise.all(clients.map((client) => runClient(client, library, started + durationSeconds * 1000)));
  const seconds = (performance.now() - started) / 1000;
  log(`Ran ${seconds.toFixed(1)} s; checking the invariants over the table...`);
  const invariants = await checkInvariants(store, library, admin);

  const table = rows(seconds);
  const total = table.reduce((sum, row) => ({ calls: sum.calls + row.calls, accepted: sum.accepted + row.accepted, documented: sum.documented + row.documented, errors: sum.errors + row.errors }), {
    calls: 0,
    accepted: 0,
    documented: 0,
    errors: 0,
  });
  const documentedByCode = new Map<string, number>();
  for (const entry of stats.values()) for (const [code, count] of entry.documented) documentedByCode.set(code, (documentedByCode.get(code) ?? 0) + count);
  const held = invariants.every((invariant) => invariant.breaches.length === 0);

  console.log('');
  console.log(`PLM load: ${clientCount} clients for ${seconds.toFixed(1)} s, seed ${randomSeed}, node ${process.version}, local stack on DynamoDB Local`);
  console.log(
    `Library: ${PARTS} parts (${HOT_PARTS} written by every client), ${SUB_ASSEMBLIES} sub-assemblies, ${TOP_ASSEMBLIES} top assemblies, ${library.created.length} assemblies created by the run.`,
  );
  console.log('Latency: client-side wall time per HTTP call; req/RCU/WCU: DynamoDB per call (x-plm-consumed-capacity), averaged.');
  console.log('');
  console.log(renderTable(table));
  console.log('');
  console.log(
    `Total: ${total.calls} calls, ${(total.calls / seconds).toFixed(1)}/s; accepted ${total.accepted} (${(total.accepted / seconds).toFixed(1)}/s), documented refusals ${total.documented}, errors ${total.errors}.`,
  );
  if (documentedByCode.size) console.log(`Documented refusals by code: ${codes(documentedByCode)}.`);
  for (const row of table) if (row.errors) console.log(`Errors of ${row.operation}: ${codes(new Map(Object.entries(row.errorCodes)))}`);
  for (const [key, samples] of errorSamples) for (const sample of samples) console.log(`  ${key}: ${sample}`);
  const releases = [...changeOrders.values()].filter((order) => order.status === 'CLOSED').length;
  console.log(
    `Change orders: ${changeOrders.size} created, ${releases} closed (released or withdrawn), ${[...changeOrders.values()].filter((o) => o.status === 'OPEN' || o.status === 'ON_HOLD').length} still holding.`,
  );
  console.log('');
  console.log('Invariants over the table (strongly consistent reads after every client stopped):');
  printInvariants(invariants);
  if (options.json) {
    console.log('');
    console.log(JSON.stringify({ clients: clientCount, seconds, seed: randomSeed, operations: table, total, documented: Object.fromEntries(documentedByCode), invariants, held }, null, 2));
  }
  if (options['self-test']) return selfTest(store, library, admin, held);
  return total.errors === 0 && held ? 0 : 1;
}

function printInvariants(invariants: Invariant[]): void {
  for (const invariant of invariants) {
    console.log(`  ${invariant.breaches.length ? 'BROKEN' : 'holds '}  ${invariant.name} (${invariant.checked} checked)`);
    for (const breach of invariant.breaches.slice(0, 10)) console.log(`      ${breach}`);
    if (invariant.breaches.length > 10) console.log(`      ... ${invariant.breaches.length - 10} more`);
    for (const note of invariant.notes.slice(0, 5)) console.log(`      note (after an error): ${note}`);
  }
}

async function selfTest(store: Store, library: Library, caller: Caller, heldBefore: boolean): Promise<number> {
  console.log('');
  console.log('Self-test: breaking each invariant in the table on purpose, then checking again:');
  await breakInvariants(store, library, caller);
  const broken = await checkInvariants(store, library, caller);
  printInvariants(broken);
  const missed = broken.filter((invariant) => invariant.breaches.length === 0);
  if (!heldBefore) console.log('Self-test: the invariants did not all hold before the breakage; the run itself failed.');
  if (missed.length) console.log(`Self-test FAILED: ${missed.map((invariant) => invariant.name).join('; ')} did not report the breach.`);
  else console.log('Self-test: every invariant reported its breach.');
  return heldBefore && missed.length === 0 ? 0 : 1;
}

let exitCode = 2;
try {
  exitCode = await main();
} catch (error) {
  log(`\nThe load run failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  if (stack) log(`Stack output (last 3,000 characters):\n${stack.output().slice(-3000)}`);
} finally {
  await stack?.stop();
}
process.exit(exitCode);
