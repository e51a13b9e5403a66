import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { checkLogo } from './logo.ts';

const SVG = 'xmlns="http://www.w3.org/2000/svg"';
const check = (svg: string) => () => checkLogo(Buffer.from(svg), 'image/svg+xml');

/** The answer a bad logo gets: a 400 validation error that says what the SVG holds. */
function refusal(svg: string): AppError {
  try {
    check(svg)();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error(`accepted: ${svg}`);
}

describe('checkLogo: SVG', () => {
  it('accepts a plain drawing: shapes, gradients, #fragment references, text, a title, an XML declaration', () => {
    for (const svg of [
      `<svg ${SVG} viewBox="0 0 10 10"><defs><linearGradient id="g"/></defs><rect width="10" height="10" fill="url(#g)"/></svg>`,
      `<?xml version="1.0" encoding="UTF-8"?><svg ${SVG} xmlns:xlink="http://www.w3.org/1999/xlink"><defs><path id="p" d="M0 0h5"/></defs><use xlink:href="#p"/><text>Acme &amp; Co</text></svg>`,
      `<svg ${SVG}><title>Acme online</title><animate attributeName="opacity" from="0" to="1" dur="1s"/><set attributeName="fill" to="red"/></svg>`,
      `<svg ${SVG}><style>.a{fill:#123}</style><rect class="a" width="1" height="1"/></svg>`,
      // As Inkscape saves one: its own namespaces, metadata, a comment.
      `<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<!-- Created with Inkscape (http://www.inkscape.org/) -->\n<svg ${SVG} xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dc="http://purl.org/dc/elements/1.1/" sodipodi:docname="logo.svg" inkscape:version="1.3"><metadata><rdf:RDF><dc:type rdf:resource="http://purl.org/dc/dcmitype/StillImage"/></rdf:RDF></metadata><g inkscape:label="Layer 1" inkscape:groupmode="layer"><path style="fill:#0a5;stroke:none" d="M 0,0 H 10 V 10 Z"/></g></svg>`,
    ]) {
      expect(check(svg), svg).not.toThrow();
    }
  });

  it('refuses a script in another namespace (XHTML), and any XHTML content, with the 400 of other bad logos', () => {
    for (const svg of [
      `<svg ${SVG}><html:script xmlns:html="http://www.w3.org/1999/xhtml">alert(1)</html:script></svg>`,
      `<svg ${SVG} xmlns:h="http://www.w3.org/1999/xhtml"><h:script>alert(1)</h:script></svg>`,
      `<svg ${SVG}><g xmlns="http://www.w3.org/1999/xhtml"><img src="x"/></g></svg>`,
      `<svg ${SVG}><svg:script xmlns:svg="http://www.w3.org/2000/svg">alert(1)</svg:script></svg>`,
    ]) {
      const error = refusal(svg);
      expect(error.statusCode, svg).toBe(400);
      expect(error.code).toBe('validation_error');
      expect(error.message).toMatch(
        /^This SVG holds .*, which a logo may not: save it as a plain SVG or as PNG$/,
      );
    }
    expect(
      refusal(`<svg ${SVG}><html:script xmlns:html="http://www.w3.org/1999/xhtml"/></svg>`).message,
    ).toContain('a script');
  });

  it('refuses an animation that sets an event handler or a link, however it is written', () => {
    for (const svg of [
      `<svg ${SVG}><set attributeName="onload" to="alert(1)"/></svg>`,
      `<svg ${SVG}><animate attributeName="onclick" values="alert(1)"/></svg>`,
      `<svg ${SVG}><a><animate attributeName="href" values="javascript:alert(1)"/><rect/></a></svg>`,
      `<svg ${SVG}><a><animate attributeName = 'xlink:href' values="https://evil.test"/><rect/></a></svg>`,
      // A value with a ">" ends no tag: the attribute after it still counts.
      `<svg ${SVG}><a><set to="a>b" attributeName="href"/><rect/></a></svg>`,
      // Character references are read as the XML parser reads them.
      `<svg ${SVG}><a><set attributeName="&#104;ref" to="&#106;avascript:alert(1)"/><rect/></a></svg>`,
      `<svg ${SVG}><set attributeName="o&#x6E;load" to="alert(1)"/></svg>`,
      `<svg ${SVG}><svg:set xmlns:svg="http://www.w3.org/2000/svg" attributeName="onload" to="alert(1)"/></svg>`,
      `<svg ${SVG}><animateMotion attributeName="href"/></svg>`,
    ]) {
      const error = refusal(svg);
      expect(error.statusCode, svg).toBe(400);
    }
  });

  it('refuses embedded documents, javascript: links and entity declarations in their variants', () => {
    for (const svg of [
      `<svg ${SVG}><foreignObject><div>x</div></foreignObject></svg>`,
      `<svg ${SVG}><svg:foreignObject xmlns:svg="http://www.w3.org/2000/svg"/></svg>`,
      `<svg ${SVG}><FOREIGNOBJECT/></svg>`,
      `<svg ${SVG} xmlns:xlink="http://www.w3.org/1999/xlink"><a xlink:href="javascript:alert(1)"><rect/></a></svg>`,
      `<svg ${SVG} xmlns:l="http://www.w3.org/1999/xlink"><a l:href="java&#x0A;script:alert(1)"><rect/></a></svg>`,
      `<svg ${SVG}><a href="&#x6A;avascript&#x3A;alert(1)"><rect/></a></svg>`,
      `<svg ${SVG}><a href = "  javascript:alert(1)"><rect/></a></svg>`,
      `<svg ${SVG}><a href=javascript:alert(1)><rect/></a></svg>`,
      `<!DOCTYPE svg [<!ENTITY x "y">]><svg ${SVG}>&x;</svg>`,
      `<!doctype svg><svg ${SVG}/>`,
      `<svg ${SVG}><!ENTITY x SYSTEM "file:///etc/passwd"></svg>`,
      `<?xml-stylesheet type="text/xsl" href="#x"?><svg ${SVG}/>`,
      `<svg ${SVG}><rect style="fill:u&#114;l(https://tracker.test/p)"/></svg>`,
      `<svg ${SVG}/onload="alert(1)"></svg>`,
      `<svg ${SVG}><rect\nonclick="alert(1)"/></svg>`,
      `<svg ${SVG}><image src="https://tracker.test/p.png"/></svg>`,
    ]) {
      const error = refusal(svg);
      expect(error.statusCode, svg).toBe(400);
    }
  });
});
