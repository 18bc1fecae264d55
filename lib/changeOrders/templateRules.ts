import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { compilePattern } from '../config/patterns.js';

/**
 * The change order workflow template document (spec: Change order workflow template), as a zod schema:
 * every table of the spec is a strict object (additional properties are refused at every level), and the
 * rules between properties are refinements that name their rule. validateTemplateDocument turns zod's
 * issues into problems: each with its JSON path and the rule broken.
 */

export type TemplateRule =
  | 'required'
  | 'type'
  | 'additionalProperties'
  | 'minLength'
  | 'maxLength'
  | 'minItems'
  | 'minimum'
  | 'pattern'
  | 'enum'
  | 'const'
  | 'format'
  | 'optionsRequired'
  | 'optionsForbidden'
  | 'multiSelectListOnly'
  | 'defaultEnumOnly'
  | 'defaultInOptions'
  | 'defaultInTypes'
  | 'minNotAboveMax'
  | 'boundsNumericOrText'
  | 'patternTextOnly'
  | 'participantForm'
  | 'notInOrganization'
  | 'yaml';

export interface TemplateProblem {
  /** JSON path of the value, e.g. $.stages.open[0].default. */
  path: string;
  rule: TemplateRule;
  message: string;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const text = (min: number, max: number) => z.string().min(min).max(max);
const optionalText = (max: number) => z.string().max(max).optional();
const rule = (name: TemplateRule) => ({ params: { rule: name } });

export const fieldTypes = ['text', 'longtext', 'number', 'date', 'list', 'currency', 'enum'] as const;
export const approvalTypes = ['Unanimous', 'Majority', 'Minimum'] as const;
export const resolutionActions = ['AUTO_CLOSE', 'MANUAL_CLOSE'] as const;

const option = z.strictObject({ label: text(1, 100), value: text(1, 100), description: optionalText(500) });

/** Run on RE2 (config/patterns.ts): linear in the value; lookaround and backreferences are refused. */
const isRegExp = (value: string) => compilePattern(value) !== null;

const fieldValidations = z.strictObject({
  required: z.boolean().optional(),
  min: z.number().int().optional(),
  max: z.number().int().optional(),
  pattern: z
    .string()
    .max(500)
    .refine(isRegExp, { message: 'pattern must be a valid regular expression (RE2 syntax: no lookaround or backreferences)', ...rule('format') })
    .optional(),
});

const field = z
  .strictObject({
    type: z.enum(fieldTypes),
    label: text(1, 100),
    name: z
      .string()
      .max(100)
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'name: letters, digits and underscore, not starting with a digit')
      .optional(),
    description: optionalText(500),
    placeholder: optionalText(200),
    required: z.boolean().optional(),
    multiSelect: z.boolean().optional(),
    options: z.array(option).min(1).optional(),
    validations: fieldValidations.optional(),
    default: z.string().max(100).optional(),
  })
  .superRefine((value, ctx) => {
    const choice = value.type === 'list' || value.type === 'enum';
    if (choice && value.options === undefined) ctx.addIssue({ code: 'custom', path: ['options'], message: `options are required for a ${value.type} field`, ...rule('optionsRequired') });
    if (!choice && value.options !== undefined)
      ctx.addIssue({ code: 'custom', path: ['options'], message: `options are only for list and enum fields, not ${value.type}`, ...rule('optionsForbidden') });
    if (value.multiSelect !== undefined && value.type !== 'list')
      ctx.addIssue({ code: 'custom', path: ['multiSelect'], message: 'multiSelect is only for list fields', ...rule('multiSelectListOnly') });
    if (value.default !== undefined && value.type !== 'enum') ctx.addIssue({ code: 'custom', path: ['default'], message: 'default is only for enum fields', ...rule('defaultEnumOnly') });
    if (value.default !== undefined && value.type === 'enum' && value.options?.length && !value.options.some((o) => o.value === value.default)) {
      ctx.addIssue({ code: 'custom', path: ['default'], message: 'default must be the value of one of the options', ...rule('defaultInOptions') });
    }
    const v = value.validations;
    const bounded = value.type === 'number' || value.type === 'currency' || value.type === 'text';
    if (v && (v.min !== undefined || v.max !== undefined) && !bounded) {
      ctx.addIssue({ code: 'custom', path: ['validations'], message: 'min and max apply to number, currency and text fields', ...rule('boundsNumericOrText') });
    }
    if (v?.min !== undefined && v.max !== undefined && v.min > v.max) ctx.addIssue({ code: 'custom', path: ['validations', 'max'], message: 'max must not be below min', ...rule('minNotAboveMax') });
    if (v?.pattern !== undefined && value.type !== 'text') ctx.addIssue({ code: 'custom', path: ['validations', 'pattern'], message: 'pattern applies to text fields', ...rule('patternTextOnly') });
  });

