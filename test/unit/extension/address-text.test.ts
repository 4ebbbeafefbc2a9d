import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  findAddressPostcodes,
  MAX_TEXT_POSTCODES,
  postcodesInText,
  scanAdded,
  TextPostcodeWatcher,
  type TextPostcode,
} from '../../../extension/page/address-text';
import { dom } from './fixtures';

/** The postcodes found in `body`, each with the text of its node around it (so a test sees where it was found). */
function found(body: string): string[] {
  const { document } = dom(body);
  return describeAll(findAddressPostcodes(document));
}

function describeAll(matches: readonly TextPostcode[]): string[] {
  return matches.map((m) => {
    expect(m.node.data.slice(m.start, m.end)).toBe(m.postcode);
    return `${m.postcode} ${m.kind}`;
  });
}

describe('findAddressPostcodes: addresses on show', () => {
  it('a patient banner: the postcode after the state, not the DOB, Medicare number or street number', () => {
    const banner =
      '<header class="banner">Jane CITIZEN · DOB 01/02/1960 · 12 Smith St, LISMORE NSW 2480 · Medicare 2123 45670 1</header>';
    expect(found(banner)).toEqual(['2480 address']);
    const { document } = dom(banner);
    const [match] = findAddressPostcodes(document.body);
    expect(match!.node.data.slice(0, match!.end)).toBe('Jane CITIZEN · DOB 01/02/1960 · 12 Smith St, LISMORE NSW 2480');
  });

  it.each([
    ['upper case', '<p>LISMORE NSW 2480</p>', '2480'],
    ['commas', '<p>Lismore, NSW, 2480</p>', '2480'],
    ['two spaces', '<p>Lismore NSW  2480</p>', '2480'],
    ['title-case state', '<p>South Brisbane Qld 4101</p>', '4101'],
    ['lower-case state', '<p>hobart tas 7000</p>', '7000'],
    ['then the country', '<p>Darwin NT 0800 Australia</p>', '0800'],
    ['ACT in 02xx', '<p>Canberra ACT 0200</p>', '0200'],
    ['Sydney 2000 after a place name', '<p>Level 3, 1 Martin Pl, SYDNEY NSW 2000</p>', '2000'],
    ['a line break after it', '<p>1 Main Rd\nMILDURA VIC 3500\nPh 03 5000 0000</p>', '3500'],
    [
      'state and postcode in elements of their own',
      '<p><span>LISMORE</span> <span>NSW</span> <span>2480</span></p>',
      '2480',
    ],
  ])('%s', (_name, body, postcode) => {
    expect(found(body)).toEqual([`${postcode} address`]);
  });

  it('a summary card: <dt>Postcode</dt><dd>2480</dd>, and other labels of the same list ignored', () => {
    expect(
      found(
        '<dl class="card"><dt>Name</dt><dd>Jane Citizen</dd><dt>DOB</dt><dd>1960</dd><dt>Phone</dt><dd>0266212480</dd>' +
          '<dt>Postcode</dt><dd>2480</dd><dt>Year</dt><dd>2024</dd></dl>',
      ),
    ).toEqual(['2480 labelled']);
  });

  it.each([
    ['a label cell', '<table><tr><td>Postcode:</td><td>2480</td></tr></table>'],
    ['a th label', '<table><tr><th scope="row">Post code</th><td><span>2480</span></td></tr></table>'],
    ['P/code', '<div><div class="k">P/code</div><div class="v">2480</div></div>'],
    ['bold label and colon', '<p><b>Postcode</b>: 2480</p>'],
    ['in one text', '<p>Postcode: 2480</p>'],
  ])('a labelled value: %s', (_name, body) => {
    expect(found(body)).toEqual(['2480 labelled']);
  });

  it('a table row: the postcode column, whether by its header or after the state cell', () => {
    const withHeader =
      '<table><thead><tr><th>Patient</th><th>Suburb</th><th>State</th><th>Postcode</th><th>Visits</th></tr></thead>' +
      '<tbody><tr><td>Jane Citizen</td><td>LISMORE</td><td>NSW</td><td>2480</td><td>2024</td></tr>' +
      '<tr><td>John Citizen</td><td>SYDNEY</td><td>NSW</td><td>2000</td><td>1960</td></tr></tbody></table>';
    expect(found(withHeader)).toEqual(['2480 labelled', '2000 labelled']);
    const withoutHeader = '<table><tr><td>Jane Citizen</td><td>LISMORE</td><td>NSW</td><td>2480</td></tr></table>';
    expect(found(withoutHeader)).toEqual(['2480 address']);
    const oneCell = '<table><tr><td>Jane Citizen</td><td>12 Smith St, LISMORE NSW 2480</td></tr></table>';
    expect(found(oneCell)).toEqual(['2480 address']);
  });

  it('every address of a list, up to the cap', () => {
    const rows = Array.from({ length: 80 }, (_, i) => `<li>${i} Main St, LISMORE NSW 2480</li>`).join('');
    expect(found(`<ul>${rows}</ul>`)).toHaveLength(MAX_TEXT_POSTCODES);
    const { document } = dom(`<ul>${rows}</ul>`);
    expect(findAddressPostcodes(document, { limit: 3 })).toHaveLength(3);
  });

  it('inside an open shadow root', () => {
    const { document } = dom('<patient-banner id="b"></patient-banner>');
    const shadow = document.getElementById('b')!.attachShadow({ mode: 'open' });
    shadow.innerHTML = '<span>12 Smith St, LISMORE NSW 2480</span>';
    const roots: ShadowRoot[] = [];
    expect(describeAll(findAddressPostcodes(document, { onShadowRoot: (r) => roots.push(r) }))).toEqual([
      '2480 address',
    ]);
    expect(roots).toEqual([shadow]);
  });
});

