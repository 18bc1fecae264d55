import type { TemplateDocument } from './templateRules.js';

const details: TemplateDocument['details'] = {
  info: {
    groups: [
      {
        name: 'Change',
        icon: 'mdi-file-document-edit',
        fields: [
          { type: 'longtext', label: 'Reason for change', name: 'reason', validations: { required: true } },
          {
            type: 'enum',
            label: 'Priority',
            name: 'priority',
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
};

const resolved: TemplateDocument['stages']['resolved'] = { resolutions: { onapproval: ['AUTO_CLOSE'], onrejection: ['MANUAL_CLOSE'], onwithdrawal: ['AUTO_CLOSE'] } };

/**
 * The templates every library starts with. They name no reviewers: the author of a change order picks the
 * reviewers of each stage when creating it. Their ids are fixed and the same in every library.
 */
export const defaultTemplates: { id: string; name: string; document: TemplateDocument }[] = [
  {
    id: 'default-one-stage',
    name: 'One-stage review',
    document: {
      version: '1.0',
      description: 'One review stage; approved by a majority of its reviewers',
      schema_type: 'change_order_scheme',
      details,
      stages: { open: [{ name: 'Review', types: ['Majority', 'Unanimous', 'Minimum'], default: 'Majority', minReviewers: 1 }], resolved },
    },
  },
  {
    id: 'default-two-stage',
    name: 'Two-stage review',
    document: {
      version: '1.0',
      description: 'Engineering review, then release approval; each stage approved by all of its reviewers',
      schema_type: 'change_order_scheme',
      details,
      stages: {
        open: [
          { name: 'Engineering review', types: ['Unanimous', 'Majority', 'Minimum'], default: 'Unanimous', minReviewers: 1 },
          { name: 'Release approval', types: ['Unanimous', 'Majority', 'Minimum'], default: 'Unanimous', minReviewers: 1 },
        ],
        resolved,
      },
    },
  },
];
