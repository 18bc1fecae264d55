/** Operator commands that repair one library: settle abandoned large writes, rebuild the search index. */
import { InvalidInputError } from '../../lib/errors.js';
import { cleanupAbandonedWrites } from '../../lib/items/cleanup.js';
import { reindexLibrary } from '../../lib/search/table/reindex.js';
import { libraryTask, type CommandHandlers } from './runCommand.js';

/** Settles large item writes a crash left behind in one library (see lib/store/README.md). */
function cleanupWrites(args: string[]): Promise<void> {
  return libraryTask('cleanup-writes', args, { 'older-than-minutes': { type: 'string' } }, (store, library, values) => {
    const minutes = values['older-than-minutes'] === undefined ? 15 : Number(values['older-than-minutes']);
    if (!Number.isFinite(minutes) || minutes < 0) throw new InvalidInputError('--older-than-minutes must be a number of minutes');
    return cleanupAbandonedWrites(store, library.organizationId, library.libraryId, minutes * 60_000);
  });
}

/** Rebuilds a library's search index from its components (after restoring data, or for data written before the index existed). */
function reindexSearch(args: string[]): Promise<void> {
  return libraryTask('reindex-search', args, {}, (store, library) => reindexLibrary(store, library));
}

export const libraryMaintenanceCommands = {
  'cleanup-writes': cleanupWrites,
  'reindex-search': reindexSearch,
} satisfies CommandHandlers;
