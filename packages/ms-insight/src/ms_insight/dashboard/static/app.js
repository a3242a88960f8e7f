// The dashboard page: runs and lineage from /api, a run's explanations on selection.
"use strict";

const $ = (id) => document.getElementById(id);
let current = null;  // the selected run's explanation document

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : String(c));
  return e;
}

async function getJSON(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(url + ": " + r.status);
  return r.json();
}

const fmt = (v) => (v === null || v === undefined) ? "-" :
  (typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(4)) : String(v));

function fillTable(table, columns, rows) {
  table.replaceChildren(el("tr", {}, ...columns.map((c) => el("th", {}, c))));
  for (const row of rows) table.append(el("tr", {}, ...columns.map((c) => el("td", {}, fmt(row[c])))));
}

async function loadRuns() {
  const runs = await getJSON("/api/runs");
  const list = $("runs");
  list.replaceChildren();
  for (const run of runs) {
    const li = el("li", {"data-run": run.name}, run.name);
    if (run.explain) li.append(el("span", {class: "tag"}, "explain"));
    li.onclick = () => selectRun(run.name, li);
    list.append(li);
  }
  const lineage = await getJSON("/api/lineage");
  fillTable($("lineage"), ["run", ...lineage.columns], lineage.rows);
  // A link can name the run, the filters and the sample: #run=NAME&label=2&correct=wrong
  const want = new URLSearchParams(location.hash.slice(1));
  const pick = runs.find((r) => r.name === want.get("run")) || runs.find((r) => r.explain);
  if (pick) {
    await selectRun(pick.name, list.querySelector(`[data-run="${CSS.escape(pick.name)}"]`));
    if (!current) return;
    for (const [key, id] of [["label", "f-label"], ["pred", "f-pred"], ["correct", "f-correct"]]) {
      if (want.has(key)) $(id).value = want.get(key);
    }
    showSamples();
    const li = document.querySelector(`#samples li[data-id="${CSS.escape(want.get("sample") || "")}"]`);
    if (li) li.click();
  }
}

async function selectRun(name, li) {
  for (const x of document.querySelectorAll("#runs li")) x.classList.toggle("selected", x === li);
  const panel = $("explain-panel");
  try {
    current = await getJSON("/api/explain?run=" + encodeURIComponent(name));
  } catch (e) {
    current = null;
    panel.hidden = true;
    return;
  }
  current.run = name;
  panel.hidden = false;
  $("explain-run").textContent = name;
  showScores();
  const opts = (sel) => {
    sel.replaceChildren(el("option", {value: "all"}, "all"),
      ...current.classes.map((c, i) => el("option", {value: String(i)}, c)));
    sel.onchange = showSamples;
  };
  opts($("f-label"));
  opts($("f-pred"));
  $("f-correct").onchange = showSamples;
  showSamples();
}

function showScores() {
  const metrics = current.metrics;
  const cols = ["rank", "method", ...metrics, "mean"];
  const rows = current.ranking.map(([method, mean], i) =>
    ({rank: i + 1, method, mean, ...current.scores[method]}));
  fillTable($("scores"), cols, rows);
  const best = $("scores").rows[1];
  if (best) best.classList.add("best");
}

function picURL(path) { return "/runs/" + current.run + "/explain/" + path; }

function showSamples() {
  const fl = $("f-label").value, fp = $("f-pred").value, fc = $("f-correct").value;
  const shown = current.samples.filter((s) =>
    (fl === "all" || s.label === Number(fl)) && (fp === "all" || s.pred === Number(fp)) &&
    (fc === "all" || (fc === "correct") === s.correct));
  $("count").textContent = `${shown.length} of ${current.samples.length} samples`;
  const list = $("samples");
  list.replaceChildren();
  for (const s of shown) {
    const li = el("li", {class: s.correct ? "sample" : "sample wrong", "data-id": String(s.id)},
      el("img", {src: picURL(s.image), alt: "sample " + s.id}),
      `${current.classes[s.label]} → ${current.classes[s.pred]}`);
    li.onclick = () => showDetail(s, li);
    list.append(li);
  }
  if (shown.length) showDetail(shown[0], list.firstChild); else $("detail").replaceChildren();
}

function pic(src, caption) {
  return el("div", {class: "pic"}, el("img", {src: picURL(src), alt: caption}), caption);
}

function showDetail(s, li) {
  for (const x of document.querySelectorAll("#samples li")) x.classList.toggle("selected", x === li);
  const cls = current.classes;
  const d = $("detail");
  d.replaceChildren(el("h3", {}, `Sample ${s.id}: true ${cls[s.label]}, predicted ` +
    `${cls[s.pred]} (p=${fmt(s.prob)})${s.correct ? "" : " — misclassified"}`));
  const pics = el("div", {class: "pics saliency"}, pic(s.image, "input"));
  for (const method of current.methods) {
    for (const [label, path] of Object.entries(s.saliency[method] || {})) {
      pics.append(pic(path, `${method} for ${cls[Number(label)]}`));
    }
  }
  d.append(el("h4", {}, "Saliency per method"), pics);
  if (s.hoc) {
    const h = s.hoc;
    d.append(el("h4", {}, `Hierarchical occlusion for ${cls[h.label]}: ` +
      (h.found ? `keeps p=${fmt(h.masked_prob)} with ${fmt(100 * h.kept)}% of the image`
               : `p=${fmt(h.prob)} is below the threshold`)));
    d.append(el("div", {class: "pics hoc"}, ...h.steps.map((st, k) =>
      pic(st.image, `step ${k + 1}: window ${st.window}, p=${fmt(st.prob)}`))));
  }
  const metrics = current.metrics;
  const rows = current.methods.map((m) => ({method: m, ...(s.scores[m] || {})}));
  const t = el("table", {class: "sample-scores"});
  fillTable(t, ["method", ...metrics], rows);
  d.append(el("h4", {}, "Scores of this sample"), t);
  markLoaded(d);
}

// Record on the element how many of its pictures decoded, for tests in a headless browser.
function markLoaded(root) {
  const imgs = [...root.querySelectorAll("img")];
  Promise.all(imgs.map((img) => img.decode().then(() => 1, () => 0))).then((ok) => {
    root.dataset.images = String(imgs.length);
    root.dataset.loaded = String(ok.reduce((a, b) => a + b, 0));
  });
}

function start() {
  loadRuns().catch((e) => { document.body.append(el("p", {class: "error"}, String(e))); });
}
window.addEventListener("hashchange", start);  // a pasted link to another sample
start();
