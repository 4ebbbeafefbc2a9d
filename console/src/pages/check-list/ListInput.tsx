import { useEffect, useRef, useState, type FormEvent } from 'react';
import { fileProblem, MAX_LIST_ROWS, readListText, type ListReading } from './list-read';

interface ListInputProps {
  onRead(reading: Extract<ListReading, { ok: true }>): void;
  /** Shown again after a list (its button gone with it): focus starts here rather than at the page's top. */
  focusHeading?: boolean;
}

/**
 * Where the list comes in: pasted from a spreadsheet (its rows arrive tab-separated) or chosen as a CSV file. Both are
 * read here, in the browser; nothing is sent until the columns are shown and the person asks for the check.
 */
export function ListInput({ onRead, focusHeading = false }: ListInputProps) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focusHeading) heading.current?.focus();
  }, [focusHeading]);

  const take = (reading: ListReading) => {
    if (reading.ok) {
      setProblem('');
      onRead(reading);
    } else setProblem(reading.message);
  };

  const onPasted = (event: FormEvent) => {
    event.preventDefault();
    take(readListText(text));
  };

  const onFile = async (file: File | undefined) => {
    if (!file) return;
    const refused = fileProblem(file);
    if (refused) return setProblem(refused);
    take(readListText(await file.text()));
  };

  return (
    <section aria-labelledby="list-input-heading">
      <h2 id="list-input-heading" ref={heading} tabIndex={-1}>
        Your list
      </h2>
      <p className="hint">
        An appointment list or the telehealth services of a quarter, exported from your practice software: up to{' '}
        {MAX_LIST_ROWS.toLocaleString('en-AU')} rows, with a heading row that names the columns. The list is read on
        this computer.
      </p>
      <form onSubmit={onPasted} noValidate aria-label="Paste a list">
        <div className="field">
          <label htmlFor="list-paste">Paste the rows (with their heading row) from a spreadsheet</label>
          <textarea
            id="list-paste"
            rows={6}
            spellCheck={false}
            value={text}
            aria-describedby={problem ? 'list-problem' : undefined}
            onChange={(e) => setText(e.target.value)}
          />
        </div>
        <p className="actions">
          <button type="submit">Read the pasted list</button>
        </p>
      </form>
      <div className="field">
        <label htmlFor="list-file">Or choose a CSV file</label>
        <input
          id="list-file"
          type="file"
          accept=".csv,.tsv,.txt,text/csv,text/plain"
          aria-describedby={problem ? 'list-problem' : undefined}
          onChange={(e) => {
            void onFile(e.target.files?.[0]);
            // The same file chosen again (after fixing it) is read again.
            e.target.value = '';
          }}
        />
      </div>
      {problem && (
        <p id="list-problem" className="notice error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