describe('findAddressPostcodes: numbers that are not an address postcode', () => {
  it.each([
    [
      'prose mentioning 2480 patients',
      '<p>Last year the clinic saw 2480 patients, up from 2024, and billed $2480 in telehealth gap fees.</p>',
    ],
    [
      'a long paragraph that mentions an address',
      `<p>${'The practice has moved several times over the years. '.repeat(3)}It is now at 12 Smith St, LISMORE NSW 2480 for good.</p>`,
    ],
    [
      'an address inside a long paragraph split by markup',
      `<p>${'The practice has moved several times over the years. '.repeat(9)}It is now at <b>LISMORE NSW 2480</b>.</p>`,
    ],
    ['an invoice number', '<p>Invoice 2480</p>'],
    ['an invoice number with a label', '<table><tr><td>Invoice</td><td>2480</td></tr></table>'],
    ['an amount', '<p>Total: $2480</p>'],
    ['an amount in a cell', '<table><tr><td>Amount ($)</td><td>2480</td></tr></table>'],
    ['a phone number', '<p>Ph 02 6621 2480</p>'],
    ['a phone number after a state', '<p>Lismore NSW Ph 02 6621 2480</p>'],
    ['a year', '<p>Updated 2024</p>'],
    ['a year after a state', '<p>Northern Rivers floods NSW 2022 recovery</p>'],
    ['a year after a state, at the end', '<p>floods in NSW 2022</p>'],
    ['an Act and its year', '<p>Health Insurance Act 1973 (Cth)</p>'],
    ['ACT with a year', '<p>ACT 2024</p>'],
    ['a state that does not fit the number', '<p>Perth WA 2480</p>'],
    ['a longer number', '<p>LISMORE NSW 24801</p>'],
    ['more digits after it', '<p>BRISBANE QLD 4000 1234</p>'],
    ['a word after it', '<p>NSW 2480 patients</p>'],
    ['a state inside a word', '<p>USA 2480, DSA 2480</p>'],
    ['out of the postcode ranges', '<table><tr><td>Postcode</td><td>0100</td></tr></table>'],
    ['a Medicare number', '<p>Medicare 2123 45670 1</p>'],
    ['a date', '<p>DOB 01/02/1960</p>'],
    ['a PIN', '<dl><dt>PIN</dt><dd>2480</dd></dl>'],
    ['a year column', '<table><tr><th>State</th><th>Year</th></tr><tr><td>NSW</td><td>2022</td></tr></table>'],
    [
      'a count column after a state',
      '<table><tr><th>State</th><th>Cases</th></tr><tr><td>NSW</td><td>2480</td></tr></table>',
    ],
    ['a year after a state cell, no header', '<table><tr><td>NSW</td><td>2022</td></tr></table>'],
    ['a value that is not alone', '<dl><dt>Postcode</dt><dd>2480 <a href="#">(map)</a> 2481</dd></dl>'],
    ['a label that is not just "Postcode"', '<dl><dt>Postcode of GP clinic</dt><dd>Lismore</dd></dl>'],
  ])('%s', (_name, body) => {
    expect(found(body)).toEqual([]);
  });

  it.each([
    ['a textarea', '<textarea>12 Smith St, LISMORE NSW 2480</textarea>'],
    ['a contenteditable', '<div contenteditable="true"><p>12 Smith St, LISMORE NSW 2480</p></div>'],
    ['a contenteditable (bare attribute)', '<div contenteditable><span>LISMORE NSW 2480</span></div>'],
    ['a role=textbox', '<div role="textbox"><span>LISMORE NSW 2480</span></div>'],
    ['an input value', '<input value="LISMORE NSW 2480">'],
    ['a select option', '<select><option>LISMORE NSW 2480</option></select>'],
    ['a script', '<script>const address = "LISMORE NSW 2480";</script>'],
    ['a style', '<style>/* LISMORE NSW 2480 */</style>'],
    ['a noscript', '<noscript>LISMORE NSW 2480</noscript>'],
    ['code', '<code>LISMORE NSW 2480</code>'],
    ['preformatted text', '<pre>LISMORE NSW 2480</pre>'],
    ['hidden', '<div hidden><span>LISMORE NSW 2480</span></div>'],
    ["the extension's own elements", '<dte-eligibility-badge><span>LISMORE NSW 2480</span></dte-eligibility-badge>'],
  ])('never in %s', (_name, body) => {
    const { document } = dom(body);
    expect(findAddressPostcodes(document, { ownTag: 'dte-eligibility-badge' })).toEqual([]);
  });

  it('text added inside an editable region is not read either', () => {
    const { document } = dom('<div contenteditable="true"><p id="p"></p></div><pre id="pre"></pre>');
    const text = document.createTextNode('LISMORE NSW 2480');
    document.getElementById('p')!.append(text);
    expect(scanAdded([text])).toEqual([]);
    const inPre = document.createElement('span');
    inPre.textContent = 'LISMORE NSW 2480';
    document.getElementById('pre')!.append(inPre);
    expect(scanAdded([inPre])).toEqual([]);
  });

  it('contenteditable="false" outside an editor is ordinary text', () => {
    expect(found('<div contenteditable="false"><span>LISMORE NSW 2480</span></div>')).toEqual(['2480 address']);
  });
});

