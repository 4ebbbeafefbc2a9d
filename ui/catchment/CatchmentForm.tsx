import { MAX_CATCHMENT_POSTCODES } from '../../shared/api/catchment';
import { readWords, sourceWords } from './list-words';
import type { PostcodeList } from './postcode-list';

export interface CatchmentFormProps {
  /** The list as typed, and as parsed. */
  text: string;
  list: PostcodeList;
  /** What became of the last file chosen. */
  fileNote: string;
  /** A request is under way: nothing more is sent until it ends. */
  busy: boolean;
  /** The saved catchment is still being read: a save now could replace a list not yet seen. */
  loading: boolean;
  /** There is a saved catchment with postcodes in it to download. */
  canDownload: boolean;
  onEdit(text: string): void;
  /** Reads a chosen file into the list; resolves false when it could not be read. */
  onFile(file: File): Promise<boolean>;
  onSave(): void;
  onDownload(): void;
}

/**
 * What Save would send, every entry read accounted for (postcodes, entries that are not postcodes, repeats), and why
 * it cannot be sent yet. Announced as the list changes.
 */
function CatchmentPreview({ list }: { list: PostcodeList }) {
  const source = sourceWords(list);
  return (
    <div id="catchment-preview" aria-live="polite">
      <p data-testid="catchment-count">{readWords(list)}</p>
      {source && (
        <p className="hint" data-testid="catchment-source">
          {source}
        </p>
      )}
      {list.invalid.length > 0 && (
        <div className="refused" data-testid="catchment-invalid">
          <p>
            {list.postcodes.length > 0 ? 'Left out when you save' : 'Nothing to save'} — not postcodes (4 digits,
            0200–0299 or 0800–9999):
          </p>
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
  );
}

function FileField({ note, onFile }: { note: string; onFile: CatchmentFormProps['onFile'] }) {
  return (
    <div className="field">
      <label htmlFor="catchment-file">Or choose a CSV or text file</label>
      <input
        id="catchment-file"
        type="file"
        accept=".csv,.txt,text/csv,text/plain"
        onChange={(event) => {
          const input = event.currentTarget;
          const file = input.files?.[0];
          // Emptied once read, so that choosing the same file again (edited since) reads it again.
          if (!file) return;
          void onFile(file).then((read) => {
            if (read) input.value = '';
          });
        }}
      />
      {note && <span className="hint">{note}</span>}
    </div>
  );
}

/**
 * The catchment's postcodes, pasted or read from a CSV or text file, read and counted here before Save sends them:
 * entries that are not postcodes are named and left out.
 */
export function CatchmentForm(props: CatchmentFormProps) {
  const { text, list, busy, loading, canDownload } = props;
  // A list of nothing but entries that are not postcodes would clear the catchment: that is never what it meant.
  const blocked = list.tooMany || (list.postcodes.length === 0 && list.entries.length > 0);
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (!blocked) props.onSave();
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
          onChange={(e) => props.onEdit(e.target.value)}
        />
        <p id="catchment-format" className="hint">
          One per line, or separated by commas, semicolons, tabs or spaces. A CSV with a column named “postcode” works
          too.
        </p>
      </div>
      <FileField note={props.fileNote} onFile={props.onFile} />
      <CatchmentPreview list={list} />
      <div className="actions">
        <button type="submit" disabled={busy || loading || blocked}>
          Save catchment
        </button>
        <button type="button" onClick={props.onDownload} disabled={busy || !canDownload}>
          Download CSV
        </button>
      </div>
    </form>
  );
}
