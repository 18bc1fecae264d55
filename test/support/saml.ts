import { randomUUID } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';
import { SignedXml } from 'xml-crypto';

/** Test fixtures of a SAML identity provider, and a test IdP that answers AuthnRequests with signed responses. */

/** A self-signed signing certificate (CN=idp.acme.test, valid until 2126) for test IdP metadata; its key is idpPrivateKey. */
export const idpCertificate =
  'MIIDEzCCAfugAwIBAgIUIVCfxwSqWzDVgUeu3KGmdX6IosIwDQYJKoZIhvcNAQELBQAwGDEWMBQGA1UEAwwNaWRwLmFjbWUudGVzdDAgFw0yNjExMjMxNTE0MzdaGA8yMTI2MTAzMDE1MTQzN1owGDEWMBQGA1UEAwwNaWRwLmFjbWUudGVzdDCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAK2o+NF0fGjBFoULUwh24BURPRXnrymiUMTwp8Pu9i6B+5HYEFBRV4xMvSAWOzfxyUiaL3YTGWfKTqpWsyIkMpbaU99ur+cHZwEXgej6eC3IHB0lkVXWzi4coCtfXBB2R49CFxq3ix8IjB4OaMo7ejFNNFSdAfhHoPtE2ZZyTpZ3C5o6gJFaFQBpcQATHoyNxRb3zxW1YW6sH77jXpc8QPVrgkIfWb0P+nqW07Wy9ts5W1vvnejWaIGe6CapaVyhFaClKoD1FX19bOdvf+QTzPCZ1YnGlOT4iZNW9DbtGIWZ04PsLmfKaq0x5WWWPuvD1t0ybLTVx4EKYqnAblxTy3kCAwEAAaNTMFEwHQYDVR0OBBYEFMBNeOSwU7h18YYsZKqDBNqgjYimMB8GA1UdIwQYMBaAFMBNeOSwU7h18YYsZKqDBNqgjYimMA8GA1UdEwEB/wQFMAMBAf8wDQYJKoZIhvcNAQELBQADggEBAJWC+EiXtZNPsEvxHdaJP4uh87qxOsEc0H9udopy4BEmHwuxH/+3Gjxld06gCFEJ3rezKP/VA0j8+JrFexbY6Iyi7kgGZiec0HB7z4BDwfTAbB4/Qp1Pc7DZxHmqxFHTSL0eFfPpnRkiaWlu8xY/R33hgNJJ4iF1vaMvqpvdv0vGXzThgBXjrlHiZE/7cByBU7CerZ53DJjjnsGX+Nw7KHn7yKwDmNB0xZXxTBEdqv5o2M7ywnWOUZ0qNRdAUFBcZsGHdtwaAJQlt7AcSt7IQVjW7AG1kqFjZEAUkn7ns/iNGPUDIO77LBANchSGbSmma+L1tRsnN9V0hDQY8QMytGQ=';

/** The test IdP's private key (made for these tests only, with openssl; it signs nothing anywhere else). */
export const idpPrivateKey = `-----BEGIN PRIVATE KEY-----
MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCtqPjRdHxowRaF
C1MIduAVET0V568polDE8KfD7vYugfuR2BBQUVeMTL0gFjs38clImi92Exlnyk6q
VrMiJDKW2lPfbq/nB2cBF4Ho+ngtyBwdJZFV1s4uHKArX1wQdkePQhcat4sfCIwe
DmjKO3oxTTRUnQH4R6D7RNmWck6WdwuaOoCRWhUAaXEAEx6MjcUW988VtWFurB++
416XPED1a4JCH1m9D/p6ltO1svbbOVtb753o1miBnugmqWlcoRWgpSqA9RV9fWzn
b3/kE8zwmdWJxpTk+ImTVvQ27RiFmdOD7C5nymqtMeVllj7rw9bdMmy01ceBCmKp
wG5cU8t5AgMBAAECggEACWGyA3rEB9K6mThp5XCqnWi/gJHyJBEpROJtZcfgk9Wg
1hmyk+w5CxLQOs4Ip/aPdbUisEHK4xEKW+hwJ/2FoCGuW0k7BoOfXG89LO1vFaYU
Yry3U8hVfic8vesaaadCKWqcHezhfq0zCKKlpZs9+DDgDVwoEZYpC7oF+Ts2pKk1
9mdIKSc9XX/E6deAma8E3E0Ph1tthwWAiDH8UDDwRbwdr7SsHzi3gQR05GWVM1em
9CHOlJiLbFXvalUCyNqmttvkyJ5G+dprC8y8R7svq53tqo4KosC5bAgNlPfFV91I
pWPZE2ggYQZLAyF0rGXl1kLuOZ7s+UBEOcZFunrtwQKBgQDU0y2ZmQC7f3kz2usF
2efakIS9d9lPsz3FKKJrVCaeNhrFGfNsEg7gIy0JC0Gw7/k1XY0cQaus8hknOtXu
hwUydV5lwTxX6HAtM98sDV+1UWoI8ZA5UiHe7drP0SFHW9evxvJxNHbLgYIVCMIg
742ggfHxes9AHKMv48c4iZJyCQKBgQDQ48+CeB8IiiXS9JvvZccsez9rGfnwp96/
+2ilTZ99dgFHtVwPg9N2HgFHldZHHg5qoLq9o1NeCo/JN5J31+1oWzUm1NSk2BZU
nkkQYSLWFyvyTa+QsoTNqQec0nJjUfzQt9ec7vuRfm3Ccv4kJEzmRA7z3aS6WvMm
C2M1/Fsp8QKBgBpkQbBdb+DQcvhCOojUN9M7vqo8NX+Tq6JKYrHKkqtl7DXq/Ou2
5Y9X7VrEwZWufInomvoZDq/4qbPasPLOXY+fTGBz8Qa5tUd1ukQdOHQkr3CCfC8P
h1G8zzicJ3NQ6VNL6X6uUdj0q2vuVRx+eGKiGp2mbBL4OihTJ75UGQv5AoGAIXOJ
5IvV9GkjG4A+hHzZA3+NLVqQkwBfBIF/RZGDq/S8yb36SyXCNFUjwVH2aZcfmeW5
YesIy7OHSSLUGssCYsbQYTKOBwPvt4dNjgjwKja1u+zC47oi2EhsRqnQ1aTohoga
SDBhKvCDJTODDUie4/UcK+NfoNQ1we7q6VdLRhECgYEAuM6Ksq7w/RC+rElkWEto
Ij3yRfbTOwlHXBSwHLhtio/Dx+lOScTj51pgw6hNz31W9co5qXKAFr6Mj9BoA/sp
2RfR0ApdEZlNoA+4BLebuWj2aKxCrh3NieUd7V7R3/7bVVea1dxx6VvZbsALlM67
Qab6iCosE/zExTAKAoH0XE8=
-----END PRIVATE KEY-----`;