describe('postcodesInText', () => {
  it('reads one text node, with the offsets of the digits', () => {
    const { document } = dom('<p id="p">Home: LISMORE NSW 2480; Work: BRISBANE QLD 4000</p>');
    const text = document.getElementById('p')!.firstChild as Text;
    const matches = postcodesInText(text);
    expect(matches.map((m) => [m.postcode, m.start, m.end])).toEqual([
      ['2480', 18, 22],
      ['4000', 43, 47],
    ]);
  });
});

describe('TextPostcodeWatcher', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function setup(body: string, limit?: number) {
    const { document } = dom(body);
    const events: string[] = [];
    const watcher = new TextPostcodeWatcher(
      document,
      {
        onFound: (found) => events.push(...found.map((f) => `+${f.postcode}`)),
        onGone: (gone) => events.push(...gone.map((f) => `-${f.postcode}`)),
      },
      { ownTag: 'dte-eligibility-badge', limit },
    );
    return { document, watcher, events };
  }

  const mutationsDelivered = () => Promise.resolve().then(() => Promise.resolve());

  it('reads the page in idle time, then what is added; reports what is removed', async () => {
    const { document, watcher, events } = setup('<div id="banner">LISMORE NSW 2480</div><div id="app"></div>');
    watcher.start();
    expect(events).toEqual([]);
    vi.runOnlyPendingTimers();
    expect(events).toEqual(['+2480']);

    const card = document.createElement('dl');
    card.innerHTML = '<dt>Postcode</dt><dd>4000</dd>';
    document.getElementById('app')!.append(card);
    await mutationsDelivered();
    vi.runOnlyPendingTimers();
    expect(events).toEqual(['+2480', '+4000']);
    expect(watcher.found.map((f) => f.postcode)).toEqual(['2480', '4000']);

    document.getElementById('banner')!.remove();
    await mutationsDelivered();
    expect(events).toEqual(['+2480', '+4000', '-2480']);
    watcher.stop();
    expect(events).toEqual(['+2480', '+4000', '-2480', '-4000']);
  });

  it('a text changed in place is read again (character data), and so is the value after a changed label', () => {
    const { document, watcher, events } = setup(
      '<p id="p">LISMORE NSW 2480</p><dl><dt id="k">Phone</dt><dd id="v">2480</dd></dl>',
    );
    watcher.start();
    watcher.flush();
    expect(events).toEqual(['+2480']);
    const text = document.getElementById('p')!.firstChild as Text;
    text.data = 'BRISBANE QLD 4000';
    watcher.handleMutations([{ type: 'characterData', target: text, addedNodes: [], removedNodes: [] }]);
    expect(events).toEqual(['+2480', '-2480']);
    watcher.flush();
    expect(events).toEqual(['+2480', '-2480', '+4000']);

    const label = document.getElementById('k')!.firstChild as Text;
    label.data = 'Postcode';
    watcher.handleMutations([{ type: 'characterData', target: label, addedNodes: [], removedNodes: [] }]);
    watcher.flush();
    expect(events).toEqual(['+2480', '-2480', '+4000', '+2480']);
    expect(watcher.found.map((f) => f.node.parentElement!.id || f.node.parentElement!.tagName)).toEqual(['p', 'v']);
  });

  it('the same text read twice is reported once; at most `limit` at a time', async () => {
    const rows = Array.from({ length: 5 }, (_, i) => `<li>${i} Main St, LISMORE NSW 2480</li>`).join('');
    const { document, watcher, events } = setup(`<ul id="list">${rows}</ul>`, 3);
    watcher.start();
    watcher.flush();
    expect(events).toEqual(['+2480', '+2480', '+2480']);
    document.getElementById('list')!.append(document.createElement('li'));
    await mutationsDelivered();
    watcher.flush();
    expect(events).toHaveLength(3);
  });

  it("never looks into a dte-… element (the extension's overlay), even when not told its tag", () => {
    const { document } = dom('<dte-overlay><span>LISMORE NSW 2480</span></dte-overlay><p>SYDNEY NSW 2000</p>');
    const host = document.querySelector('dte-overlay')!;
    host.attachShadow({ mode: 'open' }).innerHTML = '<p>BRISBANE QLD 4000</p>';
    expect(findAddressPostcodes(document).map((f) => f.postcode)).toEqual(['2000']);
  });

  it("finds nothing in the extension's own elements", async () => {
    const { document, watcher, events } = setup('<div id="app"></div>');
    watcher.start();
    watcher.flush();
    const own = document.createElement('dte-eligibility-badge');
    own.innerHTML = '<span>LISMORE NSW 2480</span>';
    document.getElementById('app')!.append(own);
    await mutationsDelivered();
    watcher.flush();
    expect(events).toEqual([]);
  });
});
