import { gqlOk, type Tenant } from './api.js';

export interface HistoryEntry {
  id: string;
  version: number;
  action: string;
  createdAt: string;
  user: { id: string } | null;
  changes: { field: string; from: unknown; to: unknown }[];
}

const historyQuery = `query($id: ID!, $first: Int) {
  component { findOne(id: $id) { history(first: $first) { id version action createdAt user { id } changes { field from to } } } }
}`;

/** A component's history records, newest first: all of them (up to 1,000), or the first `first`. */
export async function historyOf(tenant: Tenant, id: string, first = 1000): Promise<HistoryEntry[]> {
  const data = await gqlOk<{ component: { findOne: { history: HistoryEntry[] } | null } }>(tenant, historyQuery, { id, first });
  return data.component.findOne!.history;
}
