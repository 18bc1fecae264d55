/** The operator's commands for change order mails that failed for good, or that the sweep cannot see (lib/changeOrders/mailRetry.ts). */
import { backfillChangeOrderMailDueKeys, listFailedChangeOrderMails, resendFailedChangeOrderMails } from '../../lib/changeOrders/mailRetry.js';
import { optionsOf, operatorTask, organizationOfSlug, runCommand, text, type CommandHandlers } from './runCommand.js';

export const mailCommands = {
  /** Every failed item of the stack, newest first: organization, library, change order, subjects, attempts, the last error. */
  'mails failed': (args) => operatorTask('mails failed', args, { required: [] }, async (store) => ({ failed: await listFailedChangeOrderMails(store) })),
  /** After the cause is fixed: the failed items (or one change order's) due again now; the sweep sends what did not go. */
  'mails resend': (args) =>
    operatorTask('mails resend', args, { required: [], optional: ['change-order-id'] }, async (store, values) => ({
      resent: await resendFailedChangeOrderMails(store, { changeOrderId: values['change-order-id'] }),
    })),
  /**
   * Once, after deploying the build with the due index: unsent outbox items an older build wrote (no due keys)
   * go in the due index, so the sweep sends them: the whole table, or `--org-slug`'s libraries only. A progress
   * line per page (per library) on stderr; `--dry-run` only counts.
   */
  'mails backfill': async (args) => {
    const values = optionsOf(args, { 'dry-run': { type: 'boolean' }, 'org-slug': { type: 'string' } });
    const slug = text(values, 'org-slug');
    await runCommand('mails backfill', values, async (store) =>
      backfillChangeOrderMailDueKeys(store, {
        dryRun: values['dry-run'] === true,
        organizationId: slug ? await organizationOfSlug(store, slug) : undefined,
        onPage: (progress) =>
          process.stderr.write(
            `mails backfill: page ${progress.pages}, ${progress.scanned} items read, ${progress.found} unsent without due keys, ${progress.indexed} indexed, ${progress.changed} changed meanwhile, ${progress.expired} expired\n`,
          ),
      }),
    );
  },
} satisfies CommandHandlers;
