import { useState } from 'react';
import { MIN_PASSWORD_LENGTH } from '../../../shared/api/auth';
import { NoticeLine, type Notice } from '../../../ui/common/NoticeLine';

export interface NewPasswordFormProps {
  /** The account's email, for the browser's password manager to file the new password under. */
  email: string | null;
  submitLabel: string;
  busy: boolean;
  /** The server's refusal, in words. */
  notice: Notice;
  onSubmit(password: string): void;
}

/** A new password typed twice, checked here (length, both the same) before it is sent. */
export function NewPasswordForm({ email, submitLabel, busy, notice, onSubmit }: NewPasswordFormProps) {
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = () => {
    if (password.length < MIN_PASSWORD_LENGTH) {
      setProblem(`The password needs at least ${MIN_PASSWORD_LENGTH} characters.`);
    } else if (password !== repeat) {
      setProblem('The two passwords are not the same.');
    } else {
      setProblem(null);
      onSubmit(password);
    }
  };
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
      noValidate
    >
      {email !== null && (
        <div className="field">
          <label htmlFor="link-email">Email</label>
          <input id="link-email" type="email" autoComplete="username" value={email} readOnly />
        </div>
      )}
      <div className="field">
        <label htmlFor="new-password">New password</label>
        <input
          id="new-password"
          type="password"
          autoComplete="new-password"
          aria-describedby="new-password-hint"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <p id="new-password-hint" className="hint">
          At least {MIN_PASSWORD_LENGTH} characters; a few words you will remember make a good one.
        </p>
      </div>
      <div className="field">
        <label htmlFor="repeat-password">Repeat the password</label>
        <input
          id="repeat-password"
          type="password"
          autoComplete="new-password"
          value={repeat}
          onChange={(e) => setRepeat(e.target.value)}
        />
      </div>
      <button type="submit" disabled={busy}>
        {submitLabel}
      </button>
      <NoticeLine notice={problem ? { kind: 'error', text: problem } : notice} />
    </form>
  );
}
