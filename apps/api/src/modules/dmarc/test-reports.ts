/* DMARC aggregate reports as real reporters write them, for the tests. */

/** A report as Google sends it: no namespace, lower-case results, zipped. */
export const GOOGLE_REPORT = `<?xml version="1.0" encoding="UTF-8" ?>
<feedback>
  <report_metadata>
    <org_name>google.com</org_name>
    <email>noreply-dmarc-support@google.com</email>
    <extra_contact_info>https://support.google.com/a/answer/2466580</extra_contact_info>
    <report_id>4312398455187346520</report_id>
    <date_range><begin>1764633600</begin><end>1764719999</end></date_range>
  </report_metadata>
  <policy_published>
    <domain>acme.test</domain><adkim>r</adkim><aspf>r</aspf><p>none</p><sp>none</sp><pct>100</pct><np>none</np>
  </policy_published>
  <record>
    <row>
      <source_ip>203.0.113.25</source_ip>
      <count>42</count>
      <policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>pass</spf></policy_evaluated>
    </row>
    <identifiers><header_from>acme.test</header_from></identifiers>
    <auth_results>
      <dkim><domain>acme.test</domain><result>pass</result><selector>s1</selector></dkim>
      <spf><domain>acme.test</domain><result>pass</result></spf>
    </auth_results>
  </record>
  <record>
    <row>
      <source_ip>2001:db8::7</source_ip>
      <count>3</count>
      <policy_evaluated>
        <disposition>none</disposition><dkim>fail</dkim><spf>fail</spf>
        <reason><type>forwarded</type><comment>looks forwarded</comment></reason>
      </policy_evaluated>
    </row>
    <identifiers><header_from>acme.test</header_from></identifiers>
    <auth_results>
      <dkim><domain>mailer.example</domain><result>pass</result><selector>k1</selector></dkim>
      <dkim><domain>acme.test</domain><result>fail</result><selector>s1</selector></dkim>
      <spf><domain>mailer.example</domain><result>softfail</result></spf>
    </auth_results>
  </record>
</feedback>`;

/** As Microsoft sends it: DMARCbis's namespace, upper-case results, empty fields, gzip. */
export const MICROSOFT_REPORT = `<?xml version="1.0"?>
<feedback xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="urn:ietf:params:xml:ns:dmarc-2.0">
  <version>1.0</version>
  <report_metadata>
    <org_name>Enterprise Outlook</org_name>
    <email>dmarcreport@microsoft.com</email>
    <report_id>ab12cd34ef56</report_id>
    <date_range><begin>1764633600</begin><end>1764720000</end></date_range>
  </report_metadata>
  <policy_published><domain>ACME.test</domain><adkim>s</adkim><aspf></aspf><p>quarantine</p><pct>100</pct><fo>0</fo></policy_published>
  <record>
    <row>
      <source_ip>198.51.100.9</source_ip><count>1</count>
      <policy_evaluated><disposition>Quarantine</disposition><dkim>FAIL</dkim><spf>Fail</spf></policy_evaluated>
    </row>
    <identifiers><envelope_to>outlook.com</envelope_to><envelope_from>Acme.Test</envelope_from><header_from>acme.test</header_from></identifiers>
    <auth_results><spf><domain>acme.test</domain><scope>mfrom</scope><result>FAIL</result></spf></auth_results>
  </record>
</feedback>`;
