// jetjobs pages: the whole client side, vendored (no CDN, no build step).
// - [data-refresh=URL][data-every=MS]: re-fetch that HTML fragment every MS milliseconds and swap
//   it in, without a reload. Each element keeps its own schedule. The request sends back the
//   fragment's last ETag (If-None-Match; the first from [data-etag]): a "304 Not Modified"
//   leaves the element as it is. Skipped while focus is inside the element or a field inside
//   it holds an unsaved edit.
// - In a hidden tab nothing is fetched and no timer runs (Page Visibility API); when the tab shows
//   again, every element refreshes at once and its schedule resumes. <html data-polling> says
//   which ("on" or "off").
// - <time datetime=ISO data-show=ago|clock>: shown in the browser's time zone, "07:31, 4 min ago"
//   or "07:31" (with the date when not today); the age is kept current here, not by the server.
// - [data-copy=ID]: copy the text of element ID to the clipboard.
// - .bar[data-w=N]: a bar N% wide (set here: the page's CSP forbids inline style attributes).
"use strict";

var AGE_EVERY = 15000;
var pollers = [];

function paintBars(root) {
  root.querySelectorAll(".bar[data-w]").forEach(function (el) {
    el.style.width = Math.max(0, Math.min(100, Number(el.dataset.w))) + "%";
  });
}

function pad(n) { return (n < 10 ? "0" : "") + n; }

function clockOf(moment, now) {
  var text = pad(moment.getHours()) + ":" + pad(moment.getMinutes());
  if (moment.toDateString() !== now.toDateString()) {
    text = moment.toLocaleDateString(undefined, { month: "short", day: "numeric" }) + ", " + text;
  }
  return text;
}

function ageOf(moment, now) {
  var seconds = Math.round((now - moment) / 1000);
  if (Math.abs(seconds) < 5) return "just now";
  var ahead = seconds < 0;
  seconds = Math.abs(seconds);
  var text;
  if (seconds < 60) text = seconds + " s";
  else if (seconds < 3600) text = Math.floor(seconds / 60) + " min";
  else if (seconds < 86400) text = Math.floor(seconds / 3600) + " h";
  else { var days = Math.floor(seconds / 86400); text = days + (days === 1 ? " day" : " days"); }
  return ahead ? "in " + text : text + " ago";
}

function showTimes(root) {
  var now = new Date();
  root.querySelectorAll("time[datetime][data-show]").forEach(function (el) {
    var moment = new Date(el.getAttribute("datetime"));
    if (isNaN(moment)) return;
    if (!el.title) el.title = moment.toString();
    var text = clockOf(moment, now);
    if (el.dataset.show === "ago") text += ", " + ageOf(moment, now);
    if (el.textContent !== text) el.textContent = text;
  });
}

function edited(el) {
  return Array.prototype.some.call(el.querySelectorAll("textarea, input[type=text]"), function (f) {
    return f.value !== f.defaultValue;
  });
}

function refresh(poller) {
  var el = poller.el;
  if (document.hidden || el.contains(document.activeElement) || edited(el)) return Promise.resolve();
  var headers = { "X-Fragment": "1" };
  if (poller.etag) headers["If-None-Match"] = poller.etag;
  return fetch(el.dataset.refresh, { headers: headers, credentials: "same-origin", cache: "no-store" })
    .then(function (r) {
      el.classList.remove("offline");
      if (r.status === 304) return null;
      if (!r.ok) return Promise.reject(r.status);
      poller.etag = r.headers.get("ETag") || "";
      return r.text();
    })
    .then(function (html) {
      if (html === null || el.contains(document.activeElement) || edited(el)) return;
      el.innerHTML = html;  // server-rendered and escaped by the templates
      el.dataset.refreshedAt = String(Date.now());
      paintBars(el);
      showTimes(el);
      el.dispatchEvent(new CustomEvent("refreshed", { bubbles: true }));
    })
    .catch(function () { el.classList.add("offline"); });
}

function schedule(poller, delay) {
  clearTimeout(poller.timer);
  poller.timer = null;
  if (document.hidden || !(poller.every > 0)) return;
  poller.timer = setTimeout(function () {
    poller.timer = null;
    refresh(poller).finally(function () { schedule(poller, poller.every); });
  }, delay);
}

var ageTimer = null;

function tickAges() {
  clearTimeout(ageTimer);
  ageTimer = null;
  if (document.hidden) return;
  showTimes(document);
  ageTimer = setTimeout(tickAges, AGE_EVERY);
}

function visibilityChanged() {
  document.documentElement.dataset.polling = document.hidden ? "off" : "on";
  if (document.hidden) {
    pollers.forEach(function (p) { clearTimeout(p.timer); p.timer = null; });
    clearTimeout(ageTimer);
    ageTimer = null;
    return;
  }
  tickAges();
  pollers.forEach(function (p) {
    if (p.every > 0) refresh(p).finally(function () { schedule(p, p.every); });
  });
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
    var poller = { el: el, every: Number(el.dataset.every || 2000), etag: el.dataset.etag || "", timer: null };
    pollers.push(poller);
    schedule(poller, poller.every);
  });
  document.documentElement.dataset.polling = document.hidden ? "off" : "on";
  tickAges();
  document.addEventListener("visibilitychange", visibilityChanged);
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-copy]");
    if (button) { event.preventDefault(); copy(button); }
  });
});
