// jetjobs pages: the whole client side, vendored (no CDN, no build step).
// - [data-refresh=URL][data-every=MS]: re-fetch that HTML fragment and swap it in, without a
//   reload; paused while the tab is hidden, while focus is inside the element, and while a field
//   inside it holds an unsaved edit.
// - [data-copy=ID]: copy the text of element ID to the clipboard.
// - .bar[data-w=N]: a bar N% wide (set here: the page's CSP forbids inline style attributes).
"use strict";

function paintBars(root) {
  root.querySelectorAll(".bar[data-w]").forEach(function (el) {
    el.style.width = Math.max(0, Math.min(100, Number(el.dataset.w))) + "%";
  });
}

function edited(el) {
  return Array.prototype.some.call(el.querySelectorAll("textarea, input[type=text]"), function (f) {
    return f.value !== f.defaultValue;
  });
}

function refresh(el) {
  if (document.hidden || el.contains(document.activeElement) || edited(el)) return Promise.resolve();
  return fetch(el.dataset.refresh, { headers: { "X-Fragment": "1" }, credentials: "same-origin" })
    .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
    .then(function (html) {
      if (el.contains(document.activeElement) || edited(el)) return;
      el.innerHTML = html;  // server-rendered and escaped by the templates
      el.dataset.refreshedAt = String(Date.now());
      el.classList.remove("offline");
      paintBars(el);
      el.dispatchEvent(new CustomEvent("refreshed", { bubbles: true }));
    })
    .catch(function () { el.classList.add("offline"); });
}

function copy(button) {
  var source = document.getElementById(button.dataset.copy);
  if (!source) return;
  var text = "value" in source ? source.value : source.textContent;
  var done = function () {
    var label = button.textContent;
    button.textContent = "Copied";
    setTimeout(function () { button.textContent = label; }, 1200);
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, function () {});
  } else {
    source.select && source.select();
    document.execCommand("copy");
    done();
  }
}

document.addEventListener("DOMContentLoaded", function () {
  paintBars(document);
  document.querySelectorAll("[data-refresh]").forEach(function (el) {
    var every = Number(el.dataset.every || 2000);
    var tick = function () { refresh(el).finally(function () { setTimeout(tick, every); }); };
    setTimeout(tick, every);
  });
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-copy]");
    if (button) { event.preventDefault(); copy(button); }
  });
});
