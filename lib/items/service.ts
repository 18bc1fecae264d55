import type { WriteContext } from '../components/rules.js';
import type { Store } from '../store/client.js';
import type { ComponentRecord } from '../store/component.js';
import type { ChildCommand, CreateItemCommand, UpdateItemCommand } from './commands.js';
import { DomainError } from '../errors.js';
import { checkItemWriteLimits } from './limits.js';
import { writeItems, type ItemWriteOptions } from './writer.js';

/** Attempts of a call none of whose inputs names an expectedVersion, when it loses a race. */
const unpinnedAttempts = 15;

const isPinned = (input: CreateItemCommand | UpdateItemCommand) => 'expectedVersion' in input && input.expectedVersion !== undefined && input.expectedVersion !== null;

/**
 * item.create / item.update: the call limits are checked before anything is read or written. A call
 * that pins no version asks for "the latest": when a concurrent write wins the race (VERSION_CONFLICT),
 * it re-reads and re-applies, as component.update does; a pinned call gets the conflict.
 */
export async function writeItemsForRequest(
  store: Store,
  writeContext: () => Promise<WriteContext>,
  mode: 'create' | 'update',
  inputs: (CreateItemCommand | UpdateItemCommand)[],
  options: ItemWriteOptions = {},
): Promise<ComponentRecord[]> {
  checkItemWriteLimits(inputs);
  const ctx = await writeContext();
  const retries = inputs.some(isPinned) ? 1 : unpinnedAttempts;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await writeItems(store, ctx, mode, inputs, options);
    } catch (error) {
      const lostRace = error instanceof DomainError && error.code === 'VERSION_CONFLICT';
      if (!lostRace || attempt >= retries) throw error;
      // Jittered backoff, so that the writers that collided do not collide again in step.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(400, 10 * 2 ** attempt)));
    }
  }
}

/** assemblies.updateBOM: item.update with only the desired children. */
export async function updateBom(
  store: Store,
  writeContext: () => Promise<WriteContext>,
  input: { assemblyId: string; children: ChildCommand[]; expectedVersion?: number | null },
): Promise<ComponentRecord> {
  const [assembly] = await writeItemsForRequest(store, writeContext, 'update', [{ id: input.assemblyId, children: input.children, expectedVersion: input.expectedVersion }]);
  return assembly!;
}
