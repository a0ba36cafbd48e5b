// slm dashboard: the little behaviour the pages have. Everything works without it.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  // "Show closest matches" answers at once, as the CLI's --show-weak would.
  for (const box of document.querySelectorAll('form.search input[name="weak"]')) {
    box.addEventListener("change", () => box.form.submit());
  }
});
