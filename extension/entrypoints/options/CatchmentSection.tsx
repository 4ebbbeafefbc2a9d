import { useEffect, useMemo, useState, type ChangeEvent } from 'react';
import { MAX_CATCHMENT_POSTCODES } from '../../../shared/api/catchment';
import { csvFileName, summaryWords } from '../../catchment/catchment-view';
import { parsePostcodeList } from '../../catchment/postcode-list';
import { displayInstant } from '../../common/display-dates';
import { sendMessage, type CatchmentAnswer } from '../../common/messaging';
import { accountMessage } from './account-message';
import { CatchmentTable } from './CatchmentTable';
import { NoticeLine, type Notice } from './NoticeLine';

/** Saves text as a file the way a download link does (a blob URL on an `<a download>`). */
function saveFile(text: string, name: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The signed-in clinic's catchment: its postcodes pasted or read from a CSV or text file, checked here before they
 * are sent, saved (replacing the list), shown as a table with each postcode's colour, LGA and active AGRNs, and
 * downloaded as CSV. Everything the server says is rendered as text.
 */
export function CatchmentSection() {
  const [text, setText] = useState('');
  const [fileNote, setFileNote] = useState('');
  const [catchment, setCatchment] = useState<CatchmentAnswer | null>(null);
  const [loading, setLoading] = useState(true);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  const [refused, setRefused] = useState<string[]>([]);
  const list = useMemo(() => parsePostcodeList(text), [text]);

  useEffect(() => {
    let live = true;
    void sendMessage('getCatchment')
      .then((result) => {
        if (!live) return;
        if (result.ok) {
          setCatchment(result.data);
          // The saved list is where an edit starts.
          setText((current) => current || result.data.data.postcodes.map((p) => p.postcode).join('\n'));
        } else {
          setNotice({ kind: 'error', text: `Could not load the catchment: ${accountMessage(result)}` });
        }
      })
      .catch(() => live && setNotice({ kind: 'error', text: 'Could not load the catchment.' }))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, []);

  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const input = event.currentTarget;
    const file = input.files?.[0];
    if (!file) return;
    let content: string;
    try {
      content = await file.text();
    } catch {
      setFileNote(`Could not read ${file.name}.`);
      return;
    }
    // The file's entries go into the list, one per line, where they can be checked and edited before saving.
    const read = parsePostcodeList(content);
    setText(read.entries.join('\n'));
    const n = read.entries.length;
    setFileNote(`Read ${n} ${n === 1 ? 'entry' : 'entries'} from ${file.name}.`);
    setRefused([]);
    input.value = '';
  };

  const save = async () => {
    setNotice(null);
    setRefused([]);
    setBusy(true);
    try {
      const result = await sendMessage('saveCatchment', list.postcodes);
      if (result.ok) {
        setCatchment(result.data);
        setText(list.postcodes.join('\n'));
        setFileNote('');
        const n = result.data.data.postcodes.length;
        setNotice({ kind: 'ok', text: n === 0 ? 'Catchment cleared.' : `Saved ${plural(n, 'postcode')}.` });
      } else if (result.details && result.details.length > 0) {
        setRefused(result.details);
        setNotice({
          kind: 'error',
          text: `The server refused ${plural(result.details.length, 'postcode')}: not valid or not known. Fix or remove them, then save again.`,
        });
      } else {
        setNotice({ kind: 'error', text: accountMessage(result) });
      }
    } catch {
      setNotice({
        kind: 'error',
        text: 'Could not save the catchment: the extension did not answer. Reload the page.',
      });
    } finally {
      setBusy(false);
    }
  };

  const download = async () => {
    setNotice(null);
    setBusy(true);
    try {
      const result = await sendMessage('catchmentCsv');
      if (result.ok) {
        const name = csvFileName();
        saveFile(result.data, name, 'text/csv;charset=utf-8');
        setNotice({ kind: 'ok', text: `Downloaded ${name}.` });
      } else {
        setNotice({ kind: 'error', text: `Could not download the CSV: ${accountMessage(result)}` });
      }
    } catch {
      setNotice({ kind: 'error', text: 'Could not download the CSV: the extension did not answer. Reload the page.' });
    } finally {
      setBusy(false);
    }
  };

  const blocked = list.invalid.length > 0 || list.tooMany;
  const saved = catchment?.data;

  return (
    <section aria-labelledby="catchment-heading">
      <h2 id="catchment-heading">Catchment</h2>
      <p className="hint">
        The postcodes your patients live in. The table shows which are covered by a disaster declaration now, and the
        extension tells you when that changes.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!blocked) void save();
        }}
        noValidate
      >
        <div className="field">
          <label htmlFor="catchment-postcodes">Postcodes</label>
          <textarea
            id="catchment-postcodes"
            rows={6}
            spellCheck={false}
            value={text}
            aria-describedby="catchment-format catchment-preview"
            aria-invalid={blocked ? true : undefined}
            onChange={(e) => {
              setText(e.target.value);
              setRefused([]);
            }}
          />
          <p id="catchment-format" className="hint">
            One per line, or separated by commas, semicolons or spaces. A CSV with a column named “postcode” works too.
          </p>
        </div>
        <div className="field">
          <label htmlFor="catchment-file">Or choose a CSV or text file</label>
          <input
            id="catchment-file"
            type="file"
            accept=".csv,.txt,text/csv,text/plain"
            onChange={(e) => void onFile(e)}
          />
          {fileNote && <span className="hint">{fileNote}</span>}
        </div>
        <div id="catchment-preview" aria-live="polite">
          <p data-testid="catchment-count">
            {plural(list.postcodes.length, 'postcode')} ready to save
            {list.entries.length > list.postcodes.length + list.invalid.length ? ' (repeats counted once)' : ''}.
          </p>
          {list.invalid.length > 0 && (
            <div className="refused" data-testid="catchment-invalid">
              <p>Not postcodes (4 digits, 0200–0299 or 0800–9999): fix or remove them before saving.</p>
              <ul>
                {list.invalid.map((entry) => (
                  <li key={entry}>{entry}</li>
                ))}
              </ul>
            </div>
          )}
          {list.tooMany && (
            <p className="notice error">
              At most {MAX_CATCHMENT_POSTCODES} postcodes can be saved; this list has {list.postcodes.length}.
            </p>
          )}
        </div>
        <div className="actions">
          <button type="submit" disabled={busy || loading || blocked}>
            Save catchment
          </button>
          <button
            type="button"
            onClick={() => void download()}
            disabled={busy || !saved || saved.postcodes.length === 0}
          >
            Download CSV
          </button>
        </div>
      </form>
      <NoticeLine notice={notice} />
      {refused.length > 0 && (
        <div className="refused">
          <h3>Refused postcodes</h3>
          <ul data-testid="catchment-refused">
            {refused.map((entry, i) => (
              <li key={`${i}:${entry}`}>{entry}</li>
            ))}
          </ul>
        </div>
      )}
      {loading && <p className="hint">Loading the catchment…</p>}
      {saved && saved.postcodes.length > 0 && catchment && (
        <>
          <p id="catchment-summary" data-testid="catchment-summary">
            {summaryWords(saved.summary)}.
          </p>
          <p className="hint">
            {saved.updated_at ? `Saved ${displayInstant(saved.updated_at)}. ` : ''}
            Disaster data updated {displayInstant(catchment.metadata.last_updated)}
            {catchment.metadata.stale ? ' (more than 48 hours ago)' : ''}.
          </p>
          <CatchmentTable catchment={saved} />
        </>
      )}
      {saved && saved.postcodes.length === 0 && !loading && <p>No postcodes saved yet.</p>}
    </section>
  );
}
