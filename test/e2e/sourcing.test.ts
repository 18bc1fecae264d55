import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { graphql, newTenant, tenantHeaders, type Tenant } from '../support/api.js';
import { memberWithRole, ok, refusal, type Member } from './accessHelpers.js';
import { createComponent, findOne, historyOf, libraryPartition, partitionItems } from './componentHelpers.js';
import { createItems } from './itemHelpers.js';

const vendorFields = 'id kind name aliases website';
const quoteFields = 'id partId unitPrice currency moq orderMultiple stock isLegacyImport isPrimary priceBreaks { minQuantity unitPrice currency } distributor { id name }';
const partFields = `id componentId mpn lifecycle approval rank isLegacyImport isPrimary manufacturer { id name } quotes { ${quoteFields} }`;
const sourcingFields = `componentId parts { ${partFields} } primarySource { part { id } quote { id } }`;

const createVendor = `mutation($input: CreateVendorInput!) { vendorSourcing { createVendor(input: $input) { ${vendorFields} } } }`;
const createPartM = `mutation($input: CreatePartInput!) { vendorSourcing { createPart(input: $input) { ${partFields} } } }`;
const updatePartM = `mutation($input: UpdatePartInput!) { vendorSourcing { updatePart(input: $input) { ${partFields} } } }`;
const createQuoteM = `mutation($input: CreateQuoteInput!) { vendorSourcing { createQuote(input: $input) { ${quoteFields} } } }`;
const updateQuoteM = `mutation($input: UpdateQuoteInput!) { vendorSourcing { updateQuote(input: $input) { ${quoteFields} } } }`;
const primaryM = `mutation($input: SetPrimarySourceInput!) { vendorSourcing { setPrimarySource(input: $input) { ${sourcingFields} } } }`;
const ratesM = `mutation($input: SetExchangeRatesInput!) { vendorSourcing { setExchangeRates(input: $input) { baseCurrency version rates { currency rate } } } }`;
const rollupQ = `query($id: ID!, $quantity: Int!, $currency: String) { component { costRollup(id: $id, quantity: $quantity, currency: $currency) {
  componentId quantity currency total isComplete
  lines { componentId extendedQuantity orderQuantity partId quoteId priceBreakMinQuantity quoteCurrency quoteUnitPrice unitCost extendedCost }
  missing { componentId extendedQuantity reason partId quoteId } } } }`;
const sourcingQ = `query($id: ID!) { component { findOne(id: $id) { id state version vendorSourcing { ${sourcingFields} } } } }`;
const risksQ = `query { vendorSourcing { risks { componentId reason partIds usedIn { assemblyId isTop distance assembly { name } } } } }`;

