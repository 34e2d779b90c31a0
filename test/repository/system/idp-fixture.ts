/** A self-signed certificate (CN=idp.example.org, RSA 1024, made for these tests) as SAML metadata carries it. */
export const IDP_CERT = `
MIICEDCCAXmgAwIBAgIUAgVjWnsy6ozCgzkx9avILl0ModswDQYJKoZIhvcNAQELBQAwGjEYMBYG
A1UEAwwPaWRwLmV4YW1wbGUub3JnMB4XDTI2MTEyMzAxNDIwOFoXDTM2MTEyMDAxNDIwOFowGjEY
MBYGA1UEAwwPaWRwLmV4YW1wbGUub3JnMIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQCrw3vr
s5iIxne2ybXkMmBl6yYptjdZ4dHvj6+aRjopI5kvP39pOEUqU7yfP7rxQrO+rCmIiQe8Nf5xSV0e
UKZOgtRWEu7kGtNqHFgP+AC+L7cj5vZ+xWkl+aIHXbsqZ7yy6CGHXSlPM3kmdWqADgne765bZmBj
sucNhDd3ewoNEwIDAQABo1MwUTAdBgNVHQ4EFgQUxpDuKPYzIZRSPIyH+QDZjT1Wg7gwHwYDVR0j
BBgwFoAUxpDuKPYzIZRSPIyH+QDZjT1Wg7gwDwYDVR0TAQH/BAUwAwEB/zANBgkqhkiG9w0BAQsF
AAOBgQBZG+nxbNOIc+c/+l7PRpmuT05S1h7QMApdG/oo6Vsir6z9+1OQN9A3jwWIHxcyBcaSZST8
OrJBTHsmW3D79gpu3Iq+0ZmjGO5jSpxwi0W6MQM6UPh8/ewYvOAvFyXodzgetAdtZdtbBEzgVa03
vnAhlOZL4iMfUczHZ9Y/5sOI0Q==
`;
export const IDP_CERT_SHA256 =
  "71:B0:EA:9B:85:06:0A:30:19:4E:5A:28:56:EE:99:9B:D0:B0:94:B6:B5:C0:3B:50:02:78:13:59:56:52:97:F1";

export const MD_NS = "urn:oasis:names:tc:SAML:2.0:metadata";

/** An identity provider's SAML 2.0 metadata document. */
export const IDP_METADATA = `<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="${MD_NS}" xmlns:ds="http://www.w3.org/2000/09/xmldsig#"
    entityID="https://idp.example.org/saml" validUntil="2030-01-01T00:00:00Z">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo><ds:X509Data><ds:X509Certificate>${IDP_CERT}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>
    </md:KeyDescriptor>
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.org/slo"/>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.org/sso"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://idp.example.org/sso/post"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>
`;
