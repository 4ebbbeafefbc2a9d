import { useLayoutEffect, useRef, useState } from 'react';
import { copyWithNotice } from '../../../../ui/common/clipboard';
import { displayInstant } from '../../../../ui/common/display-dates';
import { NoticeLine, type Notice } from '../../../../ui/common/NoticeLine';

export interface OnceLinkProps {
  /** The box's heading: what the link is for. */
  title: string;
  link: string;
  email: string;
  emailed: boolean;
  expiresAt: string;
}

/**
 * A single-use link the server shows this once (it keeps only its hash): copied to the person, or already e-mailed
 * to them. The link is text, selectable as a whole. Focus moves to it when it appears: the button that asked for it
 * was disabled meanwhile, which leaves focus nowhere, and the link is what the person came for.
 */
export function OnceLink({ title, link, email, emailed, expiresAt }: OnceLinkProps) {
  const [notice, setNotice] = useState<Notice>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => heading.current?.focus(), [link]);
  const copy = async () => setNotice(await copyWithNotice(link, 'Link'));
  return (
    <div className="new-key" role="region" aria-labelledby="once-link-heading">
      <h3 id="once-link-heading" ref={heading} tabIndex={-1}>
        {title}
      </h3>
      <p data-testid="once-link-delivery">
        {emailed
          ? `E-mailed to ${email}. The link is shown here once too, in case it does not arrive.`
          : `Not e-mailed (this server sends no e-mail): copy this link to ${email}. It is shown once.`}{' '}
        Valid until {displayInstant(expiresAt)}; it works once.
      </p>
      <p>
        <code data-testid="once-link">{link}</code>
      </p>
      <button type="button" onClick={() => void copy()}>
        Copy link
      </button>
      <NoticeLine notice={notice} />
    </div>
  );
}
