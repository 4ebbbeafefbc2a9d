import { describe, expect, it } from 'vitest';
import { completePostcode } from '../../../extension/common/postcode';
import { isPostcodeField } from '../../../extension/page/field-detection';
import { LabelIndex } from '../../../extension/page/field-markup';
import { labelNamesPostcode, mentionsPostcode, namesStateAndPostcode } from '../../../extension/page/label-words';
import { dom } from './fixtures';

/** Each markup has exactly one input marked `data-target`; the test says whether it is a postcode field. */
const POSTCODE_FIELDS: [string, string][] = [
  ['label for=id', '<label for="pc">Postcode</label><input id="pc" data-target>'],
  [
    'label for=id, "Post code:" with a required star',
    '<label for="f7">Post code: <span class="req">*</span></label><input type="text" id="f7" data-target>',
  ],
  ['wrapping label', '<label>Postcode <input type="text" name="field_12" data-target></label>'],
  [
    'wrapping label around a nested span',
    '<label><span class="caption">Postal code</span><span><input data-target></span></label>',
  ],
  ['name with brackets (Rails/PHP)', '<input type="text" name="patient[address][postcode]" data-target>'],
  [
    'ASP.NET WebForms id',
    '<input name="ctl00$MainContent$txtPostCode" id="ctl00_MainContent_txtPostCode" type="text" data-target>',
  ],
  ['snake_case name', '<input name="post_code" data-target>'],
  ['camelCase id', '<input id="patientPostcode" data-target>'],
  ['placeholder only', '<input type="text" placeholder="Postcode" data-target>'],
  ['placeholder with example', '<input placeholder="Post code, e.g. 4000" data-target>'],
  ['aria-label', '<input aria-label="Residential postcode" data-target>'],
  ['aria-labelledby', '<span id="lbl-pc">Postcode</span><input aria-labelledby="lbl-pc" data-target>'],
  [
    'aria-labelledby with two ids',
    '<span id="sec">Residential address</span><span id="pcl">Post code</span><input aria-labelledby="sec pcl" data-target>',
  ],
  ['autocomplete="postal-code"', '<input name="f1" autocomplete="postal-code" data-target>'],
  [
    'autocomplete with section and hint',
    '<input name="f1" autocomplete="section-patient shipping postal-code" data-target>',
  ],
  ['type=tel', '<input type="tel" name="postcode" data-target>'],
  ['type=number', '<input type="number" name="postcode" data-target>'],
  ['type=search', '<input type="search" placeholder="Search by postcode" data-target>'],
  ['zip (generic frameworks)', '<input name="zip" data-target>'],
  ['zipCode camelCase', '<input id="billingZipCode" data-target>'],
  ['legacy PCode abbreviation', '<input name="PCode" data-target>'],
  ['title attribute', '<input name="t2" title="Postcode" data-target>'],
  ['table layout caption cell', '<table><tr><td>Postcode:</td><td><input name="f12" data-target></td></tr></table>'],
  ['caption span before the input', '<div><span>Post code</span> <input name="f3" data-target></div>'],
  ['upper-case label', '<label for="x">POSTCODE</label><input id="x" data-target>'],
  ['label with an id containing quotes', '<label for="a&quot;b">Postcode</label><input id="a&quot;b" data-target>'],
  // Abbreviations a practice system's narrow label column uses.
  ['"P/code"', '<label for="p1">P/code</label><input id="p1" data-target>'],
  ['"P\'code"', '<label for="p2">P\'code:</label><input id="p2" data-target>'],
  ['"P’code" (typographic apostrophe)', '<label for="p3">P’code</label><input id="p3" data-target>'],
  ['"PC" as the whole label', '<label for="p4">PC</label><input id="p4" data-target>'],
  ['"PC:" with a required star', '<label for="p5">PC: <span>*</span></label><input id="p5" data-target>'],
  ['"PC" caption cell', '<table><tr><td>PC</td><td><input name="f5" data-target></td></tr></table>'],
  ['"PC" wrapping label', '<label>PC <input name="f6" data-target></label>'],
  ['"PC" aria-label', '<input name="f7" aria-label="PC" data-target>'],
  ['"P/code" placeholder', '<input name="f8" placeholder="P/code" data-target>'],
  // It does hold a postcode (of the clinic, not the patient): the badge tells the clinician about that one.
  ['"Postcode of GP clinic"', '<label for="gp">Postcode of GP clinic</label><input id="gp" data-target>'],
  // A label shared by the state and the postcode goes to the postcode's input.
  [
    '"State / Postcode" over a select and an input',
    '<div><label for="st">State / Postcode</label><select id="st"><option>NSW</option></select> <input name="f9" maxlength="4" data-target></div>',
  ],
  [
    '"State/P\'code" caption cell over a select and an input',
    '<table><tr><td>State/P\'code</td><td><select name="s"><option>NSW</option></select><input name="f10" data-target></td></tr></table>',
  ],
  [
    '"State/Postcode" caption cell, select and input in cells of their own',
    '<table><tr><td>State/Postcode</td><td><select name="s"><option>NSW</option></select></td><td><input name="f11" data-target></td></tr></table>',
  ],
  [
    '"State / Postcode" wrapping a select and an input',
    '<label>State / Postcode <select name="s"><option>QLD</option></select><input name="f12" data-target></label>',
  ],
  [
    '"State / Postcode" over two text inputs: the 4-digit one',
    '<div><label for="st2">State / Postcode</label><input id="st2" name="st2" maxlength="3"><input name="f13" maxlength="4" data-target></div>',
  ],
  [
    '"State / Postcode" for the postcode input itself',
    '<div><label for="p14">State / Postcode</label><select name="s"><option>QLD</option></select><input id="p14" data-target></div>',
  ],
  [
    '"State/PC" over a select and an input',
    '<div><span>State/PC</span> <select name="s"></select><input name="f15" size="4" data-target></div>',
  ],
];

