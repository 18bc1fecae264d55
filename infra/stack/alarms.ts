import { Duration, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { mailFailedForGoodMessage } from '../../lib/changeOrders/mailStream.js';

export interface PlmAlarmsProps {
  /** The functions, by name; each gets error, throttle and duration alarms. */
  functions: Record<string, lambda.IFunction>;
  /** Their timeouts in seconds: the duration alarm fires at 80 % of it. */
  timeouts: Record<string, number>;
  apis: Record<string, HttpApi>;
  tableName: string;
  /** The stream-fed function, whose iterator age says whether webhooks keep up. */
  streamFunction: lambda.IFunction;
  /** The log group of the function that sends change order mails (jobs): a mail that failed for good pages. */
  mailFunctionLogs: logs.ILogGroup;
  /** Subscribed to the alarm topic by email when given. */
  alarmEmail?: string | undefined;
}

/**
 * What an operator is paged for: any function error or throttle, a function near its timeout, server errors
 * or slow answers of an API, throttled or failing DynamoDB requests, webhooks falling behind the stream, and
 * a change order mail that failed for good (its last attempt: lib/changeOrders/mailRetry.ts).
 * Every alarm notifies one SNS topic (output AlarmTopicArn; alarmEmail subscribes an address).
 */
export class PlmAlarms extends Construct {
  readonly topic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: PlmAlarmsProps) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'AlarmTopic', { displayName: 'PLM alarms', enforceSSL: true });
    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason: 'Alarm notifications carry no tenant data (alarm names and metric values); CloudWatch cannot publish to a topic encrypted with the AWS-managed SNS key.',
    });
    if (props.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    const action = new SnsAction(this.topic);
    const fiveMinutes = Duration.minutes(5);

    const alarm = (name: string, metric: cloudwatch.IMetric, threshold: number, description: string, evaluationPeriods = 1) => {
      const created = new cloudwatch.Alarm(this, name, {
        metric,
        threshold,
        evaluationPeriods,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      created.addAlarmAction(action);
      created.addOkAction(action);
      this.alarms.push(created);
      return created;
    };

    for (const [name, fn] of Object.entries(props.functions)) {
      const label = name.charAt(0).toUpperCase() + name.slice(1);
      alarm(`${label}Errors`, fn.metricErrors({ period: fiveMinutes, statistic: 'Sum' }), 1, `The ${name} function failed (an unexpected error: the request log has its requestId)`);
      alarm(`${label}Throttles`, fn.metricThrottles({ period: fiveMinutes, statistic: 'Sum' }), 1, `The ${name} function was throttled (account or reserved concurrency)`);
      alarm(
        `${label}Duration`,
        fn.metricDuration({ period: fiveMinutes, statistic: 'p99' }),
        props.timeouts[name]! * 1000 * 0.8,
        `The ${name} function's p99 duration is above 80 % of its timeout`,
        2,
      );
    }
    for (const [name, api] of Object.entries(props.apis)) {
      const label = name.charAt(0).toUpperCase() + name.slice(1);
      alarm(`${label}ServerErrors`, api.metricServerError({ period: fiveMinutes, statistic: 'Sum' }), 5, `The ${name} API answered 5xx at least 5 times in 5 minutes`);
      alarm(`${label}Latency`, api.metricLatency({ period: fiveMinutes, statistic: 'p95' }), 3000, `The ${name} API's p95 latency is above 3 s`, 3);
    }
    // A GraphQL request whose fault the answer masks (INTERNAL_SERVER_ERROR in a 200) is no 5xx: the request log
    // counts it in its ServerErrors metric (functions/shared/requestLog.ts), and its 'server fault' line has the cause.
    alarm(
      'GraphqlServerFaults',
      new cloudwatch.Metric({ namespace: 'PLM', metricName: 'ServerErrors', dimensionsMap: { service: 'plm', handler: 'graphql' }, period: fiveMinutes, statistic: 'Sum' }),
      1,
      "A GraphQL request ended in a server fault (INTERNAL_SERVER_ERROR, masked for the client): the graphql function's log has a 'server fault' line with the cause",
    );
    const tableMetric = (metricName: string) => new cloudwatch.Metric({ namespace: 'AWS/DynamoDB', metricName, dimensionsMap: { TableName: props.tableName }, period: fiveMinutes, statistic: 'Sum' });
    alarm('TableReadThrottles', tableMetric('ReadThrottleEvents'), 1, 'DynamoDB throttled reads of the table');
    alarm('TableWriteThrottles', tableMetric('WriteThrottleEvents'), 1, 'DynamoDB throttled writes to the table');
    alarm('TableSystemErrors', tableMetric('SystemErrors'), 1, 'DynamoDB answered 500 to requests on the table');
    alarm(
      'WebhooksIteratorAge',
      props.streamFunction.metric('IteratorAge', { period: fiveMinutes, statistic: 'Maximum' }),
      5 * 60 * 1000,
      'Webhook events are more than 5 minutes behind the table stream',
    );
    // The jobs function's ERROR line once an outbox item's last attempt failed (lib/changeOrders/notifications.ts);
    // its log events are text (timestamp, request id, level, then the JSON line), so the filter matches the phrase.
    const mailFailures = new logs.MetricFilter(this, 'ChangeOrderMailFailures', {
      logGroup: props.mailFunctionLogs,
      filterPattern: logs.FilterPattern.literal(JSON.stringify(mailFailedForGoodMessage)),
      metricNamespace: 'PLM',
      metricName: 'ChangeOrderMailsFailed',
      metricValue: '1',
    });
    alarm(
      'ChangeOrderMailsFailed',
      mailFailures.metric({ period: fiveMinutes, statistic: 'Sum' }),
      1,
      'A change order mail was not sent after its last attempt: `npm run admin -- mails failed` lists it, `mails resend` sends it again (infra/README.md)',
    );
  }
}
