// Exam pages: the countdown (the server says how many seconds are left; this only shows them
// and announces 5 and 1 minute left), and keys n/p to go on or back and f to flag.
(function () {
  "use strict";

  function clock(seconds) {
    var minutes = Math.floor(seconds / 60);
    var rest = seconds % 60;
    return minutes + ":" + (rest < 10 ? "0" : "") + rest;
  }

  function startCountdown() {
    var box = document.querySelector("[data-countdown]");
    if (!box) return;
    var shown = box.querySelector(".countdown-time");
    var announce = document.querySelector("[data-countdown-announce]");
    var endsAt = Date.now() + Number(box.getAttribute("data-countdown")) * 1000;
    var warned = {};
    function tick() {
      var left = Math.max(0, Math.round((endsAt - Date.now()) / 1000));
      shown.textContent = clock(left);
      [[300, "5 minutes left."], [60, "1 minute left."], [0, "Time is up."]].forEach(function (warning) {
        if (left <= warning[0] && !warned[warning[0]] && Number(box.getAttribute("data-countdown")) > warning[0]) {
          warned[warning[0]] = true;
          box.classList.add(warning[0] === 0 ? "is-over" : "is-warning");
          if (announce) announce.textContent = warning[1];
        }
      });
      if (left > 0) window.setTimeout(tick, 1000);
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
