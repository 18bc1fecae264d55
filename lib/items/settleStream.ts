/**
 * Which stream records settle a large write from the stream: the commit of a write whose commit record says
 * `settleOn: STREAM` (a change order release over `maxReleaseInOneCommit` components: its approval returns at
 * the commit, lib/changeOrders/act.ts), as the change of that record from PENDING to COMMITTED. Only that
 * change: the settling's own update (settledAt) reads COMMITTED before and after, so it never starts another.
 * One pattern in Lambda event filtering's syntax, used by the jobs function's event source mapping
 * (FilterCriteria, infra/stack.ts) and applied in code by the jobs function and the local stack's poller
 * (infra/local/start.ts). Kept free of imports: the CDK app loads it.
 */
export const committedWriteStreamFilter = {
  eventName: ['MODIFY'],
  dynamodb: {
    OldImage: { entity: { S: ['PendingWrite'] }, status: { S: ['PENDING'] } },
    NewImage: { entity: { S: ['PendingWrite'] }, status: { S: ['COMMITTED'] }, settleOn: { S: ['STREAM'] } },
  },
} as const;
