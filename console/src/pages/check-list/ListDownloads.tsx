import type { ListRun } from './list-model';

/**
 * The downloads of a finished run: the list with its results as CSV, and the printable report. Built in the browser
 * so that the practice's own columns never reach the server. (Placeholder until the outputs land: renders nothing.)
 */
export function ListDownloads(_props: { run: ListRun }) {
  return null;
}
