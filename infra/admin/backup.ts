/** Operator commands of backup and restore: every item of the table as typed JSON lines, and back. */
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { backupLines, prepareRestoreTarget, restoreLines } from '../../lib/store/backup.js';
import { operatorTask, type CommandHandlers } from './runCommand.js';

/** Backup: every item of the table as a typed JSON line. Its audit entry is written after the scan (not in the file). */
function backup(args: string[]): Promise<void> {
  return operatorTask('backup', args, { required: ['out'] }, async (store, v) => {
    const out = createWriteStream(v.out!);
    let items = 0;
    for await (const line of backupLines(store)) {
      if (!out.write(`${line}\n`)) await once(out, 'drain');
      items += 1;
      if (items % 10_000 === 0) process.stderr.write(`backup: ${items} items\n`);
    }
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
    return { table: store.tableName, out: v.out, items };
  });
}

/** Restore into an empty or new table; the audit entry goes to the table the CLI targets (TABLE_NAME), not to --table. */
function restore(args: string[]): Promise<void> {
  return operatorTask('restore', args, { required: ['in'], optional: ['table'] }, async (store, v) => {
    const target = v.table ? { ...store, tableName: v.table } : store;
    await prepareRestoreTarget(target);
    const lines = createInterface({ input: createReadStream(v.in!), crlfDelay: Infinity });
    return { table: target.tableName, in: v.in, items: await restoreLines(target, lines) };
  });
}

export const backupCommands = { backup, restore } satisfies CommandHandlers;
