// Live updates for a debate page. Every event of the debate's feed that names a claim (a claim detected,
// a panel finished, the claim's one answer changed) makes the page fetch that claim's card again from
// the server, which renders it with the same template as the first page load (escaped there), and put it
// in place: a new claim where it was said (cards are ordered by data-order, then claim id), an open
// "See other results" kept open. Thumbs and votes are posted as
// JSON; they are recorded and never change a verdict. Without EventSource the page still reads; it just
// does not update.
(function () {
  "use strict";
  var body = document.body;
  var source = body.getAttribute("data-events");
  var cardTemplate = body.getAttribute("data-card");
  var debateId = body.getAttribute("data-debate-id");
  var list = document.getElementById("claims");
  var NAMES = (body.getAttribute("data-event-names") || "").split(" ").filter(Boolean);
  var status = document.getElementById("live-status");
  var said = document.getElementById("feedback-status");
  if (!list) { return; }

  function say(where, text) { if (where) { where.textContent = text; } }

  function cardFor(claimId) {
    return list.querySelector('article[data-claim-id="' + CSS.escape(String(claimId)) + '"]');
  }

  function placeOf(card) {
    return [parseFloat(card.getAttribute("data-order")) || 0, parseInt(card.getAttribute("data-claim-id"), 10) || 0];
  }

  // The first card said after ``fresh`` (null: it goes last).
  function nextCard(fresh) {
    var at = placeOf(fresh);
    var cards = list.querySelectorAll("article.debate-claim");
    for (var i = 0; i < cards.length; i++) {
      var other = placeOf(cards[i]);
      if (other[0] > at[0] || (other[0] === at[0] && other[1] > at[1])) { return cards[i]; }
    }
    return null;
  }

  var pending = {};
  function refresh(claimId) {
    if (pending[claimId]) { pending[claimId].again = true; return; }
    pending[claimId] = {again: false};
    var url = cardTemplate.replace("{claim_id}", encodeURIComponent(String(claimId)));
    fetch(url, {credentials: "same-origin", headers: {"Accept": "text/html"}})
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (html === null) { return; }
        var holder = document.createElement("div");
        holder.innerHTML = html;  // our own server-rendered, autoescaped card
        var fresh = holder.querySelector("article.debate-claim");
        if (!fresh) { return; }
        var old = cardFor(claimId);
        if (old) {
          var wasOpen = old.querySelector("details.others[open]");
          var details = fresh.querySelector("details.others");
          if (wasOpen && details) { details.open = true; }
          list.replaceChild(fresh, old);
        } else {
          list.insertBefore(fresh, nextCard(fresh));
          var empty = document.getElementById("empty");
          if (empty) { empty.hidden = true; }
        }
        fresh.classList.add("arrived");
        say(status, "Live: claim " + claimId + " updated.");
      })
      .catch(function () { /* the next event tries again */ })
      .then(function () {
        var again = pending[claimId] && pending[claimId].again;
        delete pending[claimId];
        if (again) { refresh(claimId); }
      });
  }

  list.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button[data-post]") : null;
    if (!button) { return; }
    var kind = button.getAttribute("data-kind");
    var value = button.getAttribute("data-value");
    var payload = kind === "vote" ? {value: value} : {kind: kind, value: value, debate_id: debateId};
    fetch(button.getAttribute("data-post"), {
      method: "POST",
      credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-Requested-With": "icarus"},
      body: JSON.stringify(payload)
    }).then(function (response) {
      if (!response.ok) { say(said, "Your feedback was not recorded (" + response.status + ")."); return; }
      var group = button.parentNode;
      Array.prototype.forEach.call(group.querySelectorAll("button"), function (b) {
        b.setAttribute("aria-pressed", b === button ? "true" : "false");
      });
      say(said, "Thank you: your feedback is recorded. It does not change the verdict.");
    }).catch(function () { say(said, "Your feedback was not recorded; try again."); });
  });

  if (!source || !window.EventSource) { return; }
  function apply(event) {
    var data;
    try { data = JSON.parse(event.data); } catch (e) { return; }
    if (data && (typeof data.claim_id === "number" || typeof data.claim_id === "string")) {
      refresh(data.claim_id);
    }
  }
  var events = new EventSource(source, {withCredentials: true});
  events.onopen = function () { say(status, "Live updates are on."); };
  events.onerror = function () { say(status, "Live updates paused; reconnecting."); };
  events.onmessage = apply;
  NAMES.forEach(function (name) { events.addEventListener(name, apply); });
})();
