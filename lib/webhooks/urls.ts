import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { InvalidInputError } from '../errors.js';

export interface UrlPolicy {
  /**
   * Deployed stacks: false (https, public addresses only). The local stack: true, which adds loopback
   * (127.0.0.0/8, ::1), over http or https, so integrators can develop against a receiver on this machine;
   * every other non-public address (link-local and the metadata service, private, unique-local, ...) stays
   * refused there too.
   */
  allowLoopback: boolean;
}

/** The range of an address, an IPv4-mapped IPv6 address (::ffff:a.b.c.d) taken as its IPv4 address. */
function rangeOf(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range();
}

/**
 * A public address: one ipaddr.js calls `unicast` (global unicast, outside every special-purpose range it
 * knows), and for IPv6 not IPv4-compatible (::/96, deprecated: ::7f00:1 is 127.0.0.1, which some stacks
 * route). An allowlist: ranges ipaddr.js names that a list of forbidden ones would miss (site-local
 * fec0::/10 as deprecatedSiteLocal, discard-only 100::/64, SRv6 segment ids 5f00::/16) were taken as public.
 */
export function isPublicAddress(address: string): boolean {
  if (rangeOf(address) !== 'unicast') return false;
  const parsed = ipaddr.parse(address);
  return !(parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0));
}

function isLoopbackAddress(address: string): boolean {
  return rangeOf(address) === 'loopback';
}

/** Resolves a host name to every address it has (the system resolver; tests pass their own). */
export type HostLookup = (host: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: HostLookup = (host) => lookup(host, { all: true, verbatim: true });

/** A receiver URL with the address it was checked at: delivery connects to exactly this address. */
export interface ReceiverTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/**
 * A receiver URL: absolute, no credentials, at most 2,000 characters, https (http only to loopback where
 * the policy allows loopback), and a host whose every address is public (or loopback, where allowed). The
 * host is resolved once, here; the caller connects to the address returned, so a name that resolves
 * differently a moment later (DNS rebinding) cannot move the request. IP literals in any form the URL parser
 * accepts (decimal 2852039166, octal 0251.0376.0251.0376, IPv4-mapped [::ffff:a9fe:a9fe]) are normalised by
 * it before the check. Checked when a webhook is saved and again before every attempt.
 */
export async function resolveReceiver(raw: string, policy: UrlPolicy, resolve: HostLookup = systemLookup): Promise<ReceiverTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidInputError(`url is not an absolute URL: ${raw.slice(0, 200)}`, { field: 'url' });
  }
  if (raw.length > 2000) throw new InvalidInputError('url is at most 2,000 characters', { field: 'url' });
  if (url.protocol !== 'https:' && !(policy.allowLoopback && url.protocol === 'http:')) throw new InvalidInputError('url must use https', { field: 'url' });
  if (url.username || url.password) throw new InvalidInputError('url must not carry credentials; verify the signature instead', { field: 'url' });
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = ipaddr.isValid(host)
    ? [{ address: host, family: ipaddr.parse(host).kind() === 'ipv6' ? 6 : 4 }]
    : await resolve(host).then(
        (found) => found,
        () => [],
      );
  if (addresses.length === 0) throw new InvalidInputError(`url: the host ${host} does not resolve`, { field: 'url' });
  const allowed = (address: string) => (url.protocol === 'https:' && isPublicAddress(address)) || (policy.allowLoopback && isLoopbackAddress(address));
  const blocked = addresses.find(({ address }) => !allowed(address));
  if (blocked) {
    const what = isPublicAddress(blocked.address) ? 'a public address, which needs https' : policy.allowLoopback ? 'neither public nor loopback' : 'a private, loopback or link-local address';
    throw new InvalidInputError(`url: the host ${host} resolves to ${blocked.address}, ${what}`, { field: 'url' });
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** resolveReceiver when only the URL matters (saving a webhook). */
export async function checkReceiverUrl(raw: string, policy: UrlPolicy, resolve?: HostLookup): Promise<URL> {
  return (await resolveReceiver(raw, policy, resolve)).url;
}