const NOT_POSTCODE_FIELDS: [string, string][] = [
  ['phone', '<label for="ph">Phone</label><input id="ph" type="tel" data-target>'],
  ['suburb', '<label for="sb">Suburb</label><input id="sb" data-target>'],
  ['postal address (no "code")', '<label for="pa">Postal address</label><input id="pa" data-target>'],
  ['hidden postcode', '<input type="hidden" name="postcode" value="4000" data-target>'],
  ['password named postcode', '<input type="password" name="postcode" data-target>'],
  ['checkbox', '<label><input type="checkbox" name="confirmed" data-target> Postcode confirmed</label>'],
  ['email', '<input type="email" name="email" placeholder="Email" data-target>'],
  ['date named postDate', '<input type="date" name="postDate" data-target>'],
  ['file input "zip"', '<input type="file" name="zip" data-target>'],
  ['"unzip" is not zip', '<input name="unzipped" data-target>'],
  ['Medicare number', '<label for="mc">Medicare number</label><input id="mc" data-target>'],
  ['textarea is not an input', '<textarea name="postcode" data-target></textarea>'],
  ['select is not a text input', '<select name="postcode" data-target><option>4000</option></select>'],
  [
    'neighbouring caption cell belongs to another field',
    '<table><tr><td>Postcode</td><td><input name="pc"></td><td>Phone</td><td><input name="ph" data-target></td></tr></table>',
  ],
  [
    'labelled field ignores nearby caption',
    '<span>Postcode</span><label for="s">State</label><input id="s" data-target>',
  ],
  // Fields a clinician's form has next to the address, and labels that only look like "PC".
  ['"Phone"', '<label for="x1">Phone</label><input id="x1" type="tel" maxlength="10" data-target>'],
  ['"PIN"', '<label for="x2">PIN</label><input id="x2" inputmode="numeric" maxlength="4" data-target>'],
  ['"Year"', '<label for="x3">Year</label><input id="x3" type="number" data-target>'],
  ['"Amount ($)"', '<label for="x4">Amount ($)</label><input id="x4" type="number" data-target>'],
  ['"Medicare No."', '<label for="x5">Medicare No.</label><input id="x5" data-target>'],
  ['"IRN"', '<label for="x6">IRN</label><input id="x6" maxlength="1" data-target>'],
  ['"DOB"', '<label for="x7">DOB</label><input id="x7" placeholder="DD/MM/YYYY" data-target>'],
  ['"Provider number"', '<label for="x8">Provider number</label><input id="x8" data-target>'],
  ['"PC Name" (a computer)', '<label for="x9">PC Name</label><input id="x9" data-target>'],
  [
    '"PC Smith" caption (a constable)',
    '<table><tr><td>PC Smith</td><td><input name="x10" data-target></td></tr></table>',
  ],
  ['"PCP" (primary care physician)', '<label for="x11">PCP</label><input id="x11" data-target>'],
  ['"PCR result"', '<label for="x12">PCR result</label><input id="x12" data-target>'],
  ['"PC" inside a sentence', '<label for="x13">Booked from a PC at reception</label><input id="x13" data-target>'],
  ['name "pc" with no label', '<input name="pc" data-target>'],
  ['"Post-op day"', '<label for="x14">Post-op day</label><input id="x14" data-target>'],
  ['"PC" on a checkbox', '<label for="x15">PC</label><input id="x15" type="checkbox" data-target>'],
  // The other control of a shared "State / Postcode" label, and the fields after the pair.
  [
    'the state input under "State / Postcode"',
    '<div><label for="st3">State / Postcode</label><input id="st3" maxlength="3" data-target><input name="pc3" maxlength="4"></div>',
  ],
  [
    'the state input inside a wrapping "State / Postcode"',
    '<label>State / Postcode <input name="st4" maxlength="3" data-target><input name="pc4" maxlength="4"></label>',
  ],
  [
    'a labelled phone after the "State / Postcode" pair',
    '<div><label for="st5">State / Postcode</label><select id="st5"></select><input name="pc5"><label for="ph5">Phone</label><input id="ph5" data-target></div>',
  ],
  [
    'an unlabelled input after a select labelled "State" only',
    '<div><label for="st6">State</label><select id="st6"></select><input name="f16" data-target></div>',
  ],
  [
    'long paragraph before the input is not a caption',
    `<p>${'Please enter the patient postcode and other details in the fields below. '.repeat(2)}</p><input name="q" data-target>`,
  ],
];

