/**
 * What Swagger UI's own page lacks for WCAG 2.1 AA, put right over its stylesheet and markup: /docs is read by the
 * clinics' IT providers like any other page of the product, and passes axe with no serious or critical violation.
 */

/**
 * Colours with at least 4.5:1 against their background (Swagger UI's method badges, version tags and buttons are
 * 1.6–3.8:1), and code examples that wrap instead of scrolling inside a box no keyboard can reach. Dark mode
 * (`html.dark-mode …`) has colours of its own that pass, and more specific selectors than these.
 */
export const DOCS_PAGE_CSS = `
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #0b57d0; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1e7b34; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #9a4f00; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0f6b66; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b42318; }
.swagger-ui .opblock.opblock-head .opblock-summary-method { background: #6b3fa0; }
.swagger-ui .opblock.opblock-options .opblock-summary-method { background: #1d4f7a; }
.swagger-ui .info .title small { background: #4a525c; }
.swagger-ui .info .title small.version-stamp { background: #1e7b34; }
.swagger-ui .btn.authorize { color: #1e7b34; border-color: #1e7b34; }
.swagger-ui .btn.authorize svg { fill: #1e7b34; color: #1e7b34; }
.swagger-ui .btn.cancel { color: #b42318; border-color: #b42318; }
.swagger-ui .btn.execute { background-color: #0b57d0; border-color: #0b57d0; }
.swagger-ui .json-schema-2020-12-expand-deep-button { color: #4a525c; }
.swagger-ui .parameter__in, .swagger-ui .parameter__deprecated { color: #4a525c; }
.swagger-ui .download-contents { background: #4a525c; }
.swagger-ui .highlight-code > .microlight { overflow: visible !important; max-height: none !important; }
.swagger-ui .highlight-code > .microlight code { white-space: pre-wrap !important; overflow-wrap: anywhere; }
`;

/** Where the page loads NAME_UNNAMED_CONTROLS from, relative to /docs/ (a file: the page's CSP runs no inline script). */
export const DOCS_SCRIPT_FILE = 'docs-accessibility.js';

/**
 * The script the page loads after Swagger UI: names the controls Swagger UI renders without one (the servers list, and in
 * "Try it out" the request body editor and the parameters' fields), now and whenever they appear. Plain JavaScript source, not a function's text:
 * a transpiler's helpers (tsx's __name) would be undefined in the browser.
 */
export const NAME_UNNAMED_CONTROLS = `(function () {
  var names = [
    ['select#servers', 'Server'],
    ['textarea.body-param__text', 'Request body (JSON)'],
  ];
  function name() {
    names.forEach(function (entry) {
      document.querySelectorAll(entry[0] + ':not([aria-label])').forEach(function (control) {
        control.setAttribute('aria-label', entry[1]);
      });
    });
    // A parameter's value in "Try it out" (a list of its allowed values, a text field): named after the parameter.
    document.querySelectorAll('tr[data-param-name]').forEach(function (row) {
      row.querySelectorAll('select:not([aria-label]), input:not([aria-label]), textarea:not([aria-label])').forEach(
        function (control) {
          control.setAttribute('aria-label', row.dataset.paramName + ' (' + row.dataset.paramIn + ')');
        },
      );
    });
  }
  name();
  new MutationObserver(name).observe(document.body, { childList: true, subtree: true });
})();
`;
