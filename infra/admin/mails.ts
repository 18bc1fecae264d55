/** The operator's commands for change order mails that failed for good (lib/changeOrders/mailRetry.ts). */
import { listFailedChangeOrderMails, resendFailedChangeOrderMails } from '../../lib/changeOrders/mailRetry.js';
import { operatorTask, type CommandHandlers } from './runCommand.js';

export const mailCommands = {
  /** Every failed item of the stack, newest first: organization, library, change order, subjects, attempts, the last error. */
  'mails failed': (args) => operatorTask('mails failed', args, { required: [] }, async (store) => ({ failed: await listFailedChangeOrderMails(store) })),
  /** After the cause is fixed: the failed items (or one change order's) due again now; the sweep sends what did not go. */
  'mails resend': (args) =>
    operatorTask('mails resend', args, { required: [], optional: ['change-order-id'] }, async (store, values) => ({
      resent: await resendFailedChangeOrderMails(store, { changeOrderId: values['change-order-id'] }),
    })),
} satisfies CommandHandlers;
