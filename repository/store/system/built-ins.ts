/**
 * What the service ships in its configuration: built-in system properties and the XML schemas,
 * documents and transforms every store starts with. Migration 10 installs them; `/api/admin/notify-updates`
 * puts back any that were deleted (what the real service's "update documents when upgrading" does), so
 * a built-in added in a later release reaches old stores the same way.
 */

export interface BuiltInProperty {
  name: string;
  value: string;
  description: string;
}

export const BUILT_IN_PROPERTIES: readonly BuiltInProperty[] = [
  { name: "system.name", value: "Preservation Repository (local)", description: "Name shown to users" },
  { name: "system.timezone", value: "UTC", description: "Time zone of dates shown to users" },
  {
    name: "ingest.max.file.size.mb",
    value: "4096",
    description: "Largest single file an ingest accepts, in MiB",
  },
  {
    name: "search.results.max",
    value: "1000",
    description: "Largest page of search results the Content API returns",
  },
  {
    name: "email.from",
    value: "noreply@example.org",
    description: "Sender address of e-mails the service sends",
  },
];

export type XmlKind = "schema" | "document" | "transform";

export interface BuiltInXml {
  apiId: string;
  kind: XmlKind;
  name: string;
  description: string | null;
  originalName: string | null;
  documentType: string | null;
  schemaUri: string | null;
  fromUri: string | null;
  toUri: string | null;
  purpose: string | null;
  content: string;
}

export const OAI_DC_URI = "http://www.openarchives.org/OAI/2.0/oai_dc/";
export const CMIS_URI = "http://www.tessella.com/sdb/cmis/metadata";

const DC_SCHEMA = `<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:dc="http://purl.org/dc/elements/1.1/"
  targetNamespace="${OAI_DC_URI}" elementFormDefault="qualified" attributeFormDefault="unqualified">
  <xs:import namespace="http://purl.org/dc/elements/1.1/" schemaLocation="http://dublincore.org/schemas/xmls/simpledc20021212.xsd"/>
  <xs:element name="dc" type="oai_dc:oai_dcType" xmlns:oai_dc="${OAI_DC_URI}"/>
  <xs:complexType name="oai_dcType">
    <xs:choice minOccurs="0" maxOccurs="unbounded">
      <xs:element ref="dc:title"/>
      <xs:element ref="dc:creator"/>
      <xs:element ref="dc:subject"/>
      <xs:element ref="dc:description"/>
      <xs:element ref="dc:publisher"/>
      <xs:element ref="dc:contributor"/>
      <xs:element ref="dc:date"/>
      <xs:element ref="dc:type"/>
      <xs:element ref="dc:format"/>
      <xs:element ref="dc:identifier"/>
      <xs:element ref="dc:source"/>
      <xs:element ref="dc:language"/>
      <xs:element ref="dc:relation"/>
      <xs:element ref="dc:coverage"/>
      <xs:element ref="dc:rights"/>
    </xs:choice>
  </xs:complexType>
</xs:schema>
`;

const DC_TEMPLATE = `<?xml version="1.0" encoding="UTF-8"?>
<oai_dc:dc xmlns:oai_dc="${OAI_DC_URI}" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <dc:title/>
  <dc:creator/>
  <dc:subject/>
  <dc:description/>
  <dc:date/>
  <dc:rights/>
</oai_dc:dc>
`;

const DC_TO_CMIS = `<?xml version="1.0" encoding="UTF-8"?>
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
  xmlns:oai_dc="${OAI_DC_URI}" xmlns:dc="http://purl.org/dc/elements/1.1/"
  xmlns:cmis="${CMIS_URI}">
  <xsl:template match="oai_dc:dc">
    <cmis:group>
      <cmis:title>Dublin Core Metadata</cmis:title>
      <xsl:for-each select="dc:*">
        <cmis:item>
          <cmis:name><xsl:value-of select="local-name()"/></cmis:name>
          <cmis:value><xsl:value-of select="."/></cmis:value>
          <cmis:type>string</cmis:type>
        </cmis:item>
      </xsl:for-each>
    </cmis:group>
  </xsl:template>
</xsl:stylesheet>
`;

export const BUILT_IN_XML: readonly BuiltInXml[] = [
  {
    apiId: "5d3f0c1e8a9b4c7d9e2f1a0b3c4d5e61",
    kind: "schema",
    name: "Dublin Core",
    description: "Simple Dublin Core as OAI-PMH publishes it",
    originalName: "oai_dc.xsd",
    documentType: null,
    schemaUri: OAI_DC_URI,
    fromUri: null,
    toUri: null,
    purpose: null,
    content: DC_SCHEMA,
  },
  {
    apiId: "6e4a1d2f9b0c4d8e8f3a2b1c4d5e6f72",
    kind: "document",
    name: "Dublin Core template",
    description: null,
    originalName: null,
    documentType: "MetadataTemplate",
    schemaUri: OAI_DC_URI,
    fromUri: null,
    toUri: null,
    purpose: null,
    content: DC_TEMPLATE,
  },
  {
    apiId: "7f5b2e3a0c1d4e9f9a4b3c2d5e6f7a83",
    kind: "transform",
    name: "Dublin Core to CMIS",
    description: null,
    originalName: "dc-cmis.xslt",
    documentType: null,
    schemaUri: null,
    fromUri: OAI_DC_URI,
    toUri: CMIS_URI,
    purpose: "cmis",
    content: DC_TO_CMIS,
  },
];
