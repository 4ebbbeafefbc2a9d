import { useEffect, useMemo, useState, type Dispatch, type SetStateAction } from 'react';
import { csvFileName } from './catchment-view';
import { parsePostcodeList } from './postcode-list';
import type { CatchmentAnswer } from '../api/account-result';
import { useApi, type ApiClient } from '../api/api-client';
import type { Notice } from '../common/NoticeLine';
import { plural } from '../common/plural';
import { saveFile } from '../common/save-file';

export type Catchment = ReturnType<typeof useCatchment>;

function refusedNotice(count: number): Notice {
  return {
    kind: 'error',
    text: `The server refused ${plural(count, 'postcode')}: not valid or not known. Fix or remove them, then save again.`,
  };
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
    // The file's entries go into the list, one per line, where they can be checked and edited before saving.
    const read = parsePostcodeList(content);
    setText(read.entries.join('\n'));
    const n = read.entries.length;
    setFileNote(`Read ${n} ${n === 1 ? 'entry' : 'entries'} from ${file.name}.`);
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
 * list) and downloading it as CSV, one request at a time.
 */
export function useCatchment() {
  const api = useApi();
  const { setText, setFileNote, setRefused, ...draft } = useCatchmentDraft();
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  const { catchment, setCatchment, loading } = useSavedCatchment(api, setText, setNotice);
  const { list } = draft;

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

  const save = () => {
    setRefused([]);
    return request(async () => {
      const result = await api.saveCatchment(list.postcodes);
      if (result.ok) {
        setCatchment(result.data);
        setText(list.postcodes.join('\n'));
        setFileNote('');
        const n = result.data.data.postcodes.length;
        setNotice({ kind: 'ok', text: n === 0 ? 'Catchment cleared.' : `Saved ${plural(n, 'postcode')}.` });
      } else if (result.details && result.details.length > 0) {
        setRefused(result.details);
        setNotice(refusedNotice(result.details.length));
      } else {
        setNotice({ kind: 'error', text: api.describe(result) });
      }
    }, 'Could not save the catchment: no answer. Reload the page.');
  };

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

  return { ...draft, catchment, loading, busy, notice, save, download };
}
