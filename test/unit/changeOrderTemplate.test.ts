import { describe, expect, it } from 'vitest';
import { readTemplateInput, validateTemplateDocument, type TemplateRule } from '../../lib/changeOrders/templateRules.js';

const reviewer = '3f1c2a9e-8b7d-4c6e-9a5f-1b2c3d4e5f60';
const other = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

/** A valid template using every part of the format. */
function valid(): any {
  return {
    version: '1.0',
    description: 'Engineering change for released parts',
    schema_type: 'change_order_scheme',
    details: {
      info: {
        groups: [
          {
            name: 'Change details',
            icon: 'mdi-file-document-edit',
            description: 'Why and what',
            fields: [
              { type: 'text', label: 'Reason', name: 'reason', placeholder: 'Why?', validations: { required: true, min: 3, max: 200, pattern: '^[A-Z]' } },
              { type: 'longtext', label: 'Details' },
              { type: 'number', label: 'Affected units', name: 'units', validations: { min: 0, max: 100000 } },
              { type: 'currency', label: 'Cost impact' },
              { type: 'date', label: 'Effective date' },
              {
                type: 'list',
                label: 'Plants',
                multiSelect: true,
                options: [
                  { label: 'Berlin', value: 'ber' },
                  { label: 'Austin', value: 'aus', description: 'Texas' },
                ],
              },
              {
                type: 'enum',
                label: 'Priority',
                default: 'normal',
                options: [
                  { label: 'Normal', value: 'normal' },
                  { label: 'Urgent', value: 'urgent' },
                ],
              },
            ],
          },
        ],
      },
    },
    validations: [{ id: '1.0', severity: 'warn' }],
    stages: {
      open: [
        {
          name: 'Engineering review',
          types: ['Unanimous', 'Majority', 'Minimum'],
          default: 'Majority',
          minReviewers: 1,
          reviewers: { users: [reviewer, { id: other, isRequired: true, isRequiredToApprove: false }, { email: 'lead@example.com', isRequiredToApprove: true }] },
          notifyList: { users: [reviewer, { email: 'pm@example.com' }], emails: ['supplier@vendor.example'] },
        },
      ],
      resolved: { actions: ['notify'], resolutions: { onapproval: ['AUTO_CLOSE'], onrejection: ['MANUAL_CLOSE'], onwithdrawal: ['AUTO_CLOSE'] } },
      closed: { notifyList: { emails: ['archive@example.com'] } },
      onHold: { actions: [] },
    },
  };
}

