import { useState } from 'react';
import { copyWithNotice } from '../../../../ui/common/clipboard';
import { NoticeLine, type Notice } from '../../../../ui/common/NoticeLine';

/** A value to register at the provider: shown as text, selectable whole, with its own Copy button. */
export function CopyableValue({ label, value, testId }: { label: string; value: string; testId: string }) {
  const [notice, setNotice] = useState<Notice>(null);
  const copy = async () => setNotice(await copyWithNotice(value, label));
  return (
    <>
      <dt>{label}</dt>
      <dd>
        <code data-testid={testId}>{value}</code>{' '}
        <button type="button" aria-label={`Copy ${label.toLowerCase()}`} onClick={() => void copy()}>
          Copy
        </button>
        <NoticeLine notice={notice} />
      </dd>
    </>
  );
}
