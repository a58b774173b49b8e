// satasim.htmlreport: the pages' behaviour (the run report's timeline and log filters, the
// suite index's plot and row filters). Sets <body data-ready="1"> when everything is drawn.
(function () {
  'use strict';
  function $(id) { return document.getElementById(id); }
  function json(id) { var el = $(id); return el ? JSON.parse(el.textContent) : null; }
  var config = {responsive: true, displaylogo: false, scrollZoom: true};

  function xaxes(layout) {
    return Object.keys(layout).filter(function (k) { return /^xaxis\d*$/.test(k); });
  }

  function timeline() {
    var el = $('timeline'), fig = json('timeline-data');
    if (!el || !fig) return;
    var probe = json('probe-data'), tEnd = parseFloat(el.getAttribute('data-t-end')) || 1;
    var layout = fig.layout;
    if (probe) {
      layout.shapes = (layout.shapes || []).concat([{type: 'rect', xref: 'x', yref: 'paper', x0: 0,
        x1: probe.end_s, y0: 0, y1: 1, fillcolor: 'rgba(120,120,120,0.10)', line: {width: 0}, layer: 'below'}]);
      if (probe.collapsed) {
        xaxes(layout).forEach(function (k) { layout[k].range = [probe.end_s, tEnd]; layout[k].autorange = false; });
      }
    }
    Plotly.newPlot(el, fig.data, layout, config);
    function range(r) {
      var upd = {};
      xaxes(el.layout).forEach(function (k) { upd[k + '.range'] = r; upd[k + '.autorange'] = false; });
      return Plotly.relayout(el, upd);
    }
    var toggle = $('probe-toggle');
    if (toggle && probe) {
      toggle.addEventListener('click', function () {
        var collapsed = toggle.getAttribute('data-collapsed') === 'yes';
        range(collapsed ? [0, tEnd] : [probe.end_s, tEnd]);
        toggle.setAttribute('data-collapsed', collapsed ? 'no' : 'yes');
        toggle.textContent = toggle.textContent.replace(collapsed ? /^Show/ : /^Hide/, collapsed ? 'Hide' : 'Show');
      });
    }
    var all = $('zoom-all');
    if (all) all.addEventListener('click', function () { range([0, tEnd]); });
  }

  var RANK = {err: 0, warn: 1, info: 2};
  function logFilters() {
    var log = $('log');
    if (!log) return;
    var items = Array.prototype.slice.call(log.querySelectorAll('.lg'));
    var port = $('f-port'), dev = $('f-dev'), lvl = $('f-lvl'), text = $('f-text'), count = $('log-count');
    function has(el, attr, v) { return !v || (' ' + el.getAttribute(attr) + ' ').indexOf(' ' + v + ' ') >= 0; }
    function apply() {
      var n = 0, want = RANK[lvl.value], q = text.value.toLowerCase();
      items.forEach(function (el) {
        var show = has(el, 'data-port', port.value) && has(el, 'data-dev', dev.value) &&
          RANK[el.getAttribute('data-lvl')] <= want && (!q || el.textContent.toLowerCase().indexOf(q) >= 0);
        el.style.display = show ? '' : 'none';
        if (show) n++;
      });
      count.textContent = String(n);
    }
    [port, dev, lvl].forEach(function (s) { s.addEventListener('change', apply); });
    text.addEventListener('input', apply);
    apply();
  }

  function index() {
    var el = $('index-plot'), fig = json('index-plot-data');
    if (el && fig) Plotly.newPlot(el, fig.data, fig.layout, config);
    var table = $('scenarios');
    if (!table) return;
    var rows = Array.prototype.slice.call(table.tBodies[0].rows), v = $('f-verdict'), q = $('f-row');
    function apply() {
      var t = q.value.toLowerCase();
      rows.forEach(function (r) {
        r.style.display = (!v.value || r.getAttribute('data-verdict') === v.value) &&
          (!t || r.textContent.toLowerCase().indexOf(t) >= 0) ? '' : 'none';
      });
    }
    v.addEventListener('change', apply);
    q.addEventListener('input', apply);
  }

  // #selftest (harness/tests/test_html_report_browser.py): works the controls as a user
  // would and writes what they did into <body data-selftest>.
  function selftest() {
    var out = [], done = Promise.resolve();
    var el = $('timeline'), toggle = $('probe-toggle');
    if (el && toggle) {
      var r0 = el.layout.xaxis.range.slice();
      toggle.click();
      done = Promise.resolve().then(function () {
        var r1 = el.layout.xaxis.range;
        out.push('probe=' + r0[0].toFixed(6) + '>' + r1[0].toFixed(6));
      });
    }
    var log = $('log');
    if (log) {
      var count = $('log-count'), lvl = $('f-lvl'), dev = $('f-dev');
      function set(sel, v) { sel.value = v; sel.dispatchEvent(new Event('change')); return count.textContent; }
      out.push('all=' + count.textContent, 'err=' + set(lvl, 'err'), 'warn=' + set(lvl, 'warn'));
      set(lvl, 'info');
      Array.prototype.slice.call(dev.options, 1).forEach(function (o) { out.push(o.value + '=' + set(dev, o.value)); });
      set(dev, '');
    }
    var v = $('f-verdict');
    if (v) {
      var rows = $('scenarios').tBodies[0].rows;
      function shown() { return Array.prototype.filter.call(rows, function (r) { return r.style.display !== 'none'; }).length; }
      out.push('rows=' + shown());
      v.value = 'fail'; v.dispatchEvent(new Event('change'));
      out.push('failed=' + shown());
    }
    return done.then(function () { document.body.setAttribute('data-selftest', out.join(' ')); });
  }

  try {
    if (typeof Plotly === 'undefined') throw new Error('plotly.js did not load');
    timeline();
    index();
  } finally {
    logFilters();
    if (location.hash === '#selftest') selftest(); else document.body.setAttribute('data-ready', '1');
  }
  if (location.hash === '#selftest') {
    // ready once the self-test has written its result
    new MutationObserver(function (m, obs) {
      if (document.body.hasAttribute('data-selftest')) { obs.disconnect(); document.body.setAttribute('data-ready', '1'); }
    }).observe(document.body, {attributes: true});
  }
})();
