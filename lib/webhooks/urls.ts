import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { InvalidInputError } from '../errors.js';

export interface UrlPolicy {
  /** Deployed stacks: false (https only, public addresses only). The local stack allows http to loopback. */
  allowPrivate: boolean;
}

/** ipaddr.js ranges a webhook may not reach: anything that is not a public unicast address. */
const forbiddenRanges = new Set(['unspecified', 'broadcast', 'multicast', 'linkLocal', 'loopback', 'carrierGradeNat', 'private', 'reserved', 'uniqueLocal', 'ipv4Mapped', 'rfc6145', 'rfc6052', '6to4', 'teredo', 'benchmarking', 'amt', 'as112', 'deprecated', 'orchid2', 'droneRemoteIdProtocolEntityTags']);

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return !forbiddenRanges.has(parsed.range());
}

/**
 * A receiver URL: absolute, https (http only where private addresses are allowed), no credentials, at most
 * 2,000 characters, and a host that resolves only to public addresses. Checked when a webhook is saved and
 * again before every attempt (a name may be pointed elsewhere later).
 */
export async function checkReceiverUrl(raw: string, policy: UrlPolicy): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidInputError(`url is not an absolute URL: ${raw.slice(0, 200)}`, { field: 'url' });
  }
  if (raw.length > 2000) throw new InvalidInputError('url is at most 2,000 characters', { field: 'url' });
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) throw new InvalidInputError('url must use https', { field: 'url' });
  if (url.username || url.password) throw new InvalidInputError('url must not carry credentials; verify the signature instead', { field: 'url' });
  if (policy.allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = ipaddr.isValid(host) ? [host] : await lookup(host, { all: true }).then((found) => found.map((a) => a.address), () => []);
  if (addresses.length === 0) throw new InvalidInputError(`url: the host ${host} does not resolve`, { field: 'url' });
  const blocked = addresses.find((address) => !isPublicAddress(address));
  if (blocked) throw new InvalidInputError(`url: the host ${host} resolves to ${blocked}, a private, loopback or link-local address`, { field: 'url' });
  return url;
}
