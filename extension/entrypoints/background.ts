export default defineBackground(() => {
  // The background worker becomes the only place that talks to the server (see the extension issue).
});
