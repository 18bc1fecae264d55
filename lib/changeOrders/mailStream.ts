/**
 * Which stream records send change order mails: the INSERT of an outbox item (`ChangeOrderMail`,
 * lib/store/changeOrderMail.ts), written in the transaction of the action that sends them. Only the INSERT:
 * the sender's own progress (sentTo, sentAt) is a MODIFY and never starts another sending. One pattern in
 * Lambda event filtering's syntax, used by the jobs function's event source mapping (FilterCriteria,
 * infra/stack/streamFunctions.ts) and applied in code by the jobs function and the local stack's poller
 * (infra/local/start.ts). Kept free of imports: the CDK app loads it.
 */
export const changeOrderMailStreamFilter = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { entity: { S: ['ChangeOrderMail'] } } },
} as const;

/**
 * The message of the jobs function's ERROR line when an outbox item's last attempt failed
 * (lib/changeOrders/notifications.ts): the stack's metric filter counts it and alarms (infra/stack/alarms.ts).
 */
export const mailFailedForGoodMessage = 'change order mails failed: not sent after the last attempt';
