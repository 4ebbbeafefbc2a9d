/**
 * The read-only address finder: postcodes a page shows as text rather than in a field. What counts and where it is
 * looked for is address-scan.ts (the text's shapes: address-patterns.ts); following a page as it changes is
 * address-watcher.ts. This module is the finder's one entry point.
 */
export {
  findAddressPostcodes,
  MAX_TEXT_POSTCODES,
  postcodesInText,
  scanAdded,
  type AddressTextOptions,
  type TextPostcode,
} from './address-scan';
export {
  TextPostcodeWatcher,
  type TextMutation,
  type TextPostcodeHooks,
  type TextPostcodeWatcherOptions,
} from './address-watcher';
