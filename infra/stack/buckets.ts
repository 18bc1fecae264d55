import { Duration, RemovalPolicy, Validations, type Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as s3 from 'aws-cdk-lib/aws-s3';

/**
 * Bytes of uploaded files. Browsers PUT and GET them directly with URLs the GraphQL function presigns
 * (lib/files/blobStorage.ts); the bucket itself is never public. Created with the destination of the
 * buckets' server access logs.
 */
export function createFilesBucket(stack: Stack, allowedOrigins: string[]): { filesBucket: s3.Bucket; accessLogsBucket: s3.Bucket } {
  // Destination of the files bucket's server access logs; it does not log itself (each delivery would
  // generate further records), and cdk-nag AwsSolutions-S1 accepts a bucket that is a log destination.
  const accessLogsBucket = new s3.Bucket(stack, 'AccessLogsBucket', {
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    // Server access log delivery supports SSE-S3 only on the destination bucket.
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    lifecycleRules: [{ id: 'ExpireAccessLogs', expiration: Duration.days(90) }],
    // Audit records outlive the stack; CloudFormation could not delete a non-empty bucket anyway.
    removalPolicy: RemovalPolicy.RETAIN,
  });

  const filesBucket = new s3.Bucket(stack, 'FilesBucket', {
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    // Objects are write-once (random key per file, PUT bound to its length and SHA-256) and the service
    // never deletes them, so versioning costs next to nothing in normal operation; it makes an accidental delete
    // or overwrite (by an operator or a future bug) recoverable, as point-in-time recovery does for the table.
    versioned: true,
    lifecycleRules: [
      { id: 'AbortIncompleteMultipartUploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      // The recovery window of replaced and deleted objects: the same 35 days as the table's point-in-time recovery.
      { id: 'ExpireNoncurrentVersions', noncurrentVersionExpiration: Duration.days(35), expiredObjectDeleteMarker: true },
    ],
    cors: [
      {
        allowedOrigins,
        allowedMethods: [s3.HttpMethods.PUT, s3.HttpMethods.GET],
        // The headers S3BlobStorage signs into upload URLs and returns for the client to send.
        allowedHeaders: ['content-type', 'content-length', 'x-amz-checksum-sha256'],
        exposedHeaders: ['ETag'],
        maxAge: 3600,
      },
    ],
    serverAccessLogsBucket: accessLogsBucket,
    serverAccessLogsPrefix: 'files/',
    removalPolicy: RemovalPolicy.RETAIN,
  });
  return { filesBucket, accessLogsBucket };
}

/**
 * Presigned URLs act with the signer's permissions: PutObject for uploads, GetObject for downloads and for
 * HeadObject (also with ChecksumMode ENABLED under SSE-S3). ListBucket makes HeadObject of a key that was
 * never uploaded answer 404 rather than 403, which S3BlobStorage.inspect reports as "nothing uploaded yet".
 */
export function grantFilesPermissions(stack: Stack, graphqlFunction: NodejsFunction, filesBucket: s3.Bucket): void {
  graphqlFunction.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:PutObject', 's3:GetObject'], resources: [filesBucket.arnForObjects('*')] }));
  graphqlFunction.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [filesBucket.bucketArn] }));
  Validations.of(graphqlFunction.role!).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(filesBucket.node.defaultChild as s3.CfnBucket)}.Arn>/*]`,
    reason:
      'Object keys are <organizationId>/<libraryId>/<random file id> (lib/files/files.ts), so no narrower prefix covers them; the wildcard spans the objects of this one bucket, with only PutObject and GetObject.',
  });
}

/**
 * The audit chain's daily digest kept apart (lib/audit/digest.ts): a schedule runs the webhooks function
 * at 00:30 UTC to link what is pending, write each organization's `DIGEST#<day>` item, and put the same
 * digest as an object in a bucket of its own under Object Lock in COMPLIANCE mode: for 400 days (the
 * default audit retention) no one, the account's root user included, can overwrite or delete a version,
 * nor shorten its retention. An edit of the table that moves a chain's head then no longer matches the
 * digests outside it. The function may only put objects under audit-digests/ (no delete, no retention
 * change); the bucket is private, versioned (Object Lock needs it), encrypted, TLS only, access-logged.
 */
export function createAuditDigests(stack: Stack, fn: NodejsFunction, accessLogsBucket: s3.Bucket): s3.Bucket {
  const bucket = new s3.Bucket(stack, 'AuditDigestBucket', {
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    versioned: true,
    objectLockEnabled: true,
    objectLockDefaultRetention: s3.ObjectLockRetention.compliance(Duration.days(400)),
    serverAccessLogsBucket: accessLogsBucket,
    serverAccessLogsPrefix: 'audit-digests/',
    removalPolicy: RemovalPolicy.RETAIN,
  });
  fn.addEnvironment('AUDIT_DIGEST_BUCKET', bucket.bucketName);
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [bucket.arnForObjects('audit-digests/*')] }));
  Validations.of(fn.role!).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(bucket.node.defaultChild as s3.CfnBucket)}.Arn>/audit-digests/*]`,
    reason: 'Digest objects are keyed audit-digests/<organizationId>/<day>.json (lib/audit/digest.ts); PutObject only, under that prefix of this one bucket, whose Object Lock keeps every version.',
  });
  new events.Rule(stack, 'AuditDigestSchedule', {
    description: "Keeps each organization's audit chain head apart: a digest item and an Object Lock object a day",
    schedule: events.Schedule.cron({ minute: '30', hour: '0' }),
    targets: [new targets.LambdaFunction(fn, { event: events.RuleTargetInput.fromObject({ auditDigest: true }) })],
  });
  return bucket;
}
