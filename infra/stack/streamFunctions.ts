import { Duration, RemovalPolicy, Validations, type Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { changeOrderMailStreamFilter } from '../../lib/changeOrders/mailStream.js';
import { committedWriteStreamFilter } from '../../lib/items/settleStream.js';
import { importJobStreamFilter } from '../../lib/transfer/jobStream.js';
import { createFunction, grantSendMail } from './functions.js';

/**
 * The fourth function: the table's stream feeds it changed items, which it turns into webhook deliveries;
 * a schedule runs it every minute for the retries that are due. Webhook secrets derive from a generated
 * key in Secrets Manager that the GraphQL function (which shows a new secret once) and this one read.
 */
export function createWebhooks(stack: Stack, table: dynamodb.TableV2, environment: Record<string, string>, graphql: NodejsFunction): NodejsFunction {
  const signingKey = new secretsmanager.Secret(stack, 'WebhookSigningKey', {
    description: 'The key webhook signing secrets are derived from (lib/webhooks/signing.ts)',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
    removalPolicy: RemovalPolicy.RETAIN,
  });
  Validations.of(signingKey).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason: 'Every webhook secret derives from this key: rotating it would break every receiver at once. Receivers rotate their own secret with webhooks.rotateSecret.',
  });
  const webhookEnvironment = { ...environment, WEBHOOK_SIGNING_KEY_SECRET_ID: signingKey.secretArn };
  graphql.addEnvironment('WEBHOOK_SIGNING_KEY_SECRET_ID', signingKey.secretArn);
  signingKey.grantRead(graphql);
  const fn = createFunction(stack, 'webhooks', webhookEnvironment, table, Duration.seconds(120));
  signingKey.grantRead(fn);
  // Notifications of watchers are mailed from here (lib/notifications/fanout.ts), and the daily digests.
  grantSendMail(stack, fn, environment.MAIL_FROM!);
  fn.addEventSource(
    new DynamoEventSource(table, {
      startingPosition: lambda.StartingPosition.LATEST,
      batchSize: 100,
      maxBatchingWindow: Duration.seconds(1),
      bisectBatchOnError: true,
      retryAttempts: 5,
      reportBatchItemFailures: false,
    }),
  );
  new events.Rule(stack, 'WebhookRetrySchedule', {
    description: 'Attempts the webhook deliveries whose retry is due',
    schedule: events.Schedule.rate(Duration.minutes(1)),
    targets: [new targets.LambdaFunction(fn)],
  });
  new events.Rule(stack, 'NotificationDigestSchedule', {
    description: 'Mails the daily digest of notifications to the users who chose it',
    schedule: events.Schedule.cron({ minute: '0', hour: '7' }),
    targets: [new targets.LambdaFunction(fn, { event: events.RuleTargetInput.fromObject({ digest: true }) })],
  });
  return fn;
}

/**
 * The fifth function: runs API imports as jobs (lib/transfer/jobs.ts). The table's stream hands it the
 * INSERT of each ImportJob item, and only those (event filtering; the local stack applies the same
 * filter). An import of 10,000 components takes over a minute, beyond API Gateway's 30 s: hence 15 minutes,
 * and memory for the whole file, its parsed components and their items. The job records its own failure
 * (FAILED), so the mapping never retries; parallelization lets jobs of other libraries on the same shard
 * start while one runs. It reads the uploaded files (GetObject only) and the table. The same mapping hands
 * it the commit of each large change order release (a second filter, lib/items/settleStream.ts): it settles
 * the release (marks put in place, search entries, change requests closed), which takes longer than the
 * approval's request may; a failed settling is retried twice, cleanupAbandonedWrites is the backstop. And the
 * INSERT of each change order mail outbox item (a third filter, lib/changeOrders/mailStream.ts): it sends the
 * mails of the action that committed it (SES, pinned to MAIL_FROM); a failed send is retried twice, and an
 * address already sent is not sent again. Mails still unsent after that (SES down or throttled longer, a
 * function that died) are not lost: a schedule runs this function every minute to send the outbox items
 * that are due (lib/changeOrders/mailRetry.ts: each claimed with a lease first, so no address goes twice,
 * exponential backoff, after 12 attempts the item records its failure and an ERROR log line names it).
 */
export function createImportJobs(stack: Stack, table: dynamodb.TableV2, environment: Record<string, string>, filesBucket: s3.Bucket): NodejsFunction {
  const fn = createFunction(stack, 'jobs', { ...environment, FILES_BUCKET: filesBucket.bucketName }, table, Duration.minutes(15), 3008);
  grantSendMail(stack, fn, environment.MAIL_FROM!);
  // GetObject: the uploaded import file, and the files of the library a bundle was exported from; PutObject: their copies.
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject'], resources: [filesBucket.arnForObjects('*')] }));
  Validations.of(fn.role!).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(filesBucket.node.defaultChild as s3.CfnBucket)}.Arn>/*]`,
    reason:
      'Imports read the uploaded file of any library and the files of the library a bundle came from, and write their copies (keys <organizationId>/<libraryId>/<file id>); GetObject and PutObject only, on the objects of this one bucket.',
  });
  fn.addEventSource(
    new DynamoEventSource(table, {
      startingPosition: lambda.StartingPosition.LATEST,
      batchSize: 1,
      parallelizationFactor: 10,
      // A failure before the job is claimed (init, throttle) is retried; a retry of a claimed job does nothing
      // (the claim is conditional on QUEUED) and a claimed job records its own failure.
      retryAttempts: 2,
      filters: [lambda.FilterCriteria.filter(importJobStreamFilter), lambda.FilterCriteria.filter(committedWriteStreamFilter), lambda.FilterCriteria.filter(changeOrderMailStreamFilter)],
    }),
  );
  new events.Rule(stack, 'ChangeOrderMailSweepSchedule', {
    description: 'Sends the change order mails that are due: the ones the stream did not send',
    schedule: events.Schedule.rate(Duration.minutes(1)),
    targets: [new targets.LambdaFunction(fn, { event: events.RuleTargetInput.fromObject({ changeOrderMailSweep: true }) })],
  });
  return fn;
}
