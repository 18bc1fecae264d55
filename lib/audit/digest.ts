import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Store } from '../store/client.js';
import { auditChainPk, listAuditedOrganizationIds, putAuditDigest, sealAuditChain, type AuditChainPoint } from '../store/audit.js';

/**
 * The daily digest of each organization's chain head, kept apart from the table (lib/store/README.md,
 * "Audit log"): the `DIGEST#<day>` item, and, deployed, an object in the audit digest bucket, whose
 * Object Lock in COMPLIANCE mode (infra/stack/buckets.ts) keeps anyone, the account's root included, from changing
 * or deleting it before its retention ends. An edit of the table cannot then move a head a digest named.
 */

/** Where digests are kept apart: an S3 bucket with Object Lock (deployed), nothing else locally. */
export interface AuditDigestSink {
  put(key: string, body: string): Promise<void>;
}

/** The bucket's default retention (COMPLIANCE) applies to every object put; a digest is never overwritten in place (versions). */
export class S3AuditDigestSink implements AuditDigestSink {
  private s3?: Promise<{ client: S3Client; sdk: typeof import('@aws-sdk/client-s3') }>;

  constructor(private readonly bucket: string) {}

  async put(key: string, body: string): Promise<void> {
    this.s3 ??= import('@aws-sdk/client-s3').then((sdk) => ({ sdk, client: new sdk.S3Client({}) }));
    const { client, sdk } = await this.s3;
    const bytes = Buffer.from(body);
    // Object Lock buckets refuse a PUT without an integrity checksum.
    const checksum = createHash('sha256').update(bytes).digest('base64');
    await client.send(new sdk.PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: 'application/json', ChecksumSHA256: checksum }));
  }
}

/** AUDIT_DIGEST_BUCKET names the bucket (set on the deployed function); none locally. */
export function auditDigestSinkFromEnv(env: NodeJS.ProcessEnv = process.env): AuditDigestSink | undefined {
  return env.AUDIT_DIGEST_BUCKET ? new S3AuditDigestSink(env.AUDIT_DIGEST_BUCKET) : undefined;
}

export interface KeptDigest {
  organizationId: string;
  day: string;
  seq: number;
  hash: string;
  at: string;
  /** The object key in the digest bucket, when one was written. */
  objectKey?: string;
}

/** The object key of a day's digest: `audit-digests/<organizationId>/<yyyy-mm-dd>.json`. */
export const auditDigestObjectKey = (organizationId: string, day: string) => `audit-digests/${organizationId}/${day}.json`;

/**
 * Keeps one organization's digest of the day: links what is pending first (so the head is current), writes
 * the digest item (once a day; run again, the kept one), and puts it in the sink. Undefined for an
 * organization with no audit entry yet.
 */
export async function keepAuditDigest(store: Store, organizationId: string, sink?: AuditDigestSink, day = new Date().toISOString().slice(0, 10)): Promise<KeptDigest | undefined> {
  const chainPk = auditChainPk(organizationId, { type: 'operator', id: 'digest' });
  await sealAuditChain(store, chainPk);
  const digest: AuditChainPoint | undefined = await putAuditDigest(store, chainPk, day);
  if (!digest) return undefined;
  const kept: KeptDigest = { organizationId, day, seq: digest.seq, hash: digest.hash, at: digest.at };
  if (!sink) return kept;
  const objectKey = auditDigestObjectKey(organizationId, day);
  await sink.put(objectKey, `${JSON.stringify({ organizationId, day, chain: chainPk, seq: digest.seq, hash: digest.hash, at: digest.at })}\n`);
  return { ...kept, objectKey };
}

/**
 * The daily schedule (infra/stack/buckets.ts, AuditDigestSchedule): the digest of every organization whose chain
 * was ever sealed, from the registry of chains (a Query: the schedule never scans the table).
 */
export async function keepAllAuditDigests(store: Store, sink?: AuditDigestSink, day?: string): Promise<KeptDigest[]> {
  const kept: KeptDigest[] = [];
  for (const organizationId of await listAuditedOrganizationIds(store)) {
    const digest = await keepAuditDigest(store, organizationId, sink, day);
    if (digest) kept.push(digest);
  }
  return kept;
}