const group = z.strictObject({
  name: text(1, 100),
  icon: z
    .string()
    .regex(/^mdi-[a-z0-9-]+$/, 'icon: mdi- followed by lowercase letters, digits and hyphens')
    .optional(),
  description: optionalText(500),
  fields: z.array(field).min(1),
});

const uuid = z.string().regex(uuidPattern, 'a user id is a lowercase UUID (8-4-4-4-12 hex)');
const participantObject = (reviewer: boolean) =>
  z
    .strictObject({
      id: uuid.optional(),
      email: z.email().max(254).optional(),
      ...(reviewer ? { isRequired: z.boolean().optional(), isRequiredToApprove: z.boolean().optional() } : {}),
    })
    .refine((value) => (value.id === undefined) !== (value.email === undefined), { message: 'give exactly one of id or email', ...rule('participantForm') });
/** A user: a UUID string, or an object with exactly one of id or email (reviewers may add isRequired, isRequiredToApprove). */
const participant = (reviewer: boolean) => z.union([uuid, participantObject(reviewer)]);

const notifyList = z.strictObject({ users: z.array(participant(false)).optional(), emails: z.array(z.email().max(254)).optional() });

const openStage = z
  .strictObject({
    name: text(1, 100),
    types: z.array(z.enum(approvalTypes)).min(1),
    default: z.enum(approvalTypes),
    minReviewers: z.number().int().min(1).optional(),
    reviewers: z.strictObject({ users: z.array(participant(true)) }).optional(),
    notifyList: notifyList.optional(),
  })
  .refine((stage) => stage.types.length === 0 || stage.types.includes(stage.default), { path: ['default'], message: 'default must be one of types', ...rule('defaultInTypes') });

const actionStage = z.strictObject({
  actions: z.array(z.string().max(100)).optional(),
  notifyList: notifyList.optional(),
  resolutions: z
    .strictObject({
      onapproval: z.array(z.enum(resolutionActions)).optional(),
      onwithdrawal: z.array(z.enum(resolutionActions)).optional(),
      onrejection: z.array(z.enum(resolutionActions)).optional(),
    })
    .optional(),
});

export const templateDocument = z.strictObject({
  version: z.string().regex(/^\d+\.\d+$/, 'version: two integers separated by a dot, e.g. 1.0'),
  description: text(1, 500),
  schema_type: z.literal('change_order_scheme'),
  details: z.strictObject({ info: z.strictObject({ groups: z.array(group).min(1) }) }),
  validations: z.array(z.strictObject({ id: z.string().regex(/^\d+\.\d+$/, 'id: two integers separated by a dot'), severity: z.enum(['error', 'warn', 'info']) })).optional(),
  stages: z.strictObject({ open: z.array(openStage).min(1), resolved: actionStage.optional(), closed: actionStage.optional(), onHold: actionStage.optional() }),
});
export type TemplateDocument = z.infer<typeof templateDocument>;

