import { classifications } from '../../model/vocabulary.js';
import type { ClauseField } from './clauses.js';
import type { Vocabulary, VocabularyUser } from './vocabulary.js';

/** A name resolved against the vocabulary: the clause field and value it stands for. */
export interface Resolved {
  field: ClauseField;
  value: string;
  display: string;
}

const normalize = (text: string) =>
  text
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ');

/** The text and its singular forms: "assemblies" -> assembly, "boxes" -> box, "resistors" -> resistor. */
function singulars(text: string): string[] {
  const t = normalize(text);
  const forms = [t];
  if (t.endsWith('ies')) forms.push(`${t.slice(0, -3)}y`);
  if (t.endsWith('es')) forms.push(t.slice(0, -2));
  if (t.endsWith('s') && !t.endsWith('ss')) forms.push(t.slice(0, -1));
  return forms;
}

const matches = (text: string, ...names: string[]) => {
  const forms = singulars(text);
  return names.some((name) => forms.includes(normalize(name)));
};

const titleCase = (word: string) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();

/** A status by name or id; failing that, a lifecycle classification (design, production, ...). */
export function resolveStatus(vocabulary: Vocabulary, text: string): Resolved | undefined {
  const status = vocabulary.statuses.find((s) => matches(text, s.name, s.id));
  if (status) return { field: 'status.id', value: status.id, display: status.name };
  const classification = classifications.find((c) => matches(text, c));
  return classification ? { field: 'status.mapsTo', value: classification, display: titleCase(classification) } : undefined;
}

export function resolveCategory(vocabulary: Vocabulary, text: string): Resolved | undefined {
  const category = vocabulary.categories.find((c) => matches(text, c.name, c.id));
  return category ? { field: 'category.id', value: category.id, display: category.name } : undefined;
}

const typeWords: Record<string, string> = { part: 'PART', assembly: 'ASSEMBLY', document: 'DOCUMENT', doc: 'DOCUMENT' };

export function resolveType(text: string): Resolved | undefined {
  const type = singulars(text)
    .map((form) => typeWords[form])
    .find(Boolean);
  return type ? { field: 'category.type', value: type, display: titleCase(type) } : undefined;
}

/** A label in use in the library, case-insensitively. */
export function resolveLabel(vocabulary: Vocabulary, text: string): Resolved | undefined {
  const label = vocabulary.labels.find((l) => normalize(l) === normalize(text));
  return label ? { field: 'labels.name', value: label, display: label } : undefined;
}

export function resolveUser(vocabulary: Vocabulary, text: string): VocabularyUser | undefined {
  const t = text.trim().toLowerCase();
  if (['me', 'myself', 'i'].includes(t)) return vocabulary.users.find((u) => u.id === vocabulary.userId) ?? { id: vocabulary.userId, display: 'me', names: [] };
  return vocabulary.users.find((u) => u.id === text) ?? vocabulary.users.find((u) => u.names.includes(t));
}
