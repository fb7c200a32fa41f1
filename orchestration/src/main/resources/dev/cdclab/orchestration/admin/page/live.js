// The live page: polls /live.json every second and redraws its charts and counts. Each chart
// keeps the number of points it drew in its data-points attribute, and the body counts the
// refreshes in data-refreshes, so a test can read from the DOM what the page shows.
(function () {
  "use strict";
  var STAGES = ["capture", "kafka", "net_change", "warehouse"];
  var COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd"];
  var charts = {};
  var refreshes = 0;

  function fmt(n) {
    return n === null || n === undefined ? "-" : Number(n).toLocaleString("en-US");
  }

  function series(labels) {
    var s = [{}];
    labels.forEach(function (label, i) {
      s.push({ label: label, stroke: COLORS[i % COLORS.length], width: 1.5, spanGaps: false });
    });
    return s;
  }

  function draw(id, labels, data) {
    var el = document.getElementById(id);
    var width = Math.max(320, el.clientWidth || 560);
    if (!charts[id]) {
      charts[id] = new uPlot(
        {
          width: width,
          height: 220,
          series: series(labels),
          axes: [{}, { size: 60 }],
          // counts and latencies start at zero, so a flat line reads as flat
          scales: { y: { range: function (u, min, max) { return [0, max > 0 ? max * 1.1 : 1]; } } }
        },
        data,
        el
      );
    } else {
      charts[id].setData(data);
    }
    var drawn = 0;
    for (var i = 1; i < data.length; i++) {
      data[i].forEach(function (v) {
        if (v !== null && v !== undefined) drawn++;
      });
    }
    el.dataset.points = String(drawn);
  }

  function column(points, f) {
    return points.map(function (p) {
      var v = f(p);
      return v === undefined ? null : v;
    });
  }

  function render(d) {
    document.getElementById("run").textContent = d.run || "";
    var points = d.points || [];
    var t = column(points, function (p) { return p.t; });
    if (d.stages_outside) {
      document.getElementById("state").textContent =
        "the Streams app or the sink runs in a process of its own; their metrics are on their own admin URLs";
    } else {
      var last = points.length ? points[points.length - 1] : null;
      document.getElementById("state").textContent = last
        ? "updated " + new Date(last.t * 1000).toLocaleTimeString() + ", one point a second, last " +
          Math.round(points.length / 60 * 10) / 10 + " min"
        : "waiting for the pipeline's first sample ...";
    }
    draw("chart-latency", ["p50", "p99"], [
      t,
      column(points, function (p) { return p.p50_ms; }),
      column(points, function (p) { return p.p99_ms; })
    ]);
    draw("chart-stages", STAGES, [t].concat(STAGES.map(function (s) {
      return column(points, function (p) { return p.stage_p50_ms ? p.stage_p50_ms[s] : null; });
    })));
    draw("chart-rate", ["captured/s", "applied/s"], [
      t,
      column(points, function (p) { return p.captured_per_s; }),
      column(points, function (p) { return p.applied_per_s; })
    ]);
    draw("chart-backlog", ["backlog s"], [t, column(points, function (p) { return p.backlog_s; })]);
    var totals = d.totals || {};
    Object.keys(totals).forEach(function (k) {
      var el = document.getElementById("t-" + k);
      if (el) el.textContent = fmt(totals[k]);
    });
    if (d.latency) {
      document.getElementById("t-latency").textContent =
        d.latency.count ? fmt(d.latency.p50_ms) + " / " + fmt(d.latency.p99_ms) + " ms" : "-";
    }
    var body = document.querySelector("#tables tbody");
    body.textContent = "";
    (d.tables || []).forEach(function (r) {
      var tr = document.createElement("tr");
      tr.dataset.table = r.table;
      [r.table, fmt(r.captured), fmt(r.applied), fmt(r.net_applied), fmt(r.keys_cancelled)]
        .forEach(function (v, i) {
          var td = document.createElement("td");
          td.textContent = v;
          if (i > 0) td.dataset.column = ["captured", "applied", "net_applied", "keys_cancelled"][i - 1];
          tr.appendChild(td);
        });
      body.appendChild(tr);
    });
    refreshes++;
    document.body.dataset.refreshes = String(refreshes);
  }

  // the token is in this page's address (#token=...), which the browser sends nowhere and a page
  // of another site cannot read; kept for this tab only, and out of the address bar
  var token = (function () {
    var m = /[#&]token=([^&]+)/.exec(window.location.hash);
    if (m) {
      sessionStorage.setItem("cdclab-token", decodeURIComponent(m[1]));
      history.replaceState(null, "", window.location.pathname);
    }
    return sessionStorage.getItem("cdclab-token") || "";
  })();

  function refresh() {
    fetch("/live.json", { cache: "no-store", headers: { "Authorization": "Bearer " + token } })
      .then(function (r) {
        if (r.status === 401) {
          throw new Error("open the page from the address 'cdc-lab up' printed: it holds the token");
        }
        return r.json();
      })
      .then(render)
      .catch(function (e) {
        document.getElementById("state").textContent = "the pipeline does not answer (" + e + ")";
      });
  }

  refresh();
  setInterval(refresh, 1000);
})();
