import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './ports.js';

/**
 * The local stack (infra/local/start.ts) as a child process on free ports, for `npm run bench` and `npm run
 * load`. `env` is laid over the process's environment: the load run sets nothing there by default, so the
 * stack runs with the deployed defaults (per-caller rate limits and PLM_CALLER_CONCURRENCY 1); the bench
 * raises the rate limits. `cwd` runs another tree's stack (the bench's baseline ref); `nodeArgs` go before
 * the entry (e.g. `--cpu-prof`).
 */
export interface LocalStack {
  baseUrl: string;
  dynamodbEndpoint: string;
  tableName: string;
  /** Everything the stack printed so far (the last 2 MB). */
  output: () => string;
  stop: () => Promise<void>;
}

export async function startLocalStack(env: Record<string, string>, forwardLogs: boolean, options: { cwd?: string; nodeArgs?: string[] } = {}): Promise<LocalStack> {
  const [port, dynamodbPort, cognitoPort] = [await freePort(), await freePort(), await freePort()];
  const tableName = 'plm';
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', 'tsx', 'infra/local/start.ts'], {
    cwd: options.cwd ?? process.cwd(),
    env: {
      ...process.env,
      PORT: String(port),
      DYNAMODB_PORT: String(dynamodbPort),
      COGNITO_PORT: String(cognitoPort),
      TABLE_NAME: tableName,
      AWS_REGION: 'us-east-1',
      NODE_NO_WARNINGS: '1',
      PLM_DATA_DIR: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk;
    if (output.length > 4_000_000) output = output.slice(-2_000_000);
    if (forwardLogs) process.stderr.write(`[stack] ${chunk}`);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  // Last resort when the process ends in a way that skips the caller's finally.
  process.once('exit', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`The local stack exited during startup:\n${output}`);
    const healthy = await fetch(`${baseUrl}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`The local stack did not answer /health within 90 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { baseUrl, dynamodbEndpoint: `http://127.0.0.1:${dynamodbPort}`, tableName, output: () => output, stop };
}
