import { z } from 'zod';

// zod compiles object parsers with `new Function` when it may, deciding as each schema is built (at import). The
// console's CSP forbids eval, and zod's probe for it would itself be reported as a violation: this module is imported
// before any schema is built. The interpreted parsers are fast enough for these answers.
z.config({ jitless: true });
