import * as z from 'zod';
import { categoryTypes } from '../model/vocabulary.js';
import { storableNumberProblem } from '../numbers.js';
import { documentRule, duplicateIds } from './documentRules.js';
import { patternProblem } from './patterns.js';
import { configId } from './statuses.js';

/** A bound of an attribute: a number the table can store (lib/numbers.ts). */
const storableNumber = z.number().superRefine((value, context) => {
  const problem = storableNumberProblem(value);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

export const attributeValueTypes = ['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'DATE', 'ENUM'] as const;
export type AttributeValueType = (typeof attributeValueTypes)[number];

/**
 * One attribute of a category. Values are JSON: STRING and DATE (YYYY-MM-DD) are strings, NUMBER and
 * INTEGER numbers, BOOLEAN booleans, ENUM one of `options`. min/max bound numbers, and the length of strings.
 */
export const attributeDefinition = z
  .object({
    id: configId,
    name: z.string().trim().min(1).max(100),
    valueType: z.enum(attributeValueTypes),
    unit: z.string().max(20).nullable().default(null),
    required: z.boolean().default(false),
    options: z.array(z.string().min(1).max(100)).min(1).nullable().default(null),
    min: storableNumber.nullable().default(null),
    max: storableNumber.nullable().default(null),
    pattern: z.string().max(500).nullable().default(null),
    archived: z.boolean().default(false),
  })
  .strict()
  .superRefine((attribute, ctx) => {
    if (attribute.valueType === 'ENUM' && !attribute.options) ctx.addIssue({ code: 'custom', path: ['options'], message: 'ENUM attributes need options' });
    if (attribute.valueType !== 'ENUM' && attribute.options) ctx.addIssue({ code: 'custom', path: ['options'], message: 'only ENUM attributes have options' });
    if (attribute.min !== null && attribute.max !== null && attribute.min > attribute.max) {
      ctx.addIssue({ code: 'custom', path: ['min'], message: 'min must not exceed max' });
    }
    if (attribute.pattern !== null) {
      if (attribute.valueType !== 'STRING') ctx.addIssue({ code: 'custom', path: ['pattern'], message: 'only STRING attributes have a pattern' });
      const problem = patternProblem(attribute.pattern);
      if (problem) ctx.addIssue({ code: 'custom', path: ['pattern'], message: problem });
    }
  });
export type AttributeDefinition = z.infer<typeof attributeDefinition>;

export const categoryDefinition = z
  .object({
    id: configId,
    name: z.string().trim().min(1).max(100),
    type: z.enum(categoryTypes),
    /** Three digits; the first element of the default CPN format (`<prefix>-<counter>`). */
    prefix: z.string().regex(/^[0-9]{3}$/, 'must be three digits'),
    attributes: z.array(attributeDefinition).default([]),
    archived: z.boolean().default(false),
  })
  .strict()
  .check(documentRule((raw) => duplicateIds(raw, 'attributes', 'attribute')));
export type CategoryDefinition = z.infer<typeof categoryDefinition>;

export const categoriesDocument = z
  .object({ categories: z.array(categoryDefinition).min(1) })
  .strict()
  .check(documentRule((raw) => duplicateIds(raw, 'categories', 'category')));
export type CategoriesDocument = z.infer<typeof categoriesDocument>;

const attr = (a: Partial<AttributeDefinition> & Pick<AttributeDefinition, 'id' | 'name' | 'valueType'>): AttributeDefinition => ({
  unit: null,
  required: false,
  options: null,
  min: null,
  max: null,
  pattern: null,
  archived: false,
  ...a,
});

const category = (c: Omit<CategoryDefinition, 'archived' | 'attributes'> & { attributes?: AttributeDefinition[] }): CategoryDefinition => ({
  attributes: [],
  archived: false,
  ...c,
});

const packageAttr = attr({ id: 'package', name: 'Package', valueType: 'ENUM', options: ['0201', '0402', '0603', '0805', '1206', '1210', '2512', 'THT', 'Other'] });

export const defaultCategories: CategoriesDocument = {
  categories: [
    category({
      id: 'resistor',
      name: 'Resistor',
      type: 'PART',
      prefix: '100',
      attributes: [
        attr({ id: 'resistance', name: 'Resistance', valueType: 'NUMBER', unit: 'Ω', required: true, min: 0 }),
        attr({ id: 'tolerance', name: 'Tolerance', valueType: 'NUMBER', unit: '%', min: 0, max: 100 }),
        attr({ id: 'power', name: 'Power rating', valueType: 'NUMBER', unit: 'W', min: 0 }),
        packageAttr,
      ],
    }),
    category({
      id: 'capacitor',
      name: 'Capacitor',
      type: 'PART',
      prefix: '110',
      attributes: [
        attr({ id: 'capacitance', name: 'Capacitance', valueType: 'NUMBER', unit: 'F', required: true, min: 0 }),
        attr({ id: 'voltage', name: 'Voltage rating', valueType: 'NUMBER', unit: 'V', min: 0 }),
        attr({ id: 'dielectric', name: 'Dielectric', valueType: 'ENUM', options: ['C0G', 'X5R', 'X7R', 'Y5V', 'Electrolytic', 'Tantalum', 'Film'] }),
        packageAttr,
      ],
    }),
    category({
      id: 'integrated-circuit',
      name: 'Integrated Circuit',
      type: 'PART',
      prefix: '120',
      attributes: [attr({ id: 'function', name: 'Function', valueType: 'STRING', max: 200 }), attr({ id: 'pin-count', name: 'Pin count', valueType: 'INTEGER', min: 1 })],
    }),
    category({
      id: 'connector',
      name: 'Connector',
      type: 'PART',
      prefix: '130',
      attributes: [attr({ id: 'positions', name: 'Positions', valueType: 'INTEGER', min: 1 }), attr({ id: 'pitch', name: 'Pitch', valueType: 'NUMBER', unit: 'mm', min: 0 })],
    }),
    category({
      id: 'mechanical',
      name: 'Mechanical Part',
      type: 'PART',
      prefix: '200',
      attributes: [
        attr({ id: 'material', name: 'Material', valueType: 'STRING', max: 100 }),
        attr({ id: 'finish', name: 'Finish', valueType: 'STRING', max: 100 }),
        attr({ id: 'mass', name: 'Mass', valueType: 'NUMBER', unit: 'g', min: 0 }),
      ],
    }),
    category({
      id: 'fastener',
      name: 'Fastener',
      type: 'PART',
      prefix: '210',
      attributes: [attr({ id: 'thread', name: 'Thread', valueType: 'STRING', max: 50 }), attr({ id: 'length', name: 'Length', valueType: 'NUMBER', unit: 'mm', min: 0 })],
    }),
    category({ id: 'pcb', name: 'PCB', type: 'PART', prefix: '300', attributes: [attr({ id: 'layers', name: 'Layers', valueType: 'INTEGER', min: 1, max: 64 })] }),
    category({ id: 'pcba', name: 'PCB Assembly', type: 'ASSEMBLY', prefix: '400' }),
    category({ id: 'cable-assembly', name: 'Cable Assembly', type: 'ASSEMBLY', prefix: '410' }),
    category({ id: 'top-level-assembly', name: 'Top Level Assembly', type: 'ASSEMBLY', prefix: '500' }),
    category({ id: 'drawing', name: 'Drawing', type: 'DOCUMENT', prefix: '900' }),
    category({ id: 'specification', name: 'Specification', type: 'DOCUMENT', prefix: '910' }),
    category({ id: 'datasheet', name: 'Datasheet', type: 'DOCUMENT', prefix: '920' }),
  ],
};