describe('sourcing', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let viewer: Member;
  const ids: Record<string, string> = {};

  const vendor = async (kind: string, name: string, aliases: string[] = []) =>
    (await ok(admin, createVendor, { input: { kind, name, aliases } })).vendorSourcing.createVendor as { id: string; name: string; aliases: string[] };
  const part = async (input: Record<string, unknown>) => (await ok(admin, createPartM, { input })).vendorSourcing.createPart;
  const quote = async (input: Record<string, unknown>) => (await ok(admin, createQuoteM, { input })).vendorSourcing.createQuote;
  const sourcingItems = () => partitionItems(libraryPartition(tenant), ['SRC#', 'C#', 'H#']);

  beforeAll(async () => {
    tenant = await newTenant({ plan: 'team' });
    admin = tenantHeaders(tenant);
    viewer = await memberWithRole(tenant, 'VIEWER');
    ids.ti = (await vendor('MANUFACTURER', 'Texas Instruments', ['TI', 'Texas  Instruments Inc.'])).id;
    ids.yageo = (await vendor('MANUFACTURER', 'Yageo')).id;
    ids.murata = (await vendor('MANUFACTURER', 'Murata')).id;
    ids.digikey = (await vendor('DISTRIBUTOR', 'Digi-Key', ['DigiKey'])).id;
    ids.mouser = (await vendor('DISTRIBUTOR', 'Mouser')).id;
  });

  it('keeps a directory whose names and aliases are unique case-insensitively and resolve to one record', async () => {
    const taken = await refusal(admin, createVendor, { input: { kind: 'MANUFACTURER', name: 'ti' } });
    expect(taken.code).toBe('ALREADY_EXISTS');
    // Another kind may carry the name.
    await vendor('DISTRIBUTOR', 'TI');
    const resolved = await ok(
      viewer.headers,
      `query { vendorSourcing { a: resolveVendor(kind: MANUFACTURER, name: "texas instruments inc.") { id } b: resolveVendor(kind: MANUFACTURER, name: "Nobody") { id } } }`,
    );
    expect(resolved.vendorSourcing).toEqual({ a: { id: ids.ti }, b: null });
    const c = await createComponent(tenant, { name: 'Op amp', categoryId: 'mechanical' });
    const p = await part({ componentId: c.id, manufacturerName: 'tI', mpn: 'OPA2333', approval: 'APPROVED' });
    expect(p.manufacturer).toEqual({ id: ids.ti, name: 'Texas Instruments' });
    const q = await quote({ componentId: c.id, partId: p.id, distributorName: 'digikey', currency: 'usd', unitPrice: null });
    expect(q).toMatchObject({ distributor: { id: ids.digikey }, unitPrice: null, currency: 'USD', priceBreaks: [{ minQuantity: 1, unitPrice: null, currency: 'USD' }] });
    const list = await ok(viewer.headers, `query { vendorSourcing { vendors(kind: MANUFACTURER) { name } } }`);
    expect(list.vendorSourcing.vendors.map((v: { name: string }) => v.name)).toEqual(['Murata', 'Texas Instruments', 'Yageo']);
    // Writing needs components.update.
    expect((await refusal(viewer.headers, createVendor, { input: { kind: 'MANUFACTURER', name: 'Vishay' } })).code).toBe('FORBIDDEN');
  });

  it('refuses bad parts, quotes and primaries with their codes and writes nothing', async () => {
    const c = await createComponent(tenant, { name: 'Refusals', categoryId: 'mechanical' });
    const approved = await part({ componentId: c.id, manufacturerId: ids.yageo, mpn: 'RC0603', approval: 'APPROVED' });
    const proto = await part({ componentId: c.id, manufacturerId: ids.murata, mpn: 'GRM188', approval: 'PROTOTYPE_ONLY' });
    const before = await sourcingItems();
    const cases: [string, Record<string, unknown>, string][] = [
      [createPartM, { componentId: c.id, manufacturerId: '00000000-0000-4000-8000-000000000000', mpn: 'X' }, 'MANUFACTURER_NOT_FOUND'],
      [createPartM, { componentId: c.id, manufacturerId: ids.digikey, mpn: 'X' }, 'MANUFACTURER_NOT_FOUND'],
      [createPartM, { componentId: c.id, manufacturerName: 'Yageo', mpn: 'rc0603' }, 'DUPLICATE_MPN'],
      [updatePartM, { componentId: c.id, id: proto.id, manufacturerId: ids.yageo, mpn: 'RC0603' }, 'DUPLICATE_MPN'],
      [createQuoteM, { componentId: c.id, partId: approved.id, distributorId: ids.mouser, currency: 'USD', unitPrice: -1 }, 'INVALID_PRICE'],
      [
        createQuoteM,
        {
          componentId: c.id,
          partId: approved.id,
          distributorId: ids.mouser,
          currency: 'USD',
          priceBreaks: [
            { minQuantity: 1, unitPrice: 1 },
            { minQuantity: 10, unitPrice: -0.5 },
          ],
        },
        'INVALID_PRICE',
      ],
      [createQuoteM, { componentId: c.id, partId: approved.id, distributorId: ids.mouser, currency: 'XYZ', unitPrice: 1 }, 'UNKNOWN_CURRENCY'],
      [createQuoteM, { componentId: c.id, partId: approved.id, distributorName: 'Nobody', currency: 'USD', unitPrice: 1 }, 'DISTRIBUTOR_NOT_FOUND'],
      [primaryM, { componentId: c.id, partId: proto.id }, 'PRIMARY_NOT_APPROVED'],
    ];
    for (const [mutation, input, code] of cases) expect([code, (await refusal(admin, mutation, { input })).code]).toEqual([code, code]);
    // A non-finite price cannot even be sent as JSON; 1e400 parses as Infinity and GraphQL's Float refuses it.
    const infinite = await fetch(`${(await import('../support/api.js')).stack.baseUrl}/graphql`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: `{"query":${JSON.stringify(createQuoteM)},"variables":{"input":{"componentId":"${c.id}","partId":"${approved.id}","distributorId":"${ids.mouser}","currency":"USD","unitPrice":1e400}}}`,
    });
    expect((await infinite.json()).errors?.[0]).toBeDefined();
    expect(await sourcingItems()).toEqual(before);
    // The primary part's approval cannot leave APPROVED while it is primary.
    await ok(admin, primaryM, { input: { componentId: c.id, partId: approved.id } });
    expect((await refusal(admin, updatePartM, { input: { componentId: c.id, id: approved.id, approval: 'NOT_APPROVED' } })).code).toBe('PRIMARY_NOT_APPROVED');
  });

  async function release(componentId: string): Promise<void> {
    const co = (
      await ok(admin, `mutation($input: CreateChangeOrderInput!) { changeOrders { create(input: $input) { id } } }`, {
        input: { name: `Release ${componentId}`, templateId: 'default-one-stage', componentIds: [componentId], values: { reason: 'Release' }, stages: [{ index: 0, reviewerIds: [tenant.user.id] }] },
      })
    ).changeOrders.create;
    await ok(admin, `mutation($id: ID!) { changeOrders { submit(id: $id) { id } } }`, { id: co.id });
    await ok(admin, `mutation($id: ID!) { changeOrders { approve(id: $id) { status } } }`, { id: co.id });
  }

  it('an AML change makes a RELEASED component MODIFIED, a quote change does not; both are in history; a change order releases it', async () => {
    const c = await createComponent(tenant, { name: 'Revisioned', categoryId: 'mechanical' });
    const p = await part({ componentId: c.id, manufacturerId: ids.yageo, mpn: 'RC0402', approval: 'APPROVED' });
    await release(c.id);
    expect(await findOne(tenant, c.id)).toMatchObject({ state: 'RELEASED', revisionValue: 'B' });

    const q = await quote({ componentId: c.id, partId: p.id, distributorId: ids.mouser, currency: 'EUR', unitPrice: 0.02, stock: 5000 });
    await ok(admin, updateQuoteM, { input: { componentId: c.id, id: q.id, stock: 12 } });
    expect((await findOne(tenant, c.id))!.state).toBe('RELEASED');

    const alternate = await part({ componentId: c.id, manufacturerId: ids.murata, mpn: 'ALT-1', approval: 'APPROVED' });
    expect((await findOne(tenant, c.id))!.state).toBe('MODIFIED');
    const history = await historyOf(tenant, c.id);
    expect(history[0]!.changes).toEqual(
      expect.arrayContaining([
        { field: `sourcing.part.${alternate.id}`, from: null, to: expect.objectContaining({ mpn: 'ALT-1', approval: 'APPROVED' }) },
        { field: 'state', from: 'RELEASED', to: 'MODIFIED' },
      ]),
    );
    expect(history[1]!.changes).toEqual([{ field: `sourcing.quote.${q.id}`, from: expect.objectContaining({ stock: 5000 }), to: expect.objectContaining({ stock: 12 }) }]);
    expect(history[2]!.changes).toEqual([{ field: `sourcing.quote.${q.id}`, from: null, to: expect.objectContaining({ currency: 'EUR' }) }]);

    await release(c.id);
    expect(await findOne(tenant, c.id)).toMatchObject({ state: 'RELEASED', revisionValue: 'C' });
    // An approval change is an AML change too.
    await ok(admin, updatePartM, { input: { componentId: c.id, id: alternate.id, approval: 'NOT_APPROVED' } });
    expect((await findOne(tenant, c.id))!.state).toBe('MODIFIED');
  });

  /**
   * A 4-level assembly: TOP → 2 × SUB → 3 × MOD → leaves, plus leaves at each level, one leaf used twice.
   * Quotes in USD and EUR (rate EUR 1.1 USD), price breaks, MOQs and order multiples, a part without a
   * primary, a quote without a price, a quote in a currency without a rate.
   */
  it('rolls up costs of a multi-level assembly at 1, 100 and 10,000, matching an independent calculation line by line', async () => {
    await ok(admin, ratesM, { input: { baseCurrency: 'USD', rates: [{ currency: 'EUR', rate: 1.1 }] } });
    const leaves = await createItems(
      tenant,
      ['R1', 'C1', 'U1', 'J1', 'NOSRC', 'NOPRICE', 'JPYPART'].map((name) => ({ name: `Leaf ${name}`, categoryId: 'mechanical' })),
    );
    const leaf = Object.fromEntries(leaves.map((l) => [l.name.slice(5), l.id]));
    type Terms = { currency: string; breaks: { minQuantity: number; unitPrice: number | null }[]; moq?: number; orderMultiple?: number };
    const terms: Record<string, Terms> = {
      R1: {
        currency: 'USD',
        breaks: [
          { minQuantity: 1, unitPrice: 0.1 },
          { minQuantity: 100, unitPrice: 0.02 },
          { minQuantity: 5000, unitPrice: 0.005 },
        ],
        orderMultiple: 50,
      },
      C1: {
        currency: 'EUR',
        breaks: [
          { minQuantity: 10, unitPrice: 0.05 },
          { minQuantity: 1000, unitPrice: 0.03 },
        ],
        moq: 10,
      },
      U1: {
        currency: 'EUR',
        breaks: [
          { minQuantity: 1, unitPrice: 2.5 },
          { minQuantity: 250, unitPrice: 1.9 },
        ],
        moq: 1,
      },
      J1: { currency: 'USD', breaks: [{ minQuantity: 1, unitPrice: 0.75 }], moq: 20, orderMultiple: 10 },
      NOPRICE: { currency: 'USD', breaks: [{ minQuantity: 1, unitPrice: null }] },
      JPYPART: { currency: 'JPY', breaks: [{ minQuantity: 1, unitPrice: 30 }] },
    };
    for (const [name, t] of Object.entries(terms)) {
      // Several parts per component: a non-primary one with a cheaper quote that must not be used.
      const other = await part({ componentId: leaf[name], manufacturerId: ids.murata, mpn: `${name}-ALT`, approval: 'APPROVED', rank: 2 });
      await quote({ componentId: leaf[name], partId: other.id, distributorId: ids.mouser, currency: 'USD', unitPrice: 0.0001 });
      const primary = await part({ componentId: leaf[name], manufacturerId: ids.yageo, mpn: `${name}-1`, approval: 'APPROVED', rank: 1 });
      const q = await quote({
        componentId: leaf[name],
        partId: primary.id,
        distributorId: ids.digikey,
        currency: t.currency,
        priceBreaks: t.breaks,
        moq: t.moq ?? null,
        orderMultiple: t.orderMultiple ?? null,
      });
      await ok(admin, primaryM, { input: { componentId: leaf[name], partId: primary.id, quoteId: q.id } });
    }
    await part({ componentId: leaf.NOSRC, manufacturerId: ids.yageo, mpn: 'NOSRC-1', approval: 'APPROVED' });

    const [mod] = await createItems(tenant, [
      {
        name: 'MOD',
        categoryId: 'pcba',
        children: [
          { childId: leaf.R1, quantity: 4 },
          { childId: leaf.U1, quantity: 1 },
          { childId: leaf.NOPRICE, quantity: 1 },
        ],
      },
    ]);
    const [sub] = await createItems(tenant, [
      {
        name: 'SUB',
        categoryId: 'pcba',
        children: [
          { childId: mod!.id, quantity: 3 },
          { childId: leaf.C1, quantity: 2 },
          { childId: leaf.JPYPART, quantity: 1 },
        ],
      },
    ]);
    const [top] = await createItems(tenant, [
      {
        name: 'TOP',
        categoryId: 'pcba',
        children: [
          { childId: sub!.id, quantity: 2 },
          { childId: leaf.J1, quantity: 1 },
          { childId: leaf.R1, quantity: 5 },
          { childId: leaf.NOSRC, quantity: 1 },
        ],
      },
    ]);

    // Independent calculation.
    const perTop: Record<string, number> = { R1: 2 * 3 * 4 + 5, U1: 2 * 3, NOPRICE: 2 * 3, C1: 2 * 2, JPYPART: 2, J1: 1, NOSRC: 1 };
    const toUsd = (amount: number, currency: string) => (currency === 'EUR' ? amount * 1.1 : amount);
    const expected = (quantity: number) => {
      const lines: Record<string, unknown>[] = [];
      const missing: Record<string, unknown>[] = [];
      for (const [name, per] of Object.entries(perTop)) {
        const need = per * quantity;
        const t = terms[name];
        if (!t) {
          missing.push({ componentId: leaf[name], extendedQuantity: need, reason: 'NO_SOURCE' });
          continue;
        }
        let order = Math.max(need, t.moq ?? 1, t.breaks[0]!.minQuantity);
        order = Math.ceil(order / (t.orderMultiple ?? 1)) * (t.orderMultiple ?? 1);
        const reached = t.breaks.filter((b) => b.minQuantity <= order).at(-1)!;
        if (reached.unitPrice === null) missing.push({ componentId: leaf[name], extendedQuantity: need, reason: 'NO_PRICE' });
        else if (t.currency === 'JPY') missing.push({ componentId: leaf[name], extendedQuantity: need, reason: 'NO_RATE' });
        else {
          const unit = toUsd(reached.unitPrice, t.currency);
          lines.push({
            componentId: leaf[name],
            extendedQuantity: need,
            orderQuantity: order,
            priceBreakMinQuantity: reached.minQuantity,
            quoteCurrency: t.currency,
            quoteUnitPrice: reached.unitPrice,
            unitCost: unit,
            extendedCost: order * unit,
          });
        }
      }
      return { lines, missing };
    };

    for (const quantity of [1, 100, 10_000]) {
      const response = await graphql<any>(rollupQ, { id: top!.id, quantity }, admin);
      expect(response.body.errors).toBeUndefined();
      const rollup = response.body.data.component.costRollup;
      const want = expected(quantity);
      expect(rollup).toMatchObject({ componentId: top!.id, quantity, currency: 'USD', isComplete: false });
      const byId = (list: { componentId: string }[]) => [...list].sort((a, b) => a.componentId.localeCompare(b.componentId));
      const got = byId(rollup.lines);
      const wanted = byId(want.lines as { componentId: string }[]) as Record<string, number | string>[];
      expect(got.map((l: { componentId: string }) => l.componentId)).toEqual(wanted.map((l) => l.componentId));
      got.forEach((line: Record<string, number | string>, i: number) => {
        const w = wanted[i]!;
        expect({ ...line, unitCost: 0, extendedCost: 0, partId: 0, quoteId: 0 }).toEqual({ ...w, unitCost: 0, extendedCost: 0, partId: 0, quoteId: 0 });
        expect(line.unitCost as number).toBeCloseTo(w.unitCost as number, 6);
        expect(line.extendedCost as number).toBeCloseTo(w.extendedCost as number, 5);
      });
      expect(byId(rollup.missing).map(({ componentId, extendedQuantity, reason }: Record<string, unknown>) => ({ componentId, extendedQuantity, reason }))).toEqual(
        byId(want.missing as { componentId: string }[]),
      );
      expect(rollup.total).toBeCloseTo(
        wanted.reduce((sum, l) => sum + (l.extendedCost as number), 0),
        5,
      );
      // Budget: one request for the component, its BOM and the rates, one per level below, one per 100 purchased components.
      const capacity = JSON.parse(response.headers.get('x-plm-consumed-capacity') ?? '{}') as { requests?: number };
      expect(capacity.requests).toBeGreaterThan(0);
      expect(capacity.requests).toBeLessThanOrEqual(1 + 3 + 1 + 2);
    }
    // In EUR: USD lines are converted through the rate.
    const eur = (await ok(admin, rollupQ, { id: leaf.J1, quantity: 1, currency: 'EUR' })).component.costRollup;
    expect(eur.lines[0].unitCost).toBeCloseTo(0.75 / 1.1, 6);
    expect(eur.lines[0].orderQuantity).toBe(20);
    ids.top = top!.id;
    ids.sub = sub!.id;
    ids.mod = mod!.id;
    ids.u1 = leaf.U1!;
  });

  it('exports the same roll-up as CSV through the file store: a row per line, the missing ones with their reason, the total', async () => {
    const rollup = (await ok(admin, rollupQ, { id: ids.top, quantity: 100 })).component.costRollup;
    const exported = await graphql<any>(
      'mutation($input: ExportCostRollupInput!) { transfer { exportCostRollup(input: $input) { name status contentType downloadUrl } } }',
      { input: { componentId: ids.top, quantity: 100 } },
      admin,
    );
    expect(exported.body.errors).toBeUndefined();
    const file = exported.body.data.transfer.exportCostRollup;
    expect(file).toMatchObject({ status: 'READY', contentType: 'text/csv' });
    const rows = parse(await (await fetch(file.downloadUrl)).text(), { columns: true }) as Record<string, string>[];
    const priced = rows.filter((row) => row.cpn !== '' && row.missing === '');
    const missing = rows.filter((row) => row.missing !== '');
    expect(priced).toHaveLength(rollup.lines.length);
    expect(missing.map((row) => row.missing).sort()).toEqual(rollup.missing.map((line: { reason: string }) => line.reason).sort());
    const byQuantityAndCost = (list: { extendedQuantity: number; extendedCost: number }[]) => list.map((l) => `${l.extendedQuantity}:${l.extendedCost.toFixed(6)}`).sort();
    expect(byQuantityAndCost(priced.map((row) => ({ extendedQuantity: Number(row.extendedQuantity), extendedCost: Number(row.extendedCost) })))).toEqual(byQuantityAndCost(rollup.lines));
    const total = rows.at(-1)!;
    expect(total.name).toBe('TOTAL for 100 (incomplete: see the missing lines)');
    expect(Number(total.extendedCost)).toBeCloseTo(rollup.total, 6);
    expect(rows.every((row) => row.currency === 'USD')).toBe(true);
  });

  it('lists risks: an obsolete part three levels down names the top assembly first', async () => {
    // U1 sits TOP → SUB → MOD → U1; its approved parts become OBSOLETE / NRND.
    const sourcing = (await ok(admin, sourcingQ, { id: ids.u1 })).component.findOne.vendorSourcing;
    for (const p of sourcing.parts) await ok(admin, updatePartM, { input: { componentId: ids.u1, id: p.id, lifecycle: p.isPrimary ? 'OBSOLETE' : 'NRND' } });
    const risks = (await ok(viewer.headers, risksQ)).vendorSourcing.risks as {
      componentId: string;
      reason: string;
      usedIn: { assemblyId: string; isTop: boolean; distance: number; assembly: { name: string } }[];
    }[];
    const u1 = risks.find((r) => r.componentId === ids.u1);
    expect(u1).toMatchObject({ reason: 'END_OF_LIFE' });
    expect(u1!.usedIn).toEqual([
      { assemblyId: ids.top, isTop: true, distance: 3, assembly: { name: 'TOP' } },
      { assemblyId: ids.sub, isTop: false, distance: 2, assembly: { name: 'SUB' } },
      { assemblyId: ids.mod, isTop: false, distance: 1, assembly: { name: 'MOD' } },
    ]);
    // A component with approved ACTIVE parts is no risk.
    expect(risks.map((r) => r.reason)).not.toContain(undefined);
  });

  it('finds parts by MPN across the library and filters components by mpn: and manufacturer:', async () => {
    const filterWithQuery = `query($query: String!) { component { filterWithQuery(query: $query, pagination: { first: 50 }) { edges { node { name } } } } }`;
    const names = async (query: string) => (await ok(viewer.headers, filterWithQuery, { query })).component.filterWithQuery.edges.map((e: { node: { name: string } }) => e.node.name).sort();
    const byMpn = async (mpn: string) =>
      (await ok(viewer.headers, `query($mpn: String!) { vendorSourcing { findPartsByMpn(mpn: $mpn) { id componentId mpn manufacturer { name } } } }`, { mpn })).vendorSourcing.findPartsByMpn;
    const a = await createComponent(tenant, { name: 'Search regulator A', categoryId: 'mechanical' });
    const b = await createComponent(tenant, { name: 'Search regulator B', categoryId: 'mechanical' });
    const pa = await part({ componentId: a.id, manufacturerName: 'TI', mpn: 'TPS 7A4901' });
    const pb = await part({ componentId: b.id, manufacturerName: 'Murata', mpn: 'tps7a4901' });
    await part({ componentId: b.id, manufacturerName: 'Yageo', mpn: 'RC0402-SEARCH' });
    const found = await byMpn('TPS7A4901');
    expect(found.map((p: { id: string }) => p.id).sort()).toEqual([pa.id, pb.id].sort());
    expect(found.find((p: { id: string }) => p.id === pa.id)).toMatchObject({ componentId: a.id, mpn: 'TPS 7A4901', manufacturer: { name: 'Texas Instruments' } });
    expect(await byMpn('NO-SUCH-MPN')).toEqual([]);

    expect(await names('mpn:tps7a4901')).toEqual(['Search regulator A', 'Search regulator B']);
    expect(await names('mpn:RC0402-S*')).toEqual(['Search regulator B']);
    expect(await names('manufacturer:ti mpn:TPS*')).toEqual(['Search regulator A']);
    expect(await names('name:"Search regulator*" manufacturer!:"texas instruments"')).toEqual(['Search regulator B']);

    // The MPN changes: the index and the search follow in the same transaction.
    await ok(admin, updatePartM, { input: { componentId: a.id, id: pa.id, mpn: 'TPS7A4700' } });
    expect((await byMpn('tps7a4901')).map((p: { id: string }) => p.id)).toEqual([pb.id]);
    expect((await byMpn('TPS7A4700')).map((p: { id: string }) => p.id)).toEqual([pa.id]);
    expect(await names('mpn:tps7a4901')).toEqual(['Search regulator B']);
    // The filter condition directly.
    const filtered = await ok(viewer.headers, `query($input: AdvancedComponentFilterInput) { component { filter(input: $input) { edges { node { name } } } } }`, {
      input: { and: [{ manufacturer: { id: { eq: ids.ti } } }] },
    });
    expect(filtered.component.filter.edges.map((e: { node: { name: string } }) => e.node.name)).toContain('Search regulator A');
  });
  it('deleting a component deletes its sourcing item and MPN index entries', async () => {
    const keep = await createComponent(tenant, { name: 'Kept regulator', categoryId: 'mechanical' });
    const gone = await createComponent(tenant, { name: 'Deleted regulator', categoryId: 'mechanical' });
    await part({ componentId: keep.id, manufacturerName: 'TI', mpn: 'DEL-SHARED-1' });
    const p = await part({ componentId: gone.id, manufacturerName: 'TI', mpn: 'DEL-SHARED-1', approval: 'APPROVED' });
    await part({ componentId: gone.id, manufacturerName: 'Yageo', mpn: 'del only 2' });
    await quote({ componentId: gone.id, partId: p.id, distributorName: 'Mouser', currency: 'USD', unitPrice: 1 });
    const owned = async (componentId: string) => (await partitionItems(libraryPartition(tenant), ['SRC#', 'MPN#'])).map((i) => i.SK as string).filter((sk) => sk.endsWith(componentId));
    expect((await owned(gone.id)).sort()).toEqual([`MPN#DEL-SHARED-1#${gone.id}`, `MPN#DELONLY2#${gone.id}`, `SRC#${gone.id}`]);
    const deleted = await ok(admin, `mutation($ids: [ID!]) { component { delete(ids: $ids) { deletedIds } } }`, { ids: [gone.id] });
    expect(deleted.component.delete.deletedIds).toEqual([gone.id]);
    expect(await owned(gone.id)).toEqual([]);
    // The other component's sourcing stays.
    expect((await owned(keep.id)).sort()).toEqual([`MPN#DEL-SHARED-1#${keep.id}`, `SRC#${keep.id}`]);
  });
});