export function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, part) => (typeof part === 'number' ? `${out}[${part}]` : /^[A-Za-z_$][\w$]*$/.test(String(part)) ? `${out}.${String(part)}` : `${out}[${JSON.stringify(String(part))}]`),
    '$',
  );
}

function valueAt(document: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = document;
  for (const part of path) current = current && typeof current === 'object' ? (current as Record<PropertyKey, unknown>)[part] : undefined;
  return current;
}

/** zod's issues as problems with the spec's rule names; a union's issues come from the branch the value's type selects. */
function problemsOf(issues: readonly z.core.$ZodIssue[], document: unknown, prefix: readonly PropertyKey[] = []): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    const at = jsonPath(path);
    switch (issue.code) {
      case 'invalid_type':
        problems.push(
          valueAt(document, path) === undefined
            ? { path: at, rule: 'required', message: `${at} is required` }
            : { path: at, rule: 'type', message: `${at} must be ${issue.expected === 'object' ? 'an object' : issue.expected === 'array' ? 'an array' : `a ${issue.expected}`}` },
        );
        break;
      case 'unrecognized_keys':
        for (const key of issue.keys) problems.push({ path: jsonPath([...path, key]), rule: 'additionalProperties', message: `${jsonPath([...path, key])} is not a property of this object` });
        break;
      case 'too_small':
        problems.push({
          path: at,
          rule: issue.origin === 'string' ? 'minLength' : issue.origin === 'array' ? 'minItems' : 'minimum',
          message: issue.origin === 'string' ? `${at} must not be empty` : issue.origin === 'array' ? `${at} needs at least ${issue.minimum} item(s)` : `${at} must be at least ${issue.minimum}`,
        });
        break;
      case 'too_big':
        problems.push({ path: at, rule: 'maxLength', message: `${at} is at most ${issue.maximum} characters` });
        break;
      case 'invalid_format':
        problems.push({ path: at, rule: issue.format === 'regex' ? 'pattern' : 'format', message: `${at}: ${issue.format === 'email' ? 'not an email address' : issue.message}` });
        break;
      case 'invalid_value':
        problems.push({
          path: at,
          rule: issue.values.length === 1 ? 'const' : 'enum',
          message: `${at} must be ${issue.values.length === 1 ? JSON.stringify(issue.values[0]) : `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`}`,
        });
        break;
      case 'invalid_union': {
        const value = valueAt(document, path);
        // Branch 0 is the UUID string, branch 1 the object form of a participant.
        const branch = typeof value === 'string' ? issue.errors[0] : value && typeof value === 'object' ? issue.errors[1] : undefined;
        if (branch) problems.push(...problemsOf(branch, document, path));
        else problems.push({ path: at, rule: 'participantForm', message: `${at} must be a user id (UUID) or an object with id or email` });
        break;
      }
      case 'custom':
        problems.push({ path: at, rule: ((issue.params as { rule?: TemplateRule } | undefined)?.rule ?? 'format') as TemplateRule, message: `${at}: ${issue.message}` });
        break;
      default:
        problems.push({ path: at, rule: 'format', message: `${at}: ${issue.message}` });
    }
  }
  return problems;
}

/** A template given as a JSON object, or as a YAML (or JSON) string. */
export function readTemplateInput(input: unknown): { document?: unknown; problems: TemplateProblem[] } {
  if (typeof input !== 'string') return { document: input, problems: [] };
  try {
    return { document: parseYaml(input, { maxAliasCount: 0 }), problems: [] };
  } catch (error) {
    return { problems: [{ path: '$', rule: 'yaml', message: `The template is not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}` }] };
  }
}

/** Every problem of the document against the spec's tables (participants are checked against the organization separately). */
export function validateTemplateDocument(document: unknown): { template?: TemplateDocument; problems: TemplateProblem[] } {
  const parsed = templateDocument.safeParse(document);
  if (parsed.success) return { template: parsed.data, problems: [] };
  return { problems: problemsOf(parsed.error.issues, document) };
}
