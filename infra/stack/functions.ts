import { AssetHashType, Duration, RemovalPolicy, Validations, type Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { federatedClientLeaseKey } from '../../lib/store/samlSignin.js';
import { projectRoot, stageFunctionBundle } from '../bundle.js';

export const functionNames = ['graphql', 'auth', 'scim'] as const;
/** The functions behind the HTTP API's routes. */
export type FunctionName = (typeof functionNames)[number];

export const logRetention = logs.RetentionDays.THREE_MONTHS;

/**
 * The code of `functions/<name>/handler.ts`: built by infra/bundle.ts (esbuild, ESM, split into an entry and
 * chunks loaded on first use, the SDK bundled) in this process at synth, so synth needs neither Docker nor a
 * network; the image is the fallback where local bundling is refused. Every function's code comes from here.
 */
export function functionCode(name: string): lambda.Code {
  return lambda.Code.fromAsset(projectRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: lambda.Runtime.NODEJS_22_X.bundlingImage,
      command: ['bash', '-c', `npx tsx infra/bundle.ts ${name} /asset-output`],
      local: {
        tryBundle(outputDir: string) {
          stageFunctionBundle(name, outputDir);
          return true;
        },
      },
    },
  });
}

/**
 * One of the stack's functions, with its log group and an explicit role that may write only to that log
 * group and use the table. `tableAccess` saml-resync: reads, and writes only the federated client's lease item.
 */
export function createFunction(
  stack: Stack,
  name: FunctionName | 'webhooks' | 'jobs' | 'samlResync',
  environment: Record<string, string>,
  table: dynamodb.TableV2,
  timeout = Duration.seconds(29),
  memorySize = 1024,
  tableAccess: 'read-write' | 'saml-resync' = 'read-write',
): NodejsFunction {
  const logGroup = new logs.LogGroup(stack, `${pascalCase(name)}FunctionLogs`, {
    retention: logRetention,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  // An explicit role that may write only to this function's log group, instead of the
  // AWSLambdaBasicExecutionRole managed policy (which grants logs:* on every log group).
  const role = new iam.Role(stack, `${pascalCase(name)}FunctionRole`, {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
  });
  logGroup.grantWrite(role);
  if (tableAccess === 'read-write') table.grantReadWriteData(role);
  else {
    table.grantReadData(role);
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'],
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [federatedClientLeaseKey.PK] } },
      }),
    );
  }
  Validations.of(role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(table.node.defaultChild as dynamodb.CfnGlobalTable)}.Arn>/index/*]`,
    reason: 'Queries on the table GSIs (tableDefinition.globalSecondaryIndexes); the wildcard covers only indexes of this one table.',
  });

  const fn = new NodejsFunction(stack, `${pascalCase(name)}Function`, {
    code: functionCode(name),
    handler: 'index.handler',
    runtime: lambda.Runtime.NODEJS_22_X,
    architecture: lambda.Architecture.ARM_64,
    memorySize,
    timeout,
    role,
    logGroup,
    environment,
  });
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-L1',
    reason: 'nodejs22.x is the runtime the architecture fixes (code must also run on Node 20 locally); moving to a newer runtime is a deliberate upgrade, not a synth-time default.',
  });
  return fn;
}

/** SES SendEmail, pinned to the sender address MAIL_FROM. */
export function grantSendMail(stack: Stack, fn: NodejsFunction, mailFrom: string): void {
  const sesIdentities = stack.formatArn({ service: 'ses', resource: 'identity', resourceName: '*' });
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['ses:SendEmail'],
      resources: [sesIdentities],
      conditions: { StringEquals: { 'ses:FromAddress': mailAddress(mailFrom) } },
    }),
  );
  Validations.of(fn.role!).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
    reason:
      'SendEmail is authorized against SES identity ARNs, and whether MAIL_FROM is verified as an address or as its domain is decided per account; the ses:FromAddress condition pins the sender to MAIL_FROM.',
  });
}

export function pascalCase(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** `PLM <noreply@example.com>` -> `noreply@example.com`; a bare address is returned as is. */
export function mailAddress(mailFrom: string): string {
  return /<([^>]+)>/.exec(mailFrom)?.[1] ?? mailFrom;
}
