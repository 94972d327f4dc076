// The review page's own script (vendored, no build step), beside the platform's jetjobs.js.
// - [data-poll=URL]: refresh that fragment with a conditional request (If-None-Match: the last
//   ETag; an unchanged fragment answers 304 and nothing is swapped). How often follows the
//   server's X-Poll answer: "run" (a run goes on) every data-run-every ms, "job" (a draft this
//   page asked for has not landed) every data-job-every ms, "idle" every data-idle-every ms.
//   Never while the tab is hidden (one check when it shows again), never over an unsaved edit.
// - form[data-guard]: leaving the page with an unsaved edit in one asks first (beforeunload);
//   form[data-dirty] counts as edited from the start (the conflict page's own version), and
//   submitting a form[data-discard] leaves without asking (the person chose to drop their edit).
"use strict";

(function () {
  function fieldEdited(f) {
    if (f.tagName === "SELECT") {  // a select without a `selected` option starts on its first
      var first = Array.prototype.findIndex.call(f.options, function (o) { return o.defaultSelected; });
      return f.selectedIndex !== Math.max(first, 0);
    }
    return (f.tagName === "TEXTAREA" || f.type === "text") && f.value !== f.defaultValue;
  }

  function edited(root) {
    return Array.prototype.some.call(root.querySelectorAll("textarea, input[type=text], select"), fieldEdited);
  }

  function typingIn(el) {
    var a = document.activeElement;
    return a && el.contains(a) && /^(TEXTAREA|INPUT|SELECT)$/.test(a.tagName);
  }

  function Poller(el) {
    this.el = el;
    this.etag = el.dataset.etag || "";
    this.timer = null;
    this.busy = false;
    el.dataset.asked = "0";  // requests made
    el.dataset.checks = "0";  // answers had (200 or 304)
  }

  Poller.prototype.every = function () {
    var mode = this.el.dataset.mode || "idle";
    return Number(this.el.dataset[mode + "Every"] || this.el.dataset.idleEvery || 60000);
  };

  Poller.prototype.schedule = function () {
    var self = this;
    clearTimeout(this.timer);
    this.timer = setTimeout(function () { self.check(); }, this.every());
  };

  Poller.prototype.check = function () {
    var self = this, el = this.el;
    if (document.hidden) { clearTimeout(this.timer); return; }  // the visibility change resumes it
    if (this.busy) return;
    if (typingIn(el) || edited(el)) { this.schedule(); return; }
    this.busy = true;
    el.dataset.asked = String(Number(el.dataset.asked || 0) + 1);
    var headers = { "X-Fragment": "1" };
    if (this.etag) headers["If-None-Match"] = this.etag;
    fetch(el.dataset.poll, { headers: headers, credentials: "same-origin", cache: "no-store" })
      .then(function (r) {
        el.dataset.mode = r.headers.get("X-Poll") || el.dataset.mode;
        if (r.status === 304) return null;
        if (!r.ok) return Promise.reject(r.status);
        var etag = r.headers.get("ETag") || "";
        return r.text().then(function (html) { return { html: html, etag: etag }; });
      })
      .then(function (fresh) {
        el.classList.remove("offline");
        el.dataset.checks = String(Number(el.dataset.checks) + 1);
        if (fresh && !(typingIn(el) || edited(el))) {
          el.innerHTML = fresh.html;  // server-rendered and escaped by the templates
          self.etag = fresh.etag;
          el.dataset.refreshedAt = String(Date.now());
          el.dispatchEvent(new CustomEvent("refreshed", { bubbles: true }));
        }
      })
      .catch(function () { el.classList.add("offline"); })
      .finally(function () { self.busy = false; self.schedule(); });
  };

  var pollers = [];
  var submitted = null;  // the form being submitted: its own edit is not lost by leaving

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-poll]").forEach(function (el) {
      var p = new Poller(el);
      pollers.push(p);
      p.schedule();
    });
  });

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) pollers.forEach(function (p) { p.check(); });
  });

  document.addEventListener("submit", function (event) { submitted = event.target; }, true);

  window.addEventListener("beforeunload", function (event) {
    var discarding = submitted && submitted.hasAttribute("data-discard");  // "keep the newer version"
    var unsaved = !discarding && Array.prototype.some.call(document.querySelectorAll("form[data-guard]"), function (form) {
      return form !== submitted && (form.hasAttribute("data-dirty") || edited(form));
    });
    submitted = null;
    if (unsaved) {
      event.preventDefault();
      event.returnValue = "";  // older browsers need a value to ask
    }
  });
})();
