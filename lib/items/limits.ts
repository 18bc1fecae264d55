import { ItemWriteTooLargeError } from './errors.js';

import type { RelationCommands } from './commands.js';

/** Spec limits of one item.create / item.update call. */
/** Substitutes count as children: a line with two substitutes takes three of a component's 20. */
export const itemWriteLimits = { components: 10, childrenPerComponent: 20, childrenPerCall: 200, documentsPerComponent: 20 } as const;

const tooLarge = (message: string, details: Record<string, unknown>) => new ItemWriteTooLargeError(message, { ...details, limits: itemWriteLimits });

/** Checked before anything is read or written. */
export function checkItemWriteLimits(inputs: RelationCommands[]): void {
  if (inputs.length > itemWriteLimits.components) {
    throw tooLarge(`An item write takes at most ${itemWriteLimits.components} components (got ${inputs.length})`, { components: inputs.length });
  }
  let children = 0;
  inputs.forEach((input, inputIndex) => {
    const count = (input.children ?? []).reduce((sum, child) => sum + 1 + (child.substitutes?.length ?? 0), 0);
    if (count > itemWriteLimits.childrenPerComponent) {
      throw tooLarge(`inputs[${inputIndex}]: at most ${itemWriteLimits.childrenPerComponent} children (substitutes included) per component (got ${count})`, { inputIndex, children: count });
    }
    const documents = (input.documents?.length ?? 0) + (input.documentComponentIds?.length ?? 0);
    if (documents > itemWriteLimits.documentsPerComponent) {
      throw tooLarge(`inputs[${inputIndex}]: at most ${itemWriteLimits.documentsPerComponent} documents per component (got ${documents})`, { inputIndex, documents });
    }
    children += count;
  });
  if (children > itemWriteLimits.childrenPerCall) {
    throw tooLarge(`An item write takes at most ${itemWriteLimits.childrenPerCall} children (substitutes included) in all (got ${children})`, { children });
  }
}
