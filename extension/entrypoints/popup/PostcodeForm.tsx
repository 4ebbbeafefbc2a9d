import { useState, type FormEvent } from 'react';
import { completePostcode } from '../../common/postcode';

interface PostcodeFormProps {
  busy: boolean;
  onCheck(postcode: string): void;
  /** The field changed, or the form refused what it holds: an answer shown is no longer for it. */
  onEdit(): void;
}

/** The popup's postcode field: a postcode it can complete to 4 digits goes to `onCheck`, anything else is said. */
export function PostcodeForm({ busy, onCheck, onEdit }: PostcodeFormProps) {
  const [postcode, setPostcode] = useState('');
  const [error, setError] = useState('');

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const value = completePostcode(postcode);
    if (!value) {
      onEdit();
      setError('Enter a 4-digit postcode.');
      return;
    }
    setError('');
    onCheck(value);
  };

  return (
    <form onSubmit={onSubmit} noValidate>
      <label htmlFor="postcode">Postcode</label>
      <div className="row">
        <input
          id="postcode"
          name="postcode"
          inputMode="numeric"
          autoComplete="off"
          maxLength={4}
          value={postcode}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'postcode-error' : undefined}
          onChange={(e) => {
            setPostcode(e.target.value);
            onEdit();
          }}
        />
        <button type="submit" disabled={busy}>
          Check
        </button>
      </div>
      {error && (
        <p id="postcode-error" className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