/** SAML 2.0 metadata of a test identity provider, as Okta or Entra ID export it. */
export function idpMetadata(options: { entityId?: string; ssoUrl?: string; certificate?: string } = {}): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${options.entityId ?? 'http://www.okta.com/exk1test'}">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${options.certificate ?? idpCertificate}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>
    </md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${options.ssoUrl ?? 'https://acme.okta.com/app/plm/exk1test/sso/saml'}"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${options.ssoUrl ?? 'https://acme.okta.com/app/plm/exk1test/sso/saml'}"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
}

/** What an IdP reads from the AuthnRequest of an HTTP-Redirect binding URL. */
export interface AuthnRequest {
  id: string;
  issuer: string;
  acsUrl: string;
  relayState: string;
}

const requestParser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', removeNSPrefix: true });

export function readAuthnRequest(redirectUrl: string): AuthnRequest {
  const url = new URL(redirectUrl);
  const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
  const request = (requestParser.parse(xml) as { AuthnRequest: Record<string, unknown> }).AuthnRequest;
  const issuer = request.Issuer;
  return {
    id: String(request['@ID']),
    issuer: typeof issuer === 'string' ? issuer : String((issuer as { '#text': string })['#text']),
    acsUrl: String(request['@AssertionConsumerServiceURL']),
    relayState: url.searchParams.get('RelayState') ?? '',
  };
}

const escapeXml = (value: string) => value.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/**
 * A SAMLResponse (base64) answering `request`, its assertion signed with xml-crypto (RSA-SHA256, exclusive
 * C14N) by `privateKey` (the test IdP's own unless another is given), as Okta sends it.
 */
export function samlResponse(request: AuthnRequest, email: string, options: { privateKey?: string; entityId?: string; audience?: string } = {}): string {
  const now = new Date();
  const later = new Date(now.getTime() + 5 * 60 * 1000);
  const issuer = escapeXml(options.entityId ?? 'http://www.okta.com/exk1test');
  const assertionId = `_${randomUUID()}`;
  const xml = `<saml2p:Response xmlns:saml2p="urn:oasis:names:tc:SAML:2.0:protocol" ID="_${randomUUID()}" Version="2.0" IssueInstant="${now.toISOString()}" Destination="${escapeXml(request.acsUrl)}" InResponseTo="${escapeXml(request.id)}"><saml2:Issuer xmlns:saml2="urn:oasis:names:tc:SAML:2.0:assertion">${issuer}</saml2:Issuer><saml2p:Status><saml2p:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></saml2p:Status><saml2:Assertion xmlns:saml2="urn:oasis:names:tc:SAML:2.0:assertion" ID="${assertionId}" Version="2.0" IssueInstant="${now.toISOString()}"><saml2:Issuer>${issuer}</saml2:Issuer><saml2:Subject><saml2:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${escapeXml(email)}</saml2:NameID><saml2:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml2:SubjectConfirmationData InResponseTo="${escapeXml(request.id)}" NotOnOrAfter="${later.toISOString()}" Recipient="${escapeXml(request.acsUrl)}"/></saml2:SubjectConfirmation></saml2:Subject><saml2:Conditions NotBefore="${new Date(now.getTime() - 60_000).toISOString()}" NotOnOrAfter="${later.toISOString()}"><saml2:AudienceRestriction><saml2:Audience>${escapeXml(options.audience ?? request.issuer)}</saml2:Audience></saml2:AudienceRestriction></saml2:Conditions><saml2:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="${assertionId}"><saml2:AuthnContext><saml2:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml2:AuthnContextClassRef></saml2:AuthnContext></saml2:AuthnStatement><saml2:AttributeStatement><saml2:Attribute Name="http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"><saml2:AttributeValue>${escapeXml(email)}</saml2:AttributeValue></saml2:Attribute></saml2:AttributeStatement></saml2:Assertion></saml2p:Response>`;
  const signature = new SignedXml({
    privateKey: options.privateKey ?? idpPrivateKey,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  signature.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  signature.computeSignature(xml, { location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' } });
  return Buffer.from(signature.getSignedXml()).toString('base64');
}
