import { useRef, useState, type FormEvent } from 'react';
import type { CheckRequest } from '../../../../shared/api/check';
import { FOUR_ASCII_DIGITS } from '../../../../shared/api/postcode';

interface CheckFormProps {
  busy: boolean;
  onCheck(request: CheckRequest): void;
  /** Either field changed, or the form refused what they hold: an answer on screen is no longer for them. */
  onEdit(): void;
}

/**
 * The postcode and the optional suburb, as the extension's popup asks for the postcode. Only the shape is checked
 * here (4 digits); whether it is an Australian postcode is the server's answer, worded like any other.
 */
export function CheckForm({ busy, onCheck, onEdit }: CheckFormProps) {
  const [postcode, setPostcode] = useState('');
  const [suburb, setSuburb] = useState('');
  const [error, setError] = useState('');
  const postcodeField = useRef<HTMLInputElement>(null);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    // Not by disabling the button: a disabled button that has focus drops it to the document.
    if (busy) return;
    const value = postcode.trim();
    if (!FOUR_ASCII_DIGITS.test(value)) {
      onEdit();
      setError('Enter a 4-digit postcode, for example 2480.');
      postcodeField.current?.focus();
      return;
    }
    setError('');
    const place = suburb.trim();
    onCheck(place ? { postcode: value, suburb: place } : { postcode: value });
  };

  return (
    <form className="check-form" onSubmit={onSubmit} noValidate aria-label="Postcode to check">
      <div className="field">
        <label htmlFor="check-postcode">Postcode</label>
        <input
          ref={postcodeField}
          id="check-postcode"
          name="postcode"
          type="text"
          inputMode="numeric"
          autoComplete="off"
          maxLength={4}
          value={postcode}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'check-postcode-error' : undefined}
          onChange={(e) => {
            setPostcode(e.target.value);
            onEdit();
          }}
        />
      </div>
      <div className="field">
        <label htmlFor="check-suburb">Suburb (optional)</label>
        <input
          id="check-suburb"
          name="suburb"
          type="text"
          autoComplete="off"
          maxLength={100}
          value={suburb}
          aria-describedby="check-suburb-hint"
          onChange={(e) => {
            setSuburb(e.target.value);
            onEdit();
          }}
        />
        <p id="check-suburb-hint" className="hint">
          Only for a postcode that spans several council areas (LGAs): the answer is then for this suburb&apos;s council
          area.
        </p>
      </div>
      {error && (
        <p id="check-postcode-error" className="notice error" role="alert">
          {error}
        </p>
      )}
      <p className="actions">
        <button type="submit">Check</button>
      </p>
    </form>
  );
}
