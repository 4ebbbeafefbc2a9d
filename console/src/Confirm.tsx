import type { ReactNode } from 'react';

export interface ConfirmProps {
  /** The question's element id, which names the dialog. */
  id: string;
  /** The question: what the change does and what cannot be undone. */
  children: ReactNode;
  /** The button that goes ahead: "Yes, remove". */
  yes: string;
  onYes(): void;
  /** Cancel, or Escape: the page gives focus back where the question came from. */
  onCancel(): void;
}

/** A question asked in the page before a change that cannot be undone: the yes takes focus; Cancel or Escape closes. */
export function Confirm({ id, children, yes, onYes, onCancel }: ConfirmProps) {
  return (
    <div
      className="confirm"
      role="alertdialog"
      aria-labelledby={id}
      onKeyDown={(e) => e.key === 'Escape' && onCancel()}
    >
      <p id={id}>{children}</p>
      <button type="button" className="danger" autoFocus onClick={onYes}>
        {yes}
      </button>{' '}
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
