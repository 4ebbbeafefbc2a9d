/**
 * What to confirm for the disasters in force, said once for the whole list (instrumentNotes): the page's results and
 * the printable report each list them above their rows, which point at them by number ("DRFA activation (note 1)").
 */
export function InstrumentNotes({
  notes,
  id,
  level,
  className,
}: {
  notes: readonly string[];
  /** The heading's id; also the list's test id. */
  id: string;
  /** The heading's level where it stands (the page's results: 3; the report's parts: 4). */
  level: 3 | 4;
  className: string;
}) {
  if (notes.length === 0) return null;
  const Heading = level === 3 ? 'h3' : 'h4';
  return (
    <section className={className} aria-labelledby={id}>
      <Heading id={id}>Who declared the disasters in this list</Heading>
      <ol data-testid={id}>
        {notes.map((note) => (
          <li key={note}>{note}</li>
        ))}
      </ol>
    </section>
  );
}
