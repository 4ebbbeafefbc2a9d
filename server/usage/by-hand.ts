/** The id under which an organisation's checks by hand (the console) are rate-limited and counted, beside its keys'. */
export const BY_HAND_PREFIX = 'by-hand:';
/** How usage names them. */
export const BY_HAND_LABEL = 'by hand (console)';
