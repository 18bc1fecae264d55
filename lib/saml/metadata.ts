import { createHash, X509Certificate } from 'node:crypto';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { AccessAdminError } from '../errors.js';

/** What the service needs from an identity provider's SAML 2.0 metadata. */
export interface SamlIdentityProvider {
  entityId: string;
  ssoUrl: string;
  certificateSha256: string;
  certificateNotAfter: string;
  /** The signing certificate, base64 DER (as in the metadata, whitespace removed). */
  certificate: string;
}

const maxMetadataBytes = 256 * 1024;
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', removeNSPrefix: true, processEntities: false });

const invalid = (message: string) => new AccessAdminError('SAML_METADATA_INVALID', `idpMetadataXml: ${message}`, { field: 'input.idpMetadataXml' });
const asList = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'object' && value !== null && '#text' in value ? String((value as { '#text': unknown })['#text']) : undefined;

interface KeyDescriptor {
  '@use'?: string;
  KeyInfo?: { X509Data?: { X509Certificate?: unknown } | { X509Certificate?: unknown }[] };
}

/** The base64 DER of a certificate as metadata carries it: whitespace removed, and PEM armour (-----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----) too, which some IdPs and hand-edited files include. */
function certificateBase64(text: string): string {
  return text.replace(/-----(BEGIN|END) [A-Z0-9 ]+-----/g, '').replace(/\s+/g, '');
}

/**
 * Parses and validates IdP metadata (an EntityDescriptor with an IDPSSODescriptor): its entityID, an
 * HTTPS SingleSignOnService (HTTP-Redirect or HTTP-POST binding) and a signing certificate that parses and
 * has not expired (base64 DER, with or without PEM armour). Entities are not expanded (no XXE), and the document is capped at 256 KB.
 */
export function parseIdpMetadata(xml: string, now = new Date()): SamlIdentityProvider {
  if (Buffer.byteLength(xml) > maxMetadataBytes) throw invalid(`larger than ${maxMetadataBytes} bytes`);
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw invalid('document type declarations are not accepted');
  if (XMLValidator.validate(xml) !== true) throw invalid('not well-formed XML');
  const document = parser.parse(xml) as Record<string, unknown>;
  const descriptor = (document.EntityDescriptor ?? asList((document.EntitiesDescriptor as { EntityDescriptor?: unknown })?.EntityDescriptor)[0]) as Record<string, unknown> | undefined;
  if (!descriptor) throw invalid('no EntityDescriptor');
  const entityId = descriptor['@entityID'];
  if (typeof entityId !== 'string' || entityId.trim() === '') throw invalid('the EntityDescriptor has no entityID');
  const idp = asList(descriptor.IDPSSODescriptor as Record<string, unknown> | Record<string, unknown>[] | undefined)[0];
  if (!idp) throw invalid('no IDPSSODescriptor: this is not identity provider metadata');
  const services = asList(idp.SingleSignOnService as { '@Binding'?: string; '@Location'?: string }[] | undefined);
  const service = services.find((s) => /HTTP-Redirect$/.test(s['@Binding'] ?? '')) ?? services.find((s) => /HTTP-POST$/.test(s['@Binding'] ?? ''));
  if (!service?.['@Location']) throw invalid('no SingleSignOnService with the HTTP-Redirect or HTTP-POST binding');
  let ssoUrl: URL;
  try {
    ssoUrl = new URL(service['@Location']);
  } catch {
    throw invalid('the SingleSignOnService Location is not a URL');
  }
  if (ssoUrl.protocol !== 'https:') throw invalid('the SingleSignOnService Location must be https');
  const keys = asList(idp.KeyDescriptor as KeyDescriptor | KeyDescriptor[] | undefined).filter((key) => key['@use'] === undefined || key['@use'] === 'signing');
  const encoded = keys.flatMap((key) => asList(key.KeyInfo?.X509Data).flatMap((data) => asList((data as { X509Certificate?: unknown }).X509Certificate).map(text))).find(Boolean);
  if (!encoded) throw invalid('no signing certificate (KeyDescriptor use="signing" with an X509Certificate)');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(Buffer.from(certificateBase64(encoded), 'base64'));
  } catch {
    throw invalid('the signing certificate is not a valid X.509 certificate');
  }
  const notAfter = new Date(certificate.validTo);
  if (!(notAfter.getTime() > now.getTime())) throw invalid(`the signing certificate expired on ${notAfter.toISOString()}`);
  return {
    entityId: entityId.trim(),
    ssoUrl: ssoUrl.toString(),
    certificateSha256: createHash('sha256').update(certificate.raw).digest('hex'),
    certificateNotAfter: notAfter.toISOString(),
    certificate: certificate.raw.toString('base64'),
  };
}
