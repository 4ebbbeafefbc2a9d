/** dd/mm/yyyy from YYYY-MM-DD (the content script must not pull in the server's date helpers and zod). */
export function displayDate(isoDate: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDate);
  return m ? `${m[3]}/${m[2]}/${m[1]}` : isoDate;
}

/** An ISO instant as a local date and time ("data last updated", when a key was created or last used). */
export function displayInstant(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return 'unknown';
  return date.toLocaleString('en-AU', { dateStyle: 'medium', timeStyle: 'short' });
}
