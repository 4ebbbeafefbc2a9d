import { useEffect, type ReactNode } from 'react';

export const PRODUCT = 'Telehealth disaster eligibility';

/** A page outside the signed-in layout (sign-in, an invitation, a password reset): the product's name, one column. */
export function PublicPage({ title, children }: { title: string; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} — ${PRODUCT} console`;
  }, [title]);
  return (
    <>
      <header className="console-header">
        <p className="console-name">{PRODUCT}</p>
      </header>
      <main id="main" className="sign-in">
        <h1>{title}</h1>
        {children}
      </main>
    </>
  );
}