type Mutation = (t: any) => void;
/** Invalid templates: each breaks exactly one rule, at one path. */
const invalid: [string, Mutation, string, TemplateRule][] = [
  ['missing version', (t) => delete t.version, '$.version', 'required'],
  ['version not N.N', (t) => (t.version = '1'), '$.version', 'pattern'],
  ['version with three parts', (t) => (t.version = '1.0.0'), '$.version', 'pattern'],
  ['version a number', (t) => (t.version = 1), '$.version', 'type'],
  ['empty description', (t) => (t.description = ''), '$.description', 'minLength'],
  ['description over 500', (t) => (t.description = 'x'.repeat(501)), '$.description', 'maxLength'],
  ['wrong schema_type', (t) => (t.schema_type = 'workflow'), '$.schema_type', 'const'],
  ['missing details', (t) => delete t.details, '$.details', 'required'],
  ['extra root property', (t) => (t.owner = 'me'), '$.owner', 'additionalProperties'],
  ['extra property in info', (t) => (t.details.info.extra = 1), '$.details.info.extra', 'additionalProperties'],
  ['no groups', (t) => (t.details.info.groups = []), '$.details.info.groups', 'minItems'],
  ['group without fields', (t) => (t.details.info.groups[0].fields = []), '$.details.info.groups[0].fields', 'minItems'],
  ['group name over 100', (t) => (t.details.info.groups[0].name = 'g'.repeat(101)), '$.details.info.groups[0].name', 'maxLength'],
  ['icon without mdi-', (t) => (t.details.info.groups[0].icon = 'file'), '$.details.info.groups[0].icon', 'pattern'],
  ['icon with capitals', (t) => (t.details.info.groups[0].icon = 'mdi-File'), '$.details.info.groups[0].icon', 'pattern'],
  ['group description over 500', (t) => (t.details.info.groups[0].description = 'd'.repeat(501)), '$.details.info.groups[0].description', 'maxLength'],
  ['unknown field type', (t) => (t.details.info.groups[0].fields[0].type = 'checkbox'), '$.details.info.groups[0].fields[0].type', 'enum'],
  ['empty label', (t) => (t.details.info.groups[0].fields[1].label = ''), '$.details.info.groups[0].fields[1].label', 'minLength'],
  ['label over 100', (t) => (t.details.info.groups[0].fields[1].label = 'l'.repeat(101)), '$.details.info.groups[0].fields[1].label', 'maxLength'],
  ['name starting with a digit', (t) => (t.details.info.groups[0].fields[0].name = '1reason'), '$.details.info.groups[0].fields[0].name', 'pattern'],
  ['name with a hyphen', (t) => (t.details.info.groups[0].fields[0].name = 're-ason'), '$.details.info.groups[0].fields[0].name', 'pattern'],
  ['placeholder over 200', (t) => (t.details.info.groups[0].fields[0].placeholder = 'p'.repeat(201)), '$.details.info.groups[0].fields[0].placeholder', 'maxLength'],
  ['list without options', (t) => delete t.details.info.groups[0].fields[5].options, '$.details.info.groups[0].fields[5].options', 'optionsRequired'],
  ['enum with no options', (t) => (t.details.info.groups[0].fields[6].options = []), '$.details.info.groups[0].fields[6].options', 'minItems'],
  ['options on a text field', (t) => (t.details.info.groups[0].fields[1].options = [{ label: 'a', value: 'a' }]), '$.details.info.groups[0].fields[1].options', 'optionsForbidden'],
  ['multiSelect on an enum', (t) => (t.details.info.groups[0].fields[6].multiSelect = true), '$.details.info.groups[0].fields[6].multiSelect', 'multiSelectListOnly'],
  ['default on a list', (t) => (t.details.info.groups[0].fields[5].default = 'ber'), '$.details.info.groups[0].fields[5].default', 'defaultEnumOnly'],
  ['enum default not an option', (t) => (t.details.info.groups[0].fields[6].default = 'low'), '$.details.info.groups[0].fields[6].default', 'defaultInOptions'],
  ['option label empty', (t) => (t.details.info.groups[0].fields[5].options[0].label = ''), '$.details.info.groups[0].fields[5].options[0].label', 'minLength'],
  ['option value over 100', (t) => (t.details.info.groups[0].fields[5].options[1].value = 'v'.repeat(101)), '$.details.info.groups[0].fields[5].options[1].value', 'maxLength'],
  ['option with extra key', (t) => (t.details.info.groups[0].fields[5].options[0].color = 'red'), '$.details.info.groups[0].fields[5].options[0].color', 'additionalProperties'],
  ['validations min not integer', (t) => (t.details.info.groups[0].fields[2].validations.min = 0.5), '$.details.info.groups[0].fields[2].validations.min', 'type'],
  ['validations min above max', (t) => (t.details.info.groups[0].fields[2].validations = { min: 10, max: 1 }), '$.details.info.groups[0].fields[2].validations.max', 'minNotAboveMax'],
  ['bounds on a date', (t) => (t.details.info.groups[0].fields[4].validations = { min: 1 }), '$.details.info.groups[0].fields[4].validations', 'boundsNumericOrText'],
  ['pattern on a number', (t) => (t.details.info.groups[0].fields[2].validations.pattern = '^1'), '$.details.info.groups[0].fields[2].validations.pattern', 'patternTextOnly'],
  ['pattern not a regular expression', (t) => (t.details.info.groups[0].fields[0].validations.pattern = '(['), '$.details.info.groups[0].fields[0].validations.pattern', 'format'],
  ['pattern with lookahead (patterns run on RE2)', (t) => (t.details.info.groups[0].fields[0].validations.pattern = '^(?=A)'), '$.details.info.groups[0].fields[0].validations.pattern', 'format'],
  ['unknown validation', (t) => (t.details.info.groups[0].fields[0].validations.unique = true), '$.details.info.groups[0].fields[0].validations.unique', 'additionalProperties'],
  ['required not boolean', (t) => (t.details.info.groups[0].fields[0].required = 'yes'), '$.details.info.groups[0].fields[0].required', 'type'],
  ['validation id malformed', (t) => (t.validations[0].id = 'one'), '$.validations[0].id', 'pattern'],
  ['validation severity unknown', (t) => (t.validations[0].severity = 'fatal'), '$.validations[0].severity', 'enum'],
  ['missing stages', (t) => delete t.stages, '$.stages', 'required'],
  ['no open stage', (t) => (t.stages.open = []), '$.stages.open', 'minItems'],
  ['stage without name', (t) => delete t.stages.open[0].name, '$.stages.open[0].name', 'required'],
  ['stage with no types', (t) => (t.stages.open[0].types = []), '$.stages.open[0].types', 'minItems'],
  ['unknown approval type', (t) => (t.stages.open[0].types = ['Unanimous', 'Plurality']), '$.stages.open[0].types[1]', 'enum'],
  ['default not in types', (t) => (t.stages.open[0].types = ['Unanimous']), '$.stages.open[0].default', 'defaultInTypes'],
  ['minReviewers zero', (t) => (t.stages.open[0].minReviewers = 0), '$.stages.open[0].minReviewers', 'minimum'],
  ['reviewer id not a UUID', (t) => (t.stages.open[0].reviewers.users[0] = 'bob'), '$.stages.open[0].reviewers.users[0]', 'pattern'],
  ['reviewer id in capitals', (t) => (t.stages.open[0].reviewers.users[0] = reviewer.toUpperCase()), '$.stages.open[0].reviewers.users[0]', 'pattern'],
  ['reviewer with id and email', (t) => (t.stages.open[0].reviewers.users[1].email = 'x@example.com'), '$.stages.open[0].reviewers.users[1]', 'participantForm'],
  ['reviewer with neither id nor email', (t) => (t.stages.open[0].reviewers.users[1] = { isRequired: true }), '$.stages.open[0].reviewers.users[1]', 'participantForm'],
  ['reviewer with a bad email', (t) => (t.stages.open[0].reviewers.users[2].email = 'lead'), '$.stages.open[0].reviewers.users[2].email', 'format'],
  ['notifier with isRequired', (t) => (t.stages.open[0].notifyList.users[1].isRequired = true), '$.stages.open[0].notifyList.users[1].isRequired', 'additionalProperties'],
  ['external email malformed', (t) => (t.stages.open[0].notifyList.emails[0] = 'vendor'), '$.stages.open[0].notifyList.emails[0]', 'format'],
  ['reviewers without users', (t) => (t.stages.open[0].reviewers = {}), '$.stages.open[0].reviewers.users', 'required'],
  ['unknown resolution', (t) => (t.stages.resolved.resolutions.onapproval = ['CLOSE']), '$.stages.resolved.resolutions.onapproval[0]', 'enum'],
  ['unknown resolution event', (t) => (t.stages.resolved.resolutions.onexpiry = ['AUTO_CLOSE']), '$.stages.resolved.resolutions.onexpiry', 'additionalProperties'],
  ['unknown stage kind', (t) => (t.stages.archived = {}), '$.stages.archived', 'additionalProperties'],
  ['actions not strings', (t) => (t.stages.onHold.actions = [1]), '$.stages.onHold.actions[0]', 'type'],
];

