import { useState } from 'react';
import { MAX_ORGANISATION_NAME_LENGTH } from '../../../../shared/api/team';

/** The organisation's name: text for everyone, a form for owners. */
export function OrganisationName({
  name,
  owner,
  busy,
  onRename,
}: {
  name: string;
  owner: boolean;
  busy: boolean;
  onRename(name: string): void;
}) {
  const [draft, setDraft] = useState(name);
  if (!owner) return <p data-testid="organisation-name">{name}</p>;
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        onRename(draft);
      }}
      noValidate
    >
      <div className="field">
        <label htmlFor="organisation-name">Organisation name</label>
        <input
          id="organisation-name"
          type="text"
          maxLength={MAX_ORGANISATION_NAME_LENGTH}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
        />
      </div>
      <button type="submit" disabled={busy || draft.trim() === '' || draft.trim() === name}>
        Rename
      </button>
    </form>
  );
}
