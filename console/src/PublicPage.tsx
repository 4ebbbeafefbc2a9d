import { useEffect, useRef, type ReactNode } from 'react';

export const PRODUCT = 'Telehealth disaster eligibility';

/**
 * A page outside the signed-in layout (sign-in, an invitation, a password reset): the product's name, one column.
 * `focusHeading`: the page replaced another in place (sign-up's answer), so focus moves to its heading, as the
 * signed-in layout does, and a screen reader starts reading there.
 */
export function PublicPage({
  title,
  focusHeading = false,
  children,
}: {
  title: string;
  focusHeading?: boolean;
  children: ReactNode;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} — ${PRODUCT} console`;
    if (focusHeading) heading.current?.focus();
  }, [title, focusHeading]);
  return (
    <>
      <header className="console-header">
        <p className="console-name">{PRODUCT}</p>
      </header>
      <main id="main" className="sign-in">
        <h1 ref={heading} tabIndex={focusHeading ? -1 : undefined}>
          {title}
        </h1>
        {children}
      </main>
    </>
  );
}
