import type { WriteContext } from '../components/rules.js';
import type { Store } from '../store/client.js';
import type { ComponentRecord } from '../store/component.js';
import type { ChildCommand, CreateItemCommand, UpdateItemCommand } from './commands.js';
import { checkItemWriteLimits } from './limits.js';
import { writeItems, type ItemWriteOptions } from './writer.js';

/** item.create / item.update: the call limits are checked before anything is read or written. */
export async function writeItemsForRequest(
  store: Store,
  writeContext: () => Promise<WriteContext>,
  mode: 'create' | 'update',
  inputs: (CreateItemCommand | UpdateItemCommand)[],
  options: ItemWriteOptions = {},
): Promise<ComponentRecord[]> {
  checkItemWriteLimits(inputs);
  return writeItems(store, await writeContext(), mode, inputs, options);
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