describe('change order template documents', () => {
  it('accepts a template using every part of the format, and minimal ones', () => {
    expect(validateTemplateDocument(valid()).problems).toEqual([]);
    const minimal = {
      version: '1.0',
      description: 'd',
      schema_type: 'change_order_scheme',
      details: { info: { groups: [{ name: 'g', fields: [{ type: 'text', label: 'l' }] }] } },
      stages: { open: [{ name: 's', types: ['Minimum'], default: 'Minimum' }] },
    };
    expect(validateTemplateDocument(minimal).problems).toEqual([]);
    expect(validateTemplateDocument({ ...minimal, version: '12.34' }).problems).toEqual([]);
  });

  it('has a corpus of at least 40 invalid templates', () => {
    expect(invalid.length).toBeGreaterThanOrEqual(40);
  });

  it.each(invalid)('refuses %s: exactly its rule at its path', (_name, mutate, path, rule) => {
    const template = valid();
    mutate(template);
    const { problems, template: accepted } = validateTemplateDocument(template);
    expect(accepted).toBeUndefined();
    expect(problems.map((p) => ({ path: p.path, rule: p.rule }))).toEqual([{ path, rule }]);
    expect(problems[0]!.message).toContain(path.split(/[.[]/).at(-1)!.replace(']', ''));
  });

  it('reports every problem of a document at once', () => {
    const template = valid();
    template.version = 'x';
    template.stages.open[0].types = ['Unanimous'];
    delete template.details.info.groups[0].fields[5].options;
    const rules = validateTemplateDocument(template)
      .problems.map((p) => p.rule)
      .sort();
    expect(rules).toEqual(['defaultInTypes', 'optionsRequired', 'pattern']);
  });

  it('reads YAML strings, and says when one is not YAML', () => {
    const yaml = `version: "1.0"\ndescription: From YAML\nschema_type: change_order_scheme\ndetails:\n  info:\n    groups:\n      - name: G\n        fields:\n          - type: text\n            label: Reason\nstages:\n  open:\n    - name: Review\n      types: [Majority]\n      default: Majority\n`;
    const read = readTemplateInput(yaml);
    expect(read.problems).toEqual([]);
    expect(validateTemplateDocument(read.document).problems).toEqual([]);
    expect(readTemplateInput('version: [1.0').problems[0]).toMatchObject({ path: '$', rule: 'yaml' });
    expect(validateTemplateDocument(readTemplateInput('just a string').document).problems).toEqual([{ path: '$', rule: 'type', message: '$ must be an object' }]);
  });
});

describe('default templates', () => {
  it('are valid documents', async () => {
    const { defaultTemplates } = await import('../../lib/changeOrders/defaults.js');
    expect(defaultTemplates.map((t) => [t.id, t.document.stages.open.length])).toEqual([
      ['default-one-stage', 1],
      ['default-two-stage', 2],
    ]);
    for (const template of defaultTemplates) expect(validateTemplateDocument(template.document).problems).toEqual([]);
  });
});
