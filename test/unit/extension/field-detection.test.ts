import { describe, expect, it } from 'vitest';
import { completePostcode } from '../../../extension/common/postcode';
import { isPostcodeField, mentionsPostcode } from '../../../extension/page/field-detection';
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
