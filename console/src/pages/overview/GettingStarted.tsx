import { useState, type ReactNode } from 'react';
import type { Account } from '../../../../ui/account/useAccount';
import { Link } from '../../router';
import { useLoad } from '../../use-load';
import './getting-started.css';

/** The console's page (another part of the console) with the packaged extension and the policy deployment guide. */
const EXTENSION_ROUTE = 'extension';

interface Step {
  id: 'key' | 'extension' | 'team' | 'catchment';
  title: string;
  /** Said once it is done, for the person to trust the tick. */
  doneWords: string;
  done: boolean;
  body: ReactNode;
}

/** What the four steps' states are read from: what the console loads anyway. Null while any is still unknown. */
function useProgress(account: Account) {
  const team = useLoad((a) => a.team()).result;
  const invitations = useLoad((a) => a.invitations()).result;
  const catchment = useLoad((a) => a.getCatchment()).result;
  const { status } = account;
  if (!status || !team || !invitations || !catchment) return null;
  return {
    key: status.key.status === 'active',
    // The key answered a check: the extension (or the practice software) is installed and set up somewhere.
    keyUsed: status.key.status === 'active' && status.key.last_used_at !== null,
    // A failed read counts as not done: the list stays, which is the safe side.
    team: (team.ok && team.data.members.length > 1) || (invitations.ok && invitations.data.invitations.length > 0),
    catchment: catchment.ok && catchment.data.data.postcodes.length > 0,
  };
}

function steps(progress: NonNullable<ReturnType<typeof useProgress>>): Step[] {
  return [
    {
      id: 'key',
      title: 'Generate the API key',
      doneWords: 'The key is active.',
      done: progress.key,
      body: (
        <p>
          The browser extension on each workstation, and your practice software if its vendor connects it, send this key
          with every check. <Link to="key">Generate it on the API key page</Link>.
        </p>
      ),
    },
    {
      id: 'extension',
      title: 'Install the browser extension',
      doneWords: 'The key has answered a check from a workstation or your practice software.',
      done: progress.keyUsed,
      body: (
        <>
          <p>
            It shows the answer beside each postcode in your practice software. Your practice&apos;s IT provider
            installs it on each workstation from the browser&apos;s extension store (Chrome Web Store, Microsoft Edge
            Add-ons or Firefox Add-ons) and pastes the API key into the extension&apos;s options.
          </p>
          <p>
            For IT: <Link to={EXTENSION_ROUTE}>the packaged extension this server serves</Link>, and the guide to
            installing it on every workstation by policy.
          </p>
        </>
      ),
    },
    {
      id: 'team',
      title: 'Invite your team',
      doneWords: 'Someone else is in the team, or invited.',
      done: progress.team,
      body: (
        <p>
          GPs and reception check postcodes in this console; another admin can look after the key.{' '}
          <Link to="team">Invite them on the Team page</Link>.
        </p>
      ),
    },
    {
      id: 'catchment',
      title: 'Add your catchment',
      doneWords: 'The catchment has postcodes.',
      done: progress.catchment,
      body: (
        <p>
          The postcodes your patients live in: you are alerted when a disaster is declared for one of them.{' '}
          <Link to="catchment">Add them on the Catchment page</Link>.
        </p>
      ),
    },
  ];
}

/** Whether this person hid the list, kept in this browser. */
function useHidden(accountId: string | null) {
  const key = `dte-getting-started-hidden:${accountId ?? ''}`;
  const [hidden, setHidden] = useState(() => localStorage.getItem(key) === '1');
  const hide = () => {
    localStorage.setItem(key, '1');
    setHidden(true);
  };
  return { hidden, hide };
}

/**
 * The owner's and admin's first visit: the four steps that set a practice up, each ticked off from what the server
 * says (the key, its use, the team, the catchment), until all are done or the list is hidden.
 */
export function GettingStarted({ account }: { account: Account }) {
  const progress = useProgress(account);
  const { hidden, hide } = useHidden(account.accountId);
  if (!progress || hidden) return null;
  const all = steps(progress);
  const left = all.filter((step) => !step.done).length;
  if (left === 0) return null;
  return (
    <section aria-labelledby="getting-started-heading" data-testid="getting-started">
      <h2 id="getting-started-heading">Getting started</h2>
      <p className="hint">
        {left === 1 ? 'One step left' : `${left} of ${all.length} steps left`} to set up your practice. Each is ticked
        off here once it is done.
      </p>
      <ol className="getting-started">
        {all.map((step) => (
          <li key={step.id} data-done={step.done} data-testid={`step-${step.id}`}>
            <h3>
              <span className="step-state" data-testid="step-state">
                {step.done ? '✓ Done:' : 'To do:'}
              </span>{' '}
              {step.title}
            </h3>
            {step.done ? <p>{step.doneWords}</p> : step.body}
          </li>
        ))}
      </ol>
      <button type="button" onClick={hide}>
        Hide this list
      </button>
    </section>
  );
}
