import { useEffect, useMemo, useState, type Dispatch, type SetStateAction } from 'react';
import { csvFileName } from './catchment-view';
import { namedEntries } from './list-words';
import { parsePostcodeList } from './postcode-list';
import type { CatchmentAnswer } from '../api/account-result';
import { useApi, type ApiClient } from '../api/api-client';
import type { Notice } from '../common/NoticeLine';
import { plural } from '../common/plural';
import { saveFile } from '../common/save-file';

export type Catchment = ReturnType<typeof useCatchment>;

const notA = (n: number, what: string) => (n === 1 ? `not a ${what}` : `not ${what}s`);

function refusedNotice(refused: readonly string[]): Notice {
  return {
    kind: 'error',
    text:
      `Nothing was saved: ${namedEntries(refused)} ${refused.length === 1 ? 'is' : 'are'} ` +
      `${notA(refused.length, 'known postcode')}. Remove ${refused.length === 1 ? 'it' : 'them'}, or save the others ` +
      'without.',
  };
}

/** "Saved 8 postcodes. Left out abc: not a postcode. Left out 9998: not a known postcode." */
function savedNotice(saved: number, invalid: readonly string[], unknown: readonly string[]): Notice {
  if (saved === 0) return { kind: 'ok', text: 'Catchment cleared.' };
  let text = `Saved ${plural(saved, 'postcode')}.`;
  if (invalid.length > 0) text += ` Left out ${namedEntries(invalid)}: ${notA(invalid.length, 'postcode')}.`;
  if (unknown.length > 0) text += ` Left out ${namedEntries(unknown)}: ${notA(unknown.length, 'known postcode')}.`;
  return { kind: 'ok', text };
}

/** "Read 3 entries from patients.csv (its “Postcode” column)." */
function fileReadNote(name: string, entries: number, column: string | null, heading: string | null): string {
  const from = column
    ? ` (its “${column}” column)`
    : heading
      ? ` (the first line, “${heading}”, read as a heading)`
      : '';
  return `Read ${entries} ${entries === 1 ? 'entry' : 'entries'} from ${name}${from}.`;
}

/** The list being edited, typed or read from a file, and parsed as it changes so it is checked before it is sent. */
function useCatchmentDraft() {
  const [text, setText] = useState('');
  const [fileNote, setFileNote] = useState('');
  const [refused, setRefused] = useState<string[]>([]);
  const list = useMemo(() => parsePostcodeList(text), [text]);

  // The server's refusal was of the list as saved: once the list changes it no longer applies.
  const edit = (value: string) => {
    setText(value);
    setRefused([]);
  };

  /** Reads a chosen file into the list; false when it could not be read (and the note says so). */
  const readFile = async (file: File): Promise<boolean> => {
    let content: string;
    try {
      content = await file.text();
    } catch {
      setFileNote(`Could not read ${file.name}.`);
      return false;
    }
    // The file's entries go into the list, one per line, where they are counted, checked and edited before saving.
    const read = parsePostcodeList(content);
    setText(read.entries.join('\n'));
    setFileNote(fileReadNote(file.name, read.entries.length, read.column, read.heading));
    setRefused([]);
    return true;
  };

  return { text, setText, list, fileNote, setFileNote, refused, setRefused, edit, readFile };
}

/** The catchment saved on the server, read once when the section opens. */
function useSavedCatchment(
  api: ApiClient,
  setText: Dispatch<SetStateAction<string>>,
  setNotice: Dispatch<SetStateAction<Notice>>,
) {
  const [catchment, setCatchment] = useState<CatchmentAnswer | null>(null);
  const [loading, setLoading] = useState(true);

  useEffect(() => {
    let live = true;
    void api
      .getCatchment()
      .then((result) => {
        if (!live) return;
        if (result.ok) {
          setCatchment(result.data);
          // The saved list is where an edit starts.
          setText((current) => current || result.data.data.postcodes.map((p) => p.postcode).join('\n'));
        } else {
          setNotice({ kind: 'error', text: `Could not load the catchment: ${api.describe(result)}` });
        }
      })
      .catch(() => live && setNotice({ kind: 'error', text: 'Could not load the catchment.' }))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [api, setText, setNotice]);

  return { catchment, setCatchment, loading };
}

/**
 * The signed-in clinic's catchment: the list being edited, the saved catchment, and saving (which replaces the saved
 * list) and downloading it as CSV, one request at a time. Entries that are not postcodes are left out of a save and
 * named; postcodes the server does not know make it refuse the whole save, and `saveWithoutRefused` sends the list
 * again without them once the user asked for it.
 */
export function useCatchment() {
  const api = useApi();
  const { setText, setFileNote, setRefused, ...draft } = useCatchmentDraft();
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  const { catchment, setCatchment, loading } = useSavedCatchment(api, setText, setNotice);
  const { list, refused } = draft;

  /** Runs one request with Save and Download disabled; `noAnswer` is said when the call itself fails. */
  const request = async (action: () => Promise<void>, noAnswer: string) => {
    setNotice(null);
    setBusy(true);
    try {
      await action();
    } catch {
      setNotice({ kind: 'error', text: noAnswer });
    } finally {
      setBusy(false);
    }
  };

  /** Saves the list's postcodes, but for `unknown` ones (those the server refused, left out at the user's word). */
  const send = (unknown: readonly string[]) => {
    const leftOut = new Set(unknown);
    const postcodes = list.postcodes.filter((p) => !leftOut.has(p));
    setRefused([]);
    return request(async () => {
      const result = await api.saveCatchment(postcodes);
      if (result.ok) {
        setCatchment(result.data);
        setText(postcodes.join('\n'));
        setFileNote('');
        setNotice(savedNotice(result.data.data.postcodes.length, list.invalid, unknown));
      } else if (result.details && result.details.length > 0) {
        setRefused(result.details);
        setNotice(refusedNotice(result.details));
      } else {
        setNotice({ kind: 'error', text: api.describe(result) });
      }
    }, 'Could not save the catchment: no answer. Reload the page.');
  };

  /** The postcodes a save without the refused ones would keep. */
  const keptWithoutRefused = list.postcodes.filter((p) => !refused.includes(p)).length;

  const download = () =>
    request(async () => {
      const result = await api.catchmentCsv();
      if (result.ok) {
        const name = csvFileName();
        saveFile(result.data, name, 'text/csv;charset=utf-8');
        setNotice({ kind: 'ok', text: `Downloaded ${name}.` });
      } else {
        setNotice({ kind: 'error', text: `Could not download the CSV: ${api.describe(result)}` });
      }
    }, 'Could not download the CSV: no answer. Reload the page.');

  return {
    ...draft,
    catchment,
    loading,
    busy,
    notice,
    save: () => send([]),
    saveWithoutRefused: () => send(refused),
    keptWithoutRefused,
    download,
  };
}
