// Marks a note as read once the learner has scrolled to its end. The page's "Mark as read"
// button does the same without JavaScript; this only saves the click.
(function () {
  "use strict";

  function markRead(form) {
    var section = document.getElementById("note-read");
    fetch(form.action, { method: "POST", headers: { "HX-Request": "true" }, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) { if (html && section) section.outerHTML = html; })
      .catch(function () { /* the button is still there */ });
  }

  function watch(form) {
    if (!("IntersectionObserver" in window)) return;
    var observer = new IntersectionObserver(function (entries) {
      if (!entries.some(function (entry) { return entry.isIntersecting; })) return;
      observer.disconnect();
      markRead(form);
    });
    observer.observe(form);
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.querySelector("form[data-read-at-end]");
    if (!form) return;
    // Only a learner who scrolls counts as reading to the end: a note that fits on the
    // screen, or a page opened at its last section, is not read by being opened.
    window.addEventListener("scroll", function () { watch(form); }, { once: true, passive: true });
  });
})();
