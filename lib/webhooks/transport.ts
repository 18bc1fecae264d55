import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ReceiverTarget } from './urls.js';

/**
 * POSTs a body to a checked receiver and answers its HTTP status. The socket connects to the address the
 * URL was checked at (a `lookup` that answers only that address), never to a fresh resolution of the name;
 * the Host header, TLS server name and certificate check still use the URL's host name. No redirect is
 * followed, no connection is pooled (a pooled socket could belong to an earlier resolution), and the body of
 * the answer is not read.
 */
export function postToReceiver(target: ReceiverTarget, headers: Record<string, string>, body: string, timeoutMs: number): Promise<number> {
  const { url, address, family } = target;
  const pinned: LookupFunction = (_host, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup: pinned, agent: false, signal: AbortSignal.timeout(timeoutMs) },
      (response) => {
        resolve(response.statusCode ?? 0);
        response.destroy();
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
