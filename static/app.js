// Keyboard use on practice questions: 1-9 pick a choice, Enter checks (the form's default);
// once answered, Enter, n or the right arrow go on as the "Next question" link does.
// Everything works without this file; it only adds shortcuts and focus handling.
(function () {
  "use strict";

  // Keys typed into a text box (the header's search too) are text, not shortcuts.
  function typesText(target) {
    if (!target) return false;
    if (target.isContentEditable || target.tagName === "TEXTAREA" || target.tagName === "SELECT") return true;
    return target.tagName === "INPUT" && !/^(radio|checkbox|button|submit|reset)$/.test(target.type);
  }

  function activeForm() {
    return document.querySelector("form[data-choice-keys]");
  }

  // Enter on a link or a button is theirs; elsewhere (the result heading, the page) it goes on.
  function goesOn(event) {
    if (event.key === "Enter") return !event.target.closest("a, button, input, select, textarea, summary");
    return event.key === "n" || event.key === "N" || event.key === "ArrowRight";
  }

  function showHints() {
    document.querySelectorAll("[data-next-hint]").forEach(function (hint) { hint.hidden = false; });
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var target = event.target;
    if (typesText(target)) return;
    var next = document.querySelector("a[data-next-key]");
    if (next && goesOn(event)) {
      event.preventDefault();
      next.click();
      return;
    }
    var form = activeForm();
    if (!form || form.querySelector("fieldset[disabled]")) return;
    if (/^[1-9]$/.test(event.key)) {
      var inputs = form.querySelectorAll("input[name=choice]");
      var input = inputs[Number(event.key) - 1];
      if (!input) return;
      input.checked = input.type === "radio" ? true : !input.checked;
      input.dispatchEvent(new Event("change", { bubbles: true }));  // exam pages save on change
      input.focus();
      event.preventDefault();
    } else if (event.key === "Enter" && target === document.body) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  // A form that came back with an error puts focus on the message, so it is read out first.
  document.addEventListener("DOMContentLoaded", function () {
    showHints();
    var error = document.getElementById("form-error") || document.querySelector("[aria-invalid=true]");
    if (error) error.focus();
  });

  // The browser's time zone goes with log-in and sign-up (an account without one takes it),
  // and the account page offers it while the account has none. Without this file the
  // account page's list sets it.
  document.addEventListener("DOMContentLoaded", function () {
    var zone = "";
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return; }
    document.querySelectorAll("input[data-browser-zone]").forEach(function (input) {
      input.value = zone;
    });
    document.querySelectorAll("select[data-browser-zone]").forEach(function (select) {
      var option = Array.prototype.find.call(select.options, function (o) { return o.value === zone; });
      if (option) option.selected = true;
    });
  });

  // After htmx shows a result, move focus to it so keyboard and screen-reader users land there.
  document.addEventListener("htmx:afterSwap", function (event) {
    showHints();
    var heading = event.detail.target && document.getElementById("result-heading");
    if (heading) heading.focus();
    var error = document.querySelector(".form-error");
    if (!heading && error) {
      var first = document.querySelector("input[name=choice]");
      if (first) first.focus();
    }
  });
})();
