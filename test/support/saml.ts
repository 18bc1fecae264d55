/** Test fixtures of a SAML identity provider (no stack needed). */

/** A self-signed signing certificate (CN=idp.acme.test, valid until 2126) for test IdP metadata. */
export const idpCertificate =
  'MIIDEzCCAfugAwIBAgIUPhpUZ8nqmklkpUtnXv33SautViYwDQYJKoZIhvcNAQELBQAwGDEWMBQGA1UEAwwNaWRwLmFjbWUudGVzdDAgFw0yNjExMjMxMjE2MzdaGA8yMTI2MTAzMDEyMTYzN1owGDEWMBQGA1UEAwwNaWRwLmFjbWUudGVzdDCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAPTMBcm0unHY3jtlNrlaqkLdRmxkKGurjPLwJY5jamSn99E15lQUBOHn+Xq5qmpHNL3lxqATTKYz3J1MkywIkaf7GkpKDSZKUr9pnxhkqDrn2gdI2ma4IJHo1GDfHpkjarranTKEzDwkrxymnR5Rrlm3TuS1VXsa+15RHGHnuGum0EvykE/PYDzx1g+u1ZvxDYHmSX8ETncsoYyFipg07dQY0Zuv5QYb7m4JEZTenNbA4p9Rddp+BZJzGPQVnSYhz/aiATdcXCNln+amFGZkgtIg8gxs2LJZFF+OEspAx6lPk/31egGgkxinorjea3BD4LVVHtrKNwM1Jn3QAKj2zZECAwEAAaNTMFEwHQYDVR0OBBYEFBFLlZmoJkltC+LuycymdEwUyv6pMB8GA1UdIwQYMBaAFBFLlZmoJkltC+LuycymdEwUyv6pMA8GA1UdEwEB/wQFMAMBAf8wDQYJKoZIhvcNAQELBQADggEBAFo3qPJvHixuP6qtuVtmsjCgKMQDe8RxZLJlu37lRuXvusy7Nbwv+ylJ51f0an79+/ZnW68ktF/y4qe+ZJmboOiXS614UiwdvW0JdHKLBewfWS0CIKIyZqh/kap4leWzPaMGDxestXMqbRBKpcEJptG6o11wwNG3w8p252t6spyP8DMJ1M9t2r5KILLIQT0yY7weheq6Cb/WGwMSOBhxTG+Z9xY9qIfjEX+LXaIbm6w23uvKsQomD/daLRhDbFPijVTDDecz1OFWRBH87NJB9pVltU+MjTrxfjGm9bPjt7FtMexy6MDAubOJ8JGVqVAqglYWS6QeFOXbA0UURZ49i9Q=';

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
