/** Operator commands of the audit log: verify, export, seal, digest, retention. */
import { writeFile } from 'node:fs/promises';
import { auditDigestSinkFromEnv, keepAuditDigest } from '../../lib/audit/digest.js';
import { auditCsv, auditJsonLines } from '../../lib/audit/export.js';
import { InvalidInputError } from '../../lib/errors.js';
import { listAuditEntries, sealAuditChain, verifyAuditChain } from '../../lib/store/audit.js';
import { setAuditRetention } from '../../lib/store/organization.js';
import type { OperatorCommandName } from './commands.js';
import { operatorTask, organizationOfSlug, type CommandHandlers } from './runCommand.js';

const chainOf = (organizationId: string) => `ORG#${organizationId}#AUDIT`;

/** The audit log's operator commands (lib/store/README.md, "Audit log"). verify exits 1 when the chain does not hold. */
async function auditCommand(name: OperatorCommandName, args: string[]): Promise<void> {
  const range = (v: Record<string, string>) => ({ from: v.from, to: v.to });
  if (name === 'audit verify') {
    let ok = true;
    await operatorTask(name, args, { required: ['org-slug'], optional: ['from', 'to'] }, async (store, v) => {
      const result = await verifyAuditChain(store, chainOf(await organizationOfSlug(store, v['org-slug']!)), range(v));
      ok = result.ok;
      return result;
    });
    if (!ok) process.exitCode = 1;
  } else if (name === 'audit export') {
    await operatorTask(name, args, { required: ['org-slug', 'out'], optional: ['format', 'from', 'to'] }, async (store, v) => {
      const format = v.format ?? 'jsonl';
      if (format !== 'jsonl' && format !== 'csv') throw new InvalidInputError('--format is jsonl or csv');
      const entries = await listAuditEntries(store, chainOf(await organizationOfSlug(store, v['org-slug']!)), range(v));
      await writeFile(v.out!, format === 'csv' ? auditCsv(entries) : auditJsonLines(entries));
      return { out: v.out, format, entries: entries.length };
    });
  } else if (name === 'audit seal') {
    await operatorTask(name, args, { required: ['org-slug'] }, async (store, v) => ({ sealed: await sealAuditChain(store, chainOf(await organizationOfSlug(store, v['org-slug']!))) }));
  } else if (name === 'audit digest') {
    // Deployed with AUDIT_DIGEST_BUCKET (the stack's AuditDigestBucketName output), also the Object Lock copy.
    await operatorTask(name, args, { required: ['org-slug'] }, async (store, v) => ({
      digest: (await keepAuditDigest(store, await organizationOfSlug(store, v['org-slug']!), auditDigestSinkFromEnv())) ?? null,
    }));
  } else {
    await operatorTask(name, args, { required: ['org-slug', 'days'] }, async (store, v) => {
      const days = Number(v.days);
      if (!Number.isInteger(days) || days < 1 || days > 3650) throw new InvalidInputError('--days is a whole number of days from 1 to 3650');
      return { updated: await setAuditRetention(store, await organizationOfSlug(store, v['org-slug']!), days), days };
    });
  }
}

export const auditCommands = {
  'audit verify': (args) => auditCommand('audit verify', args),
  'audit export': (args) => auditCommand('audit export', args),
  'audit seal': (args) => auditCommand('audit seal', args),
  'audit digest': (args) => auditCommand('audit digest', args),
  'audit retention': (args) => auditCommand('audit retention', args),
} satisfies CommandHandlers;
