import type { ReactNode } from 'react';

/**
 * The box a table scrolls in when it is wider (or, with .table-scroll, taller) than the page has room for: a named
 * region the keyboard can focus and scroll with the arrow keys, so no column is out of reach on a phone. Its scroll
 * cue (a shadow on the side with more) is the page's stylesheet's.
 */
export function TableScroll({
  label,
  className = 'table-scroll',
  children,
}: {
  /** What the table is, for the region's name ("Team members"). */
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={className} role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
