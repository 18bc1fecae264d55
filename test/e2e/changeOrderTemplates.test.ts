import { beforeAll, describe, expect, it } from 'vitest';
import { graphql, newTenant, ok, tenantHeaders, type Tenant } from '../support/api.js';
import { memberWithRole, refusal, type Member } from './accessHelpers.js';
import { templateDocument } from './transferHelpers.js';

const create = `mutation($input: CreateTemplateInput!) { changeOrders { createTemplate(input: $input) { id name isDefault version description stageNames template createdBy { id } } } }`;
const list = `query { changeOrders { getTemplates { id name isDefault stageNames } } }`;

const document = (reviewers: unknown[], notify?: unknown) => templateDocument(reviewers, notify);

describe('change order templates', () => {
  let tenant: Tenant;
  let admin: Record<string, string>;
  let engineer: Member;
  beforeAll(async () => {
    tenant = await newTenant();
    admin = tenantHeaders(tenant);
    engineer = await memberWithRole(tenant, 'EDITOR');
  });

  it('every library starts with a one-stage and a two-stage default template', async () => {
    const templates = (await ok(admin, list)).changeOrders.getTemplates;
    expect(templates).toEqual([
      { id: 'default-one-stage', name: 'One-stage review', isDefault: true, stageNames: ['Review'] },
      { id: 'default-two-stage', name: 'Two-stage review', isDefault: true, stageNames: ['Engineering review', 'Release approval'] },
    ]);
  });

  it('stores a template with participants given by email resolved to ids and duplicates dropped', async () => {
    const reviewers = [engineer.userId, { email: engineer.email.toUpperCase(), isRequired: true }, { email: tenant.user.email, isRequiredToApprove: true }];
    const created = (await ok(admin, create, { input: { name: 'Production ECO', template: document(reviewers, { users: [{ email: engineer.email }], emails: ['vendor@supplier.example'] }) } }))
      .changeOrders.createTemplate;
    expect(created).toMatchObject({
      name: 'Production ECO',
      isDefault: false,
      version: '1.0',
      description: 'ECO for production parts',
      stageNames: ['Engineering', 'Quality'],
      createdBy: { id: tenant.user.id },
    });
    expect(created.template.stages.open[0].reviewers.users).toEqual([engineer.userId, { id: tenant.user.id, isRequiredToApprove: true }]);
    expect(created.template.stages.open[0].notifyList).toEqual({ users: [{ id: engineer.userId }], emails: ['vendor@supplier.example'] });
    expect((await ok(engineer.headers, list)).changeOrders.getTemplates.map((t: { name: string }) => t.name)).toContain('Production ECO');
    const again = await refusal(admin, create, { input: { name: 'production eco', template: document([]) } });
    expect(again.code).toBe('ALREADY_EXISTS');
  });

  it('accepts a YAML string', async () => {
    const yaml = [
      'version: "2.1"',
      'description: From YAML',
      'schema_type: change_order_scheme',
      'details:',
      '  info:',
      '    groups:',
      '      - name: G',
      '        fields:',
      '          - { type: enum, label: Priority, default: low, options: [{ label: Low, value: low }] }',
      'stages:',
      '  open:',
      '    - name: Review',
      '      types: [Majority]',
      '      default: Majority',
      `      reviewers: { users: ["${engineer.userId}"] }`,
    ].join('\n');
    const created = (await ok(admin, create, { input: { name: 'YAML template', template: yaml } })).changeOrders.createTemplate;
    expect(created).toMatchObject({ version: '2.1', stageNames: ['Review'] });
  });

  it('refuses with TEMPLATE_INVALID and every problem with its path and rule', async () => {
    const outsider = await newTenant();
    const bad = document([outsider.user.id, { email: 'nobody@nowhere.example' }]);
    const refused = await refusal(admin, create, { input: { name: 'Outsiders', template: bad } });
    expect(refused.code).toBe('TEMPLATE_INVALID');
    expect(refused.error?.extensions?.problems).toEqual([
      { path: '$.stages.open[0].reviewers.users[0]', rule: 'notInOrganization', message: expect.stringContaining('not a member') },
      { path: '$.stages.open[0].reviewers.users[1]', rule: 'notInOrganization', message: expect.stringContaining('nobody@nowhere.example') },
    ]);
    const broken = { ...document([]), version: 'one', extra: true };
    const shape = await refusal(admin, create, { input: { name: 'Broken', template: broken } });
    expect(shape.error?.extensions?.problems).toEqual([
      { path: '$.version', rule: 'pattern', message: expect.any(String) },
      { path: '$.extra', rule: 'additionalProperties', message: expect.any(String) },
    ]);
    expect((await refusal(admin, create, { input: { name: 'Not YAML', template: 'version: [' } })).error?.extensions?.problems).toEqual([{ path: '$', rule: 'yaml', message: expect.any(String) }]);
    // Nothing was stored.
    expect((await ok(admin, list)).changeOrders.getTemplates.map((t: { name: string }) => t.name)).not.toContain('Outsiders');
  });

  it('needs library.settings.update to add a template and change_orders.read to list them', async () => {
    const refused = await refusal(engineer.headers, create, { input: { name: 'Mine', template: document([]) } });
    expect([refused.status, refused.code, refused.error?.extensions?.requiredPermission]).toEqual([403, 'FORBIDDEN', 'library.settings.update']);
    const supplier = await memberWithRole(tenant, 'SUPPLIER');
    const hidden = await graphql(list, undefined, supplier.headers);
    expect(hidden.body.errors?.[0]?.extensions?.requiredPermission).toBe('change_orders.read');
  });
});
