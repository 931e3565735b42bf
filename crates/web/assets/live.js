// Live updates without a reload: the server pushes the board's generation on /events whenever
// ratings change; every element marked data-live="NAME" is then re-fetched from the same page as
// `?fragment=NAME` (server-rendered, escaped HTML) and swapped in. No framework, no other host.
(function () {
  'use strict';
  var live = document.querySelectorAll('[data-live]');
  if (!live.length || !window.EventSource) return;
  var body = document.body;
  var busy = false;
  var again = false;

  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    var jobs = Array.prototype.map.call(live, function (el) {
      var url = location.pathname + '?fragment=' + encodeURIComponent(el.dataset.live);
      return fetch(url, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
        .then(function (r) {
          if (!r.ok) throw new Error('HTTP ' + r.status);
          return r.text();
        })
        .then(function (html) { el.innerHTML = html; });
    });
    Promise.all(jobs).catch(function () {}).then(function () {
      busy = false;
      body.dataset.refreshed = String(Date.now());
      if (again) { again = false; refresh(); }
    });
  }

  var source = new EventSource('/events');
  source.addEventListener('board', function (e) {
    if (e.data === body.dataset.generation) return;
    body.dataset.generation = e.data;
    refresh();
  });
})();
