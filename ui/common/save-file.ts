/** Saves text as a file the way a download link does (a blob URL on an `<a download>`). */
export function saveFile(text: string, name: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked later, not at once: the browser may still be reading the blob for the download it started.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
