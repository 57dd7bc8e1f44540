// Live updates for the dashboard of recent checks: listens to the server-sent events named in
// icarus/web/dashboard.py and updates or inserts the check's row. Text only (no innerHTML), so event
// data can never inject markup. Without EventSource the page still works; it just does not update.
(function () {
  "use strict";
  var body = document.body;
  var source = body.getAttribute("data-events");
  var status = document.getElementById("live-status");
  var rows = document.getElementById("checks");
  var labels = JSON.parse(document.getElementById("labels").textContent);
  var reportTemplate = body.getAttribute("data-report");
  if (!source || !window.EventSource || !rows) { return; }

  function say(text) { if (status) { status.textContent = text; } }

  function cell(name) {
    var td = document.createElement("td");
    td.className = "c-" + name;
    return td;
  }

  function badge(label, band) {
    var known = labels[label] || labels.pending;
    var span = document.createElement("span");
    span.className = "badge label-" + (labels[label] ? label : "pending");
    var symbol = document.createElement("span");
    symbol.className = "symbol";
    symbol.setAttribute("aria-hidden", "true");
    symbol.textContent = known.symbol;
    var heading = document.createElement("span");
    heading.className = "heading";
    heading.textContent = known.heading;
    span.appendChild(symbol);
    span.appendChild(document.createTextNode(" "));
    span.appendChild(heading);
    if (band) {
      var b = document.createElement("span");
      b.className = "band";
      b.textContent = " \u00b7 confidence " + band;
      span.appendChild(b);
    }
    return span;
  }

  function rowFor(data) {
    var found = rows.querySelector('tr[data-check-id="' + CSS.escape(data.check_id) + '"]');
    if (found) { return found; }
    var tr = document.createElement("tr");
    tr.setAttribute("data-check-id", data.check_id);
    ["check", "subject", "label", "version", "asof", "status"].forEach(function (n) { tr.appendChild(cell(n)); });
    var link = document.createElement("a");
    link.href = reportTemplate.replace("{check_id}", encodeURIComponent(data.check_id));
    link.textContent = data.check_id.slice(0, 12);
    tr.querySelector(".c-check").appendChild(link);
    tr.querySelector(".c-label").appendChild(badge(null, null));
    tr.querySelector(".c-version").textContent = "\u2014";
    tr.querySelector(".c-asof").textContent = "\u2014";
    rows.insertBefore(tr, rows.firstChild);
    var empty = document.getElementById("empty");
    if (empty) { empty.hidden = true; }
    return tr;
  }

  // As dashboard.subject_label words it: a text's id is a content hash and means nothing to a reader.
  function subjectLabel(kind, id) {
    if (kind === "text") { return "Text"; }
    if (kind === "x_post") { return "X post " + id; }
    var shown = id.length <= 60 ? id : id.slice(0, 59) + "\u2026";
    var words = kind === "url" ? "URL" : kind.replace(/_/g, " ");
    return (words.charAt(0).toUpperCase() + words.slice(1) + " " + shown).trim();
  }

  function apply(event) {
    var data;
    try { data = JSON.parse(event.data); } catch (e) { return; }
    if (!data || typeof data.check_id !== "string") { return; }
    var tr = rowFor(data);
    if (data.subject_kind || data.subject_id) {
      tr.querySelector(".c-subject").textContent = subjectLabel(String(data.subject_kind || ""), String(data.subject_id || ""));
    }
    var state = data.status || data.state;  // "state" is what the API's `status` event carries
    if (state) { tr.querySelector(".c-status").textContent = state; }
    if (data.label) {
      var labelCell = tr.querySelector(".c-label");
      labelCell.textContent = "";
      labelCell.appendChild(badge(data.label, data.band));
    }
    if (data.version) { tr.querySelector(".c-version").textContent = String(data.version); }
    if (data.as_of) {
      var asof = tr.querySelector(".c-asof");
      asof.textContent = "";
      var time = document.createElement("time");
      time.setAttribute("datetime", data.as_of);
      time.textContent = String(data.as_of).replace("T", " ").replace(/:\d\d(\.\d+)?(Z|\+00:00)$/, " UTC");
      asof.appendChild(time);
    }
    tr.classList.remove("updated");
    void tr.offsetWidth;  // restart the highlight
    tr.classList.add("updated");
    say("Live: check " + data.check_id.slice(0, 12) + " " + (data.label ? (labels[data.label] || {}).heading || data.label : state || "updated") + ".");
  }

  var events = new EventSource(source);
  events.onopen = function () { say("Live updates are on."); };
  events.onerror = function () { say("Live updates paused; reconnecting."); };
  ["check.created", "check.status", "version.created", "status", "version"].forEach(function (name) {
    events.addEventListener(name, apply);
  });
})();
