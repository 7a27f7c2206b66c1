// Exam pages: the countdown (the server says how many seconds are left; this only shows them,
// warns at 5 and 1 minute left, and submits the exam when the time is up), and keys n/p to go
// on or back and f to flag.
(function () {
  "use strict";

  var WARNINGS = [[300, "5 minutes left."], [60, "1 minute left."]];

  function clock(seconds) {
    var minutes = Math.floor(seconds / 60);
    var rest = seconds % 60;
    return minutes + ":" + (rest < 10 ? "0" : "") + rest;
  }

  // Submit once no answer is on its way (a choice is saved as it is made), so none is lost.
  function submitWhenSaved(form) {
    if (document.querySelector(".htmx-request")) {
      document.addEventListener("htmx:afterRequest", function () { submitWhenSaved(form); }, { once: true });
    } else {
      form.submit();
    }
  }

  function startCountdown() {
    var box = document.querySelector("[data-countdown]");
    if (!box) return;
    var shown = box.querySelector(".countdown-time");
    var message = document.querySelector("[data-countdown-announce]");
    var submit = document.querySelector("form[data-countdown-submit]");
    var atStart = Number(box.getAttribute("data-countdown"));
    var endsAt = Date.now() + atStart * 1000;
    var warned = {};
    function say(text) {
      if (message && message.textContent !== text) message.textContent = text;
    }
    function tick() {
      var left = Math.max(0, Math.round((endsAt - Date.now()) / 1000));
      shown.textContent = clock(left);
      WARNINGS.forEach(function (warning) {
        if (left <= warning[0] && left > 0 && atStart > warning[0] && !warned[warning[0]]) {
          warned[warning[0]] = true;
          box.classList.add("is-warning");
          say(warning[1]);
        }
      });
      if (left > 0) {
        window.setTimeout(tick, 1000);
        return;
      }
      box.classList.add("is-over");
      say(submit ? "Time is up. Submitting your exam…" : "Time is up.");
      // A second later: the page's count rounds down, so the server's deadline has passed.
      if (submit) window.setTimeout(function () { submitWhenSaved(submit); }, 1000);
    }
    tick();
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var target = event.target;
    if (target && (target.tagName === "TEXTAREA" || (target.tagName === "INPUT" && target.type === "text"))) return;
    var form = document.querySelector("form[data-exam-form]");
    if (!form) return;
    var key = event.key.toLowerCase();
    if (key === "n" || key === "p") {
      var button = form.querySelector("[data-go=" + (key === "n" ? "next" : "prev") + "]");
      if (button) { event.preventDefault(); form.requestSubmit(button); }
    } else if (key === "f") {
      var flag = form.querySelector("[data-flag]");
      if (flag) {
        event.preventDefault();
        flag.checked = !flag.checked;
        flag.dispatchEvent(new Event("change", { bubbles: true }));
      }
    }
  });

  document.addEventListener("DOMContentLoaded", startCountdown);
})();