function target(markup: string): Element {
  const { document } = dom(`<form>${markup}</form>`);
  const el = document.querySelector('[data-target]');
  if (!el) throw new Error(`no data-target in ${markup}`);
  return el;
}

describe('isPostcodeField', () => {
  it.each(POSTCODE_FIELDS)('finds a postcode field: %s', (_name, markup) => {
    expect(isPostcodeField(target(markup))).toBe(true);
  });

  it.each(NOT_POSTCODE_FIELDS)('ignores: %s', (_name, markup) => {
    expect(isPostcodeField(target(markup))).toBe(false);
  });
});

describe('mentionsPostcode', () => {
  it.each(['Postcode', 'post code', 'Post-Code', 'postal_code', 'txtPostCode', 'ZIP', 'zip_code', 'Zip/Postal code'])(
    '%s',
    (text) => {
      expect(mentionsPostcode(text)).toBe(true);
    },
  );
  it.each(['', 'Post', 'Postal address', 'Zipper', 'unzip', 'postdate', 'pc', 'Code'])('not %s', (text) => {
    expect(mentionsPostcode(text)).toBe(false);
  });
  it.each(['P/code', "P'code", 'P’code', 'p/code:', 'State/P.code'])('abbreviated: %s', (text) => {
    expect(mentionsPostcode(text)).toBe(true);
  });
  it.each(['P/N', 'Promo code', 'Code P', 'Apcode'])('not abbreviated: %s', (text) => {
    expect(mentionsPostcode(text)).toBe(false);
  });
});

describe('labelNamesPostcode', () => {
  it.each(['PC', 'PC:', ' PC * ', 'P.C.', 'Postcode', 'P/code'])('%s', (text) => {
    expect(labelNamesPostcode(text)).toBe(true);
  });
  it.each(['pc', 'PC Name', 'PC Smith', 'PCP', 'PCR', 'APC', 'PC/Laptop', 'Phone', 'PIN', 'Medicare No.', 'Year'])(
    'not %s',
    (text) => {
      expect(labelNamesPostcode(text)).toBe(false);
    },
  );
});

describe('namesStateAndPostcode', () => {
  it.each([
    'State / Postcode',
    "State/P'code",
    'State & Postcode',
    'State/PC',
    'Postcode/State',
    'State or territory, postcode',
  ])('%s', (text) => {
    expect(namesStateAndPostcode(text)).toBe(true);
  });
  it.each(['State', 'Postcode', 'Statement PC', 'Estate postcode', 'State PC Smith'])('not %s', (text) => {
    expect(namesStateAndPostcode(text)).toBe(false);
  });
});

describe('isPostcodeField in open shadow roots', () => {
  function inShadow(shadowHtml: string, hostAttributes = '') {
    const { document } = dom(`<form><x-field id="host" ${hostAttributes}></x-field></form>`);
    const host = document.getElementById('host')!;
    const shadow = host.attachShadow({ mode: 'open' });
    shadow.innerHTML = shadowHtml;
    return { document, input: shadow.querySelector('[data-target]')! };
  }

  it('a label inside the shadow root, by its `for`', () => {
    const { document, input } = inShadow('<label for="pc">Postcode</label><input id="pc" data-target>');
    expect(isPostcodeField(input, new LabelIndex(document))).toBe(true);
  });

  it('aria-labelledby inside the shadow root', () => {
    const { input } = inShadow('<span id="l">P/code</span><input aria-labelledby="l" data-target>');
    expect(isPostcodeField(input)).toBe(true);
  });

  it('a label of the document does not reach into a shadow root with the same id', () => {
    const { document } = dom('<label for="pc">Postcode</label><x-field id="host"></x-field>');
    const shadow = document.getElementById('host')!.attachShadow({ mode: 'open' });
    shadow.innerHTML = '<input id="pc">';
    expect(isPostcodeField(shadow.querySelector('input')!, new LabelIndex(document))).toBe(false);
  });

  it("the component's own name or label speaks for its only input", () => {
    expect(isPostcodeField(inShadow('<input data-target>', 'name="postcode"').input)).toBe(true);
    expect(isPostcodeField(inShadow('<input data-target>', 'label="P/code"').input)).toBe(true);
    expect(isPostcodeField(inShadow('<input data-target>', 'label="Phone"').input)).toBe(false);
    // Not for a component of several inputs: which one is the postcode is not said.
    expect(isPostcodeField(inShadow('<input data-target><input>', 'name="postcode"').input)).toBe(false);
  });
});

describe('completePostcode', () => {
  it('accepts exactly four ASCII digits, trimmed', () => {
    expect(completePostcode('4000')).toBe('4000');
    expect(completePostcode(' 2480 ')).toBe('2480');
    expect(completePostcode('0200')).toBe('0200');
  });
  it('waits for a complete value', () => {
    for (const value of ['', '4', '40', '400', '40000', '4 000', 'abcd', '４０００', '40a0']) {
      expect(completePostcode(value)).toBeNull();
    }
  });
});
