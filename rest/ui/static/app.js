// Pome dashboard: a small single-page app over the /v1 control plane and
// the dashboard's own /ui/api endpoints. Every element is built from
// text nodes, never parsed from markup, because tape rows carry whatever
// an agent sent.
"use strict";

(() => {
  const KEY = "pome.apiKey";
  const TEAM = "pome.team";
  const main = document.getElementById("main");
  const statusBox = document.getElementById("status");
  const dialog = document.getElementById("row-dialog");
  const dialogBody = document.getElementById("row-dialog-body");
  const dialogTitle = document.getElementById("row-dialog-title");

  // Everything a page starts (timers, tape streams) is registered here and
  // stopped when the route changes, so a page left behind keeps nothing
  // running.
  let cleanups = [];
  const onLeave = (fn) => cleanups.push(fn);
  function leave() {
    for (const fn of cleanups) {
      try { fn(); } catch (_) { /* a cleanup must not stop the others */ }
    }
    cleanups = [];
  }

  // ---- DOM helpers ------------------------------------------------------

  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") el.className = v;
      else if (k === "text") el.textContent = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (v === true) el.setAttribute(k, "");
      else el.setAttribute(k, String(v));
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  function setStatus(msg, isError) {
    statusBox.textContent = msg || "";
    statusBox.classList.toggle("error", !!isError);
  }

  function page(title, ...children) {
    const h1 = h("h1", { id: "page-title", tabindex: "-1" }, title);
    main.replaceChildren(h1, ...children);
    document.title = title + " · Pome";
    return h1;
  }

  function pretty(v) {
    if (v === undefined || v === null) return "null";
    if (typeof v === "string") {
      try { return JSON.stringify(JSON.parse(v), null, 2); } catch (_) { return v; }
    }
    return JSON.stringify(v, null, 2);
  }

  function short(v, n) {
    const s = v === undefined ? "" : JSON.stringify(v);
    return s.length > n ? s.slice(0, n - 1) + "…" : s;
  }

  function fmtTime(iso) {
    if (!iso) return "";
    const d = new Date(iso);
    if (isNaN(d)) return iso;
    return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
  }

  function clock(iso) {
    const d = new Date(iso);
    if (isNaN(d)) return "";
    const p = (n, w) => String(n).padStart(w || 2, "0");
    return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
  }

  function remaining(iso) {
    const ms = new Date(iso) - Date.now();
    if (!(ms > 0)) return { text: "expired", soon: true };
    let s = Math.floor(ms / 1000);
    const hrs = Math.floor(s / 3600); s -= hrs * 3600;
    const m = Math.floor(s / 60); s -= m * 60;
    const text = (hrs ? `${hrs}h ` : "") + `${hrs ? String(m).padStart(2, "0") : m}m ${String(s).padStart(2, "0")}s`;
    return { text, soon: ms < 60000 };
  }

  // countdown renders a live "time left" for a ready sandbox; the global
  // ticker below refreshes every element that has data-expires.
  function countdown(sb) {
    if (sb.state !== "ready") {
      return h("span", { class: "countdown" }, sb.state === "stopped" ? "stopped" : "expired");
    }
    const el = h("span", { class: "countdown", "data-expires": sb.expires_at, title: fmtTime(sb.expires_at) });
    tickOne(el);
    return el;
  }
  function tickOne(el) {
    const r = remaining(el.dataset.expires);
    el.textContent = r.text;
    el.classList.toggle("soon", r.soon);
  }
  setInterval(() => document.querySelectorAll("[data-expires]").forEach(tickOne), 1000);

  function pct(x) { return (Math.round(x * 1000) / 10) + "%"; }

  // ---- API --------------------------------------------------------------

  const apiKey = () => sessionStorage.getItem(KEY) || "";

  class APIError extends Error {
    constructor(status, body) {
      const e = body && body.error;
      super(e && e.message ? e.message : `HTTP ${status}`);
      this.status = status;
      this.type = e && e.type;
      this.details = e && e.details;
    }
  }

  async function api(method, path, body, opts) {
    const headers = { Authorization: "Bearer " + apiKey() };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      signal: opts && opts.signal, cache: "no-store",
    });
    if (res.status === 204) return null;
    const text = await res.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (_) { data = null; }
    if (!res.ok) {
      if (res.status === 401 && !(opts && opts.login)) {
        logout("Your API key was refused; log in again.");
      }
      throw new APIError(res.status, data);
    }
    if (opts && opts.raw) return text;
    return data;
  }

  // followTape reads the tape's server-sent events with fetch, because
  // EventSource cannot send the Authorization header and the key must not
  // go in a URL. It calls onRow for every row (existing ones first) and
  // reconnects from the last seq it saw, a bounded number of times.
  function followTape(sid, twin, handlers) {
    const ctrl = new AbortController();
    let after = 0;
    let tries = 0;
    const maxTries = 5;
    let stopped = false;

    async function once() {
      const res = await fetch(`/v1/sandboxes/${encodeURIComponent(sid)}/tapes/${encodeURIComponent(twin)}?follow=1&after=${after}`, {
        headers: { Authorization: "Bearer " + apiKey(), Accept: "text/event-stream" },
        signal: ctrl.signal, cache: "no-store",
      });
      if (!res.ok) {
        let data = null;
        try { data = await res.json(); } catch (_) { /* not JSON */ }
        throw new APIError(res.status, data);
      }
      handlers.onState("live");
      tries = 0;
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return false;
        buf += value.replace(/\r\n?/g, "\n");
        let cut;
        while ((cut = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          let event = "message";
          const data = [];
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) continue;
            const i = line.indexOf(":");
            const field = i < 0 ? line : line.slice(0, i);
            const val = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
            if (field === "event") event = val;
            else if (field === "data") data.push(val);
          }
          if (event === "row" && data.length) {
            const row = JSON.parse(data.join("\n"));
            if (row.seq > after) {
              after = row.seq;
              handlers.onRow(row);
            }
          } else if (event === "end") {
            return true;
          }
        }
      }
    }

    (async () => {
      while (!stopped) {
        try {
          const ended = await once();
          if (ended) { handlers.onState("ended"); return; }
        } catch (err) {
          if (stopped || err.name === "AbortError") return;
          if (err instanceof APIError && err.status < 500) {
            handlers.onState("error", err.message);
            return;
          }
        }
        if (stopped) return;
        tries++;
        if (tries > maxTries) {
          handlers.onState("error", "lost the live stream");
          return;
        }
        handlers.onState("reconnecting");
        await new Promise((r) => setTimeout(r, 500 * tries));
      }
    })();

    return () => { stopped = true; ctrl.abort(); };
  }

  async function downloadTape(sid, twin) {
    try {
      const text = await api("GET", `/v1/sandboxes/${encodeURIComponent(sid)}/tapes/${encodeURIComponent(twin)}?format=jsonl`, undefined, { raw: true });
      const url = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
      const a = h("a", { href: url, download: `${sid}.${twin}.tape.jsonl` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
      setStatus(`Downloaded the ${twin} tape as JSON Lines.`);
    } catch (err) {
      setStatus(`Could not download the ${twin} tape: ${err.message}`, true);
    }
  }

  // ---- Login ------------------------------------------------------------

  function logout(msg) {
    sessionStorage.removeItem(KEY);
    sessionStorage.removeItem(TEAM);
    if (location.hash !== "#/login") location.hash = "#/login";
    else route();
    if (msg) setStatus(msg, true);
  }
  document.getElementById("logout").addEventListener("click", () => logout("Logged out."));

  function loginPage() {
    const input = h("input", { id: "api-key", name: "api-key", type: "password", autocomplete: "off", required: true,
      spellcheck: "false", "aria-describedby": "api-key-hint" });
    const err = h("div", { class: "error-box", role: "alert", hidden: true });
    const form = h("form", { class: "panel login", onsubmit: async (e) => {
      e.preventDefault();
      err.hidden = true;
      const key = input.value.trim();
      if (!key) return;
      sessionStorage.setItem(KEY, key);
      try {
        const u = await api("GET", "/v1/usage", undefined, { login: true });
        sessionStorage.setItem(TEAM, u.team || "");
        setStatus("");
        location.hash = "#/sandboxes";
      } catch (ex) {
        sessionStorage.removeItem(KEY);
        err.textContent = ex.status === 401 ? "That API key was not accepted." : "Could not reach the server: " + ex.message;
        err.hidden = false;
        input.focus();
      }
    } },
    h("div", { class: "field" },
      h("label", { for: "api-key" }, "Team API key"),
      input,
      h("span", { id: "api-key-hint", class: "hint" }, "The pme_… key `pome serve` printed or that your operator gave you. It stays in this tab's session storage and is sent only to this server.")),
    err,
    h("button", { type: "submit", class: "primary" }, "Log in"));
    page("Log in to Pome", form);
    input.focus();
  }

  // ---- Sandboxes list ---------------------------------------------------

  async function sandboxesPage(params) {
    const state = params.get("state") || "";
    const select = h("select", { id: "state-filter", onchange: () => {
      location.hash = "#/sandboxes" + (select.value ? "?state=" + select.value : "");
    } }, ["", "ready", "stopped", "expired"].map((s) => h("option", { value: s, selected: s === state }, s || "all")));
    const body = h("tbody");
    const table = h("table", { class: "list", "aria-describedby": "page-title" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Sandbox"), h("th", { scope: "col" }, "State"),
        h("th", { scope: "col" }, "Twins"), h("th", { scope: "col" }, "Created"), h("th", { scope: "col" }, "Expires in"))),
      body);
    const more = h("p", { class: "note", hidden: true }, "Showing the newest 200.");
    page("Sandboxes",
      h("div", { class: "toolbar" },
        h("label", { for: "state-filter" }, "State"), select,
        h("span", { class: "grow" }),
        h("a", { class: "button", href: "#/new" }, "New sandbox")),
      table, more);

    async function load() {
      try {
        const q = "?limit=200" + (state ? "&state=" + encodeURIComponent(state) : "");
        const res = await api("GET", "/v1/sandboxes" + q);
        more.hidden = !res.has_more;
        if (!res.data.length) {
          body.replaceChildren(h("tr", {}, h("td", { colspan: "5", class: "note" }, state ? `No ${state} sandboxes.` : "No sandboxes yet.")));
          return;
        }
        body.replaceChildren(...res.data.map((sb) => h("tr", { "data-sid": sb.id },
          h("td", {}, h("a", { href: "#/sandbox/" + sb.id, class: "mono" }, sb.id)),
          h("td", {}, h("span", { class: "badge " + sb.state }, sb.state)),
          h("td", {}, sb.twins.join(", ")),
          h("td", {}, fmtTime(sb.created_at)),
          h("td", {}, countdown(sb)))));
      } catch (err) {
        if (err.status !== 401) setStatus("Could not list sandboxes: " + err.message, true);
      }
    }
    await load();
    // Others (agents, CLIs) create and stop sandboxes too; a slow poll
    // keeps the list honest without a stream for it.
    const timer = setInterval(load, 5000);
    onLeave(() => clearInterval(timer));
  }

  // ---- Create -----------------------------------------------------------

  async function newPage() {
    const err = h("div", { class: "error-box", role: "alert", hidden: true });
    const result = h("div");
    const twinsBox = h("div", { class: "checks" }, h("span", { class: "note" }, "Loading twins…"));
    const ttl = h("input", { id: "ttl", type: "number", min: "1", max: "1440", step: "1", value: "30", "aria-describedby": "ttl-hint" });
    const seedFile = h("input", { id: "seed-file", type: "file", accept: ".json,application/json", "aria-describedby": "seed-hint" });
    const seedText = h("textarea", { id: "seed", spellcheck: "false", "aria-describedby": "seed-hint", placeholder: '{"github": {…}, "slack": {…}}' });
    seedFile.addEventListener("change", async () => {
      const f = seedFile.files && seedFile.files[0];
      if (f) seedText.value = await f.text();
    });
    const submit = h("button", { type: "submit", class: "primary" }, "Create sandbox");
    const form = h("form", { class: "panel", onsubmit: async (e) => {
      e.preventDefault();
      err.hidden = true;
      const names = [...form.querySelectorAll("input[name=twin]:checked")].map((i) => i.value);
      const req = { twins: names };
      const minutes = Number(ttl.value);
      if (ttl.value && minutes > 0) req.ttl_seconds = Math.round(minutes * 60);
      if (seedText.value.trim()) {
        try {
          req.seed = JSON.parse(seedText.value);
        } catch (ex) {
          err.textContent = "The seed is not valid JSON: " + ex.message;
          err.hidden = false;
          seedText.focus();
          return;
        }
      }
      submit.disabled = true;
      try {
        const created = await api("POST", "/v1/sandboxes", req);
        showCreated(created);
      } catch (ex) {
        const where = ex.details && (ex.details.path || ex.details.field);
        err.textContent = ex.message + (where ? ` (at ${where})` : "");
        err.hidden = false;
      } finally {
        submit.disabled = false;
      }
    } },
    h("fieldset", {}, h("legend", {}, "Twins (1 to 3)"), twinsBox),
    h("div", { class: "field" },
      h("label", { for: "ttl" }, "Lifetime in minutes"), ttl,
      h("span", { id: "ttl-hint", class: "hint" }, "The sandbox expires after this long; stopping it earlier keeps its tapes and state readable.")),
    h("div", { class: "field" },
      h("label", { for: "seed-file" }, "Seed file (optional)"), seedFile,
      h("label", { for: "seed" }, "Seed JSON"), seedText,
      h("span", { id: "seed-hint", class: "hint" }, "One key per twin (and an optional \"clock\"). Empty: each twin's default world.")),
    err, submit);

    function showCreated(c) {
      const rows = [];
      for (const [name, urls] of Object.entries(c.per_twin || {})) {
        const cred = (c.provider_credentials || {})[name] || {};
        rows.push(h("tr", { "data-twin": name },
          h("th", { scope: "row" }, name),
          h("td", { class: "mono", "data-field": "api_url" }, urls.api_url),
          h("td", { class: "mono" }, urls.mcp_url),
          h("td", { class: "secret", "data-field": "provider_token" }, cred.token || "")));
      }
      result.replaceChildren(h("section", { class: "panel", "aria-labelledby": "created-title" },
        h("h2", { id: "created-title", tabindex: "-1" }, "Sandbox created"),
        h("p", {}, "These tokens are shown once; copy what you need now."),
        h("dl", { class: "facts" },
          h("dt", {}, "Sandbox"), h("dd", { class: "mono", id: "created-sid" }, c.session_id),
          h("dt", {}, "Expires"), h("dd", {}, fmtTime(c.expires_at)),
          h("dt", {}, "auth_token"), h("dd", { class: "secret", id: "created-auth-token" }, c.auth_token),
          h("dt", {}, "agent_token"), h("dd", { class: "secret", id: "created-agent-token" }, c.agent_token)),
        h("table", { class: "list" },
          h("caption", { class: "sr-only" }, "Twin addresses and vendor credentials"),
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Twin"), h("th", { scope: "col" }, "REST URL"),
            h("th", { scope: "col" }, "MCP URL"), h("th", { scope: "col" }, "Vendor token"))),
          h("tbody", {}, rows)),
        h("p", {}, h("a", { class: "button primary", href: "#/sandbox/" + c.session_id, id: "open-created" }, "Open sandbox"))));
      result.querySelector("h2").focus();
    }

    page("New sandbox", form, result);
    try {
      const res = await api("GET", "/v1/twins");
      twinsBox.replaceChildren(...res.twins.map((t, i) => h("label", {},
        h("input", { type: "checkbox", name: "twin", value: t.name, checked: i === 0 }), `${t.title || t.name} (${t.name})`)));
    } catch (ex) {
      twinsBox.replaceChildren(h("span", { class: "error-box" }, "Could not list twins: " + ex.message));
    }
  }

  // ---- Sandbox page -----------------------------------------------------

  function callText(row, sid) {
    if (row.transport === "mcp") {
      return { main: row.tool || row.mcp_method || "MCP", sub: row.tool && row.mcp_method && row.mcp_method !== "tools/call" ? row.mcp_method : "" };
    }
    // Paths are stored whole; the /{twin}/s/{sid} prefix says nothing here.
    let p = row.path || "";
    const prefix = `/${row.twin}/s/${sid || row.session_id}`;
    if (p.startsWith(prefix)) p = p.slice(prefix.length) || "/";
    return { main: `${row.method} ${p}`, sub: row.tool || "" };
  }

  function rowButton(row, sid, onOpen) {
    const c = callText(row, sid);
    const status = String(row.status || "");
    const btn = h("button", { type: "button", class: "row", "data-seq": row.seq, "data-twin": row.twin,
      title: `${c.main}${c.sub ? " → " + c.sub : ""}`, onclick: () => onOpen(row, btn) },
    h("span", { class: "t", title: row.at }, clock(row.at)),
    h("span", { class: "tr" }, row.transport === "mcp" ? "MCP" : "REST"),
    h("span", { class: "call" }, c.main, c.sub ? h("span", { class: "tool" }, " · " + c.sub) : null),
    h("span", { class: "st s" + status.charAt(0) }, status),
    h("span", { class: "mut", title: row.state_mutation ? "changed state" : "no state change" },
      row.state_mutation ? h("span", { "aria-hidden": "true" }, "●") : "",
      h("span", { class: "sr-only" }, row.state_mutation ? "changed state" : "no state change")));
    return btn;
  }

  // arrowNav moves focus between the buttons of a list with the arrow,
  // Home and End keys, so a long tape does not take a Tab per row.
  function arrowNav(list) {
    list.addEventListener("keydown", (e) => {
      const items = [...list.querySelectorAll("button.row")];
      const i = items.indexOf(document.activeElement);
      if (i < 0) return;
      let j = -1;
      if (e.key === "ArrowDown") j = Math.min(i + 1, items.length - 1);
      else if (e.key === "ArrowUp") j = Math.max(i - 1, 0);
      else if (e.key === "Home") j = 0;
      else if (e.key === "End") j = items.length - 1;
      if (j >= 0) { e.preventDefault(); items[j].focus(); }
    });
  }

  function tabs(defs, selected, onSelect) {
    const list = h("div", { role: "tablist", "aria-label": "Sandbox views" });
    const panels = [];
    const buttons = defs.map((d, i) => {
      const b = h("button", { type: "button", role: "tab", id: "tab-" + d.id, "aria-controls": "panel-" + d.id,
        "aria-selected": d.id === selected ? "true" : "false", tabindex: d.id === selected ? "0" : "-1",
        onclick: () => pick(i, true) }, d.label);
      const p = h("section", { role: "tabpanel", id: "panel-" + d.id, "aria-labelledby": "tab-" + d.id, hidden: d.id !== selected });
      panels.push(p);
      return b;
    });
    function pick(i, focus) {
      buttons.forEach((b, k) => {
        b.setAttribute("aria-selected", k === i ? "true" : "false");
        b.tabIndex = k === i ? 0 : -1;
        panels[k].hidden = k !== i;
      });
      if (focus) buttons[i].focus();
      onSelect(defs[i].id);
    }
    list.addEventListener("keydown", (e) => {
      const i = buttons.indexOf(document.activeElement);
      if (i < 0) return;
      let j = -1;
      if (e.key === "ArrowRight") j = (i + 1) % buttons.length;
      else if (e.key === "ArrowLeft") j = (i - 1 + buttons.length) % buttons.length;
      else if (e.key === "Home") j = 0;
      else if (e.key === "End") j = buttons.length - 1;
      if (j >= 0) { e.preventDefault(); pick(j, true); }
    });
    list.append(...buttons);
    return { list, panels, pick: (id) => pick(defs.findIndex((d) => d.id === id), false) };
  }

  const maxRowsShown = 2000;

  async function sandboxPage(sid, params) {
    let sb;
    try {
      sb = await api("GET", "/v1/sandboxes/" + encodeURIComponent(sid));
    } catch (err) {
      page("Sandbox " + sid, h("div", { class: "error-box", role: "alert" }, err.message),
        h("p", {}, h("a", { href: "#/sandboxes" }, "All sandboxes")));
      return;
    }
    const stateBadge = h("span", { class: "badge " + sb.state, id: "sandbox-state" }, sb.state);
    const expires = h("span", {}, countdown(sb));
    const stopBtn = h("button", { type: "button", id: "stop", disabled: sb.state !== "ready", onclick: async () => {
      try {
        await api("DELETE", "/v1/sandboxes/" + encodeURIComponent(sid));
        setStatus(`Stopped ${sid}. Agents now get 404; tapes and state stay readable until retention ends.`);
        await refreshHeader();
      } catch (err) { setStatus("Could not stop: " + err.message, true); }
    } }, "Stop");
    const discardBtn = h("button", { type: "button", id: "discard", class: "danger", disabled: sb.state === "expired", onclick: async () => {
      if (!confirm(`Discard ${sid}? Its state and tapes are deleted now and cannot be read again.`)) return;
      try {
        await api("DELETE", "/v1/sandboxes/" + encodeURIComponent(sid) + "?discard=true");
        setStatus(`Discarded ${sid}.`);
        location.hash = "#/sandboxes";
      } catch (err) { setStatus("Could not discard: " + err.message, true); }
    } }, "Discard");

    async function refreshHeader() {
      try {
        sb = await api("GET", "/v1/sandboxes/" + encodeURIComponent(sid));
      } catch (_) { return; }
      stateBadge.className = "badge " + sb.state;
      stateBadge.textContent = sb.state;
      expires.replaceChildren(countdown(sb));
      stopBtn.disabled = sb.state !== "ready";
    }
    const poll = setInterval(refreshHeader, 5000);
    onLeave(() => clearInterval(poll));

    const initialTab = params.get("tab") === "state" ? "state" : "tapes";
    const t = tabs([{ id: "tapes", label: "Tapes" }, { id: "state", label: "State and diff" }], initialTab, (id) => {
      if (id === "state") stateView.load();
    });

    page("Sandbox " + sid,
      h("div", { class: "panel" },
        h("dl", { class: "facts" },
          h("dt", {}, "State"), h("dd", {}, stateBadge),
          h("dt", {}, "Twins"), h("dd", {}, sb.twins.join(", ")),
          h("dt", {}, "Created"), h("dd", {}, fmtTime(sb.created_at)),
          h("dt", {}, "Expires in"), h("dd", {}, expires)),
        h("div", { class: "toolbar" },
          h("span", { class: "grow" }), stopBtn, discardBtn)),
      t.list, ...t.panels);

    // Tapes: one live column per twin.
    const rowsByTwin = {};
    const grid = h("div", { class: "tapes" });
    // Set through the style object: the page's CSP refuses style
    // attributes, but not styles set from its own script.
    grid.style.gridTemplateColumns = `repeat(${sb.twins.length}, minmax(0, 1fr))`;
    for (const twin of sb.twins) {
      rowsByTwin[twin] = [];
      const list = h("ul", { class: "rows", id: "rows-" + twin, "aria-label": twin + " tape rows" },
        h("li", { class: "empty" }, "No calls yet."));
      arrowNav(list);
      const count = h("span", { class: "note", "data-count": twin }, "0 rows");
      const live = h("span", { class: "live", "aria-live": "off" }, "connecting…");
      grid.append(h("section", { class: "tape", "aria-labelledby": "tape-title-" + twin },
        h("div", { class: "tape-head" },
          h("h3", { id: "tape-title-" + twin }, twin), count, live, h("span", { class: "grow" }),
          h("button", { type: "button", "data-download": twin, onclick: () => downloadTape(sid, twin) },
            "Download JSONL", h("span", { class: "sr-only" }, ` (${twin})`))),
        h("div", { class: "row-head", "aria-hidden": "true" },
          h("span", {}, "time"), h("span", {}, "via"), h("span", {}, "call"), h("span", {}, "status"), h("span", { title: "changed state" }, "Δ")),
        list));
      if (sb.state === "expired") {
        live.textContent = "expired";
        continue;
      }
      const stop = followTape(sid, twin, {
        onRow: (row) => {
          const rows = rowsByTwin[twin];
          rows.push(row);
          if (rows.length === 1) list.replaceChildren();
          if (rows.length <= maxRowsShown) {
            list.append(h("li", {}, rowButton(row, sid, (r, btn) => openRow(r, sid, btn))));
          } else if (rows.length === maxRowsShown + 1) {
            list.append(h("li", { class: "empty" }, `Only the first ${maxRowsShown} rows are shown; download the tape for the rest.`));
          }
          count.textContent = rows.length === 1 ? "1 row" : `${rows.length} rows`;
        },
        onState: (s, msg) => {
          live.classList.toggle("on", s === "live");
          live.textContent = s === "live" ? "live" : s === "ended" ? "ended" : s === "reconnecting" ? "reconnecting…" : "not live" + (msg ? ": " + msg : "");
        },
      });
      onLeave(stop);
    }
    t.panels[0].append(
      h("p", { class: "note" }, "Each column follows its twin's tape live. Select a row for its request, response and state change; ● marks calls that changed state."),
      grid);

    // State: a twin picker, the seed-versus-now diff and the current
    // state as a tree.
    const stateView = stateSection(sid, sb.twins, params.get("twin"));
    t.panels[1].append(stateView.el);
    if (initialTab === "state") stateView.load();
  }

  // diffTable lists changes; selecting a path reveals it in the tree.
  function diffTable(changes, onPick, nowLabel, beforeLabel) {
    if (!changes.length) return h("p", { class: "note" }, "No changes: the state is the seed.");
    return h("table", { class: "changes" },
      h("caption", { class: "sr-only" }, "Changes from seed to now"),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Change"), h("th", { scope: "col" }, "Path"),
        h("th", { scope: "col" }, beforeLabel || "Seed"), h("th", { scope: "col" }, nowLabel || "Now"))),
      h("tbody", {}, changes.map((c) => h("tr", { class: c.op, "data-path": c.path },
        h("td", {}, h("span", { class: "op " + c.op }, c.op)),
        h("td", { class: "v" }, onPick ? h("button", { type: "button", class: "link", onclick: () => onPick(c) }, c.path || "/") : (c.path || "/")),
        h("td", { class: "v" }, c.before === undefined ? "" : short(c.before, 160)),
        h("td", { class: "v" }, c.after === undefined ? "" : short(c.after, 160))))));
  }

  function escapePointer(seg) { return String(seg).replace(/~/g, "~0").replace(/\//g, "~1"); }

  // jsonTree renders a document as nested <details> (keyboard-operable
  // without any script of ours), marking changed paths and opening the
  // branches that lead to them.
  function jsonTree(doc, marks) {
    const ancestors = new Set();
    for (const p of Object.keys(marks)) {
      const segs = p.split("/");
      for (let i = 1; i < segs.length; i++) ancestors.add(segs.slice(0, i).join("/"));
    }
    function scalar(v) {
      if (v === null) return h("span", { class: "z" }, "null");
      if (typeof v === "string") return h("span", { class: "s" }, JSON.stringify(v));
      if (typeof v === "number") return h("span", { class: "n" }, String(v));
      if (typeof v === "boolean") return h("span", { class: "b" }, String(v));
      return h("span", {}, String(v));
    }
    function node(key, v, path, depth) {
      const mark = marks[path] || "";
      const label = key === null ? h("span", { class: "k" }, "state") : h("span", { class: "k" }, key);
      const isArr = Array.isArray(v);
      const entries = v !== null && typeof v === "object" ? (isArr ? v.map((x, i) => [String(i), x]) : Object.entries(v)) : null;
      if (entries && entries.length) {
        const open = depth < 1 || ancestors.has(path) || !!mark;
        const cls = [mark, ancestors.has(path) ? "contains" : ""].join(" ").trim();
        return h("li", { "data-path": path, class: cls || null },
          h("details", { open, class: cls || null },
            h("summary", {}, label, h("span", { class: "meta" }, isArr ? ` [${v.length}]` : ` {${entries.length}}`),
              mark ? h("span", { class: "sr-only" }, ` (${mark})`) : null),
            h("ul", { role: "group" }, entries.map(([k, x]) => node(k, x, path + "/" + escapePointer(k), depth + 1)))));
      }
      return h("li", { "data-path": path, class: mark || null },
        h("span", { class: "leaf" }, label, ": ", entries ? h("span", { class: "meta" }, isArr ? "[]" : "{}") : scalar(v), mark ? h("span", { class: "sr-only" }, ` (${mark})`) : null));
    }
    return h("ul", { class: "tree", "aria-label": "State tree" }, node(null, doc, "", 0));
  }

  // reveal opens every branch down to path in a tree and focuses it.
  function reveal(tree, path) {
    let el = null;
    for (const li of tree.querySelectorAll("li[data-path]")) {
      if (li.dataset.path === path) { el = li; break; }
    }
    if (!el) return false;
    for (let p = el.parentElement; p && p !== tree; p = p.parentElement) {
      if (p.tagName === "DETAILS") p.open = true;
    }
    const target = el.querySelector(":scope > details > summary") || el.querySelector(":scope > .leaf");
    tree.querySelectorAll(".flash").forEach((x) => x.classList.remove("flash"));
    el.classList.add("flash");
    if (target) {
      if (!target.hasAttribute("tabindex") && target.tagName !== "SUMMARY") target.tabIndex = -1;
      target.scrollIntoView({ block: "center" });
      target.focus();
    }
    return true;
  }

  function stateSection(sid, twinNames, initialTwin) {
    const el = h("div");
    let twin = twinNames.includes(initialTwin) ? initialTwin : twinNames[0];
    let loaded = false;
    const picker = h("fieldset", {}, h("legend", {}, "Twin"),
      h("div", { class: "checks" }, twinNames.map((n) => h("label", {},
        h("input", { type: "radio", name: "state-twin", value: n, checked: n === twin, onchange: () => { twin = n; load(true); } }), n))));
    const which = h("select", { id: "tree-which", onchange: () => render() },
      h("option", { value: "now" }, "Current state"), h("option", { value: "seed" }, "Seed"));
    const refresh = h("button", { type: "button", id: "refresh-state", onclick: () => load(true) }, "Refresh");
    const diffBox = h("div", { id: "diff" }, h("p", { class: "note" }, "Loading…"));
    const treeBox = h("div", { id: "tree" });
    let data = null;

    el.append(h("div", { class: "toolbar" }, picker, h("span", { class: "grow" }), refresh),
      h("div", { class: "state-grid" },
        h("section", { class: "panel", "aria-labelledby": "diff-title" },
          h("h2", { id: "diff-title" }, "Seed → now"),
          h("p", { class: "note" }, "What changed in this twin's state since the sandbox was created, by all calls together."),
          diffBox),
        h("section", { class: "panel", "aria-labelledby": "tree-title" },
          h("div", { class: "toolbar" }, h("h2", { id: "tree-title" }, "State tree"), h("span", { class: "grow" }),
            h("label", { for: "tree-which" }, "Show"), which),
          treeBox)));

    function render() {
      if (!data) return;
      const marks = {};
      const showSeed = which.value === "seed";
      for (const c of data.changes) {
        if (showSeed ? c.op !== "added" : c.op !== "removed") marks[c.path] = c.op;
      }
      treeBox.replaceChildren(jsonTree(showSeed ? data.seed : data.state, marks));
      diffBox.replaceChildren(
        data.truncated ? h("p", { class: "note" }, "Only the first changes are listed.") : "",
        diffTable(data.changes, (c) => {
          const wantSeed = c.op === "removed";
          if ((which.value === "seed") !== wantSeed) { which.value = wantSeed ? "seed" : "now"; render(); }
          reveal(treeBox.firstChild, c.path);
        }));
    }

    async function load(force) {
      if (loaded && !force) return;
      loaded = true;
      try {
        data = await api("GET", `/ui/api/sandboxes/${encodeURIComponent(sid)}/diff/${encodeURIComponent(twin)}`);
        render();
      } catch (err) {
        diffBox.replaceChildren(h("div", { class: "error-box", role: "alert" }, "Could not read the state: " + err.message));
        treeBox.replaceChildren();
      }
    }
    return { el, load };
  }

  // openRow shows one tape row, with the state change the call made: the
  // row's own state_delta (taped with every call that changed state), or,
  // for rows taped without one, the twin's whole seed-to-now diff.
  async function openRow(row, sid, fromBtn, diffSource) {
    document.querySelectorAll("button.row.selected").forEach((b) => b.classList.remove("selected"));
    if (fromBtn) fromBtn.classList.add("selected");
    const c = callText(row, sid);
    dialogTitle.textContent = `${row.twin} #${row.seq}: ${c.main}`;
    const deltaBox = h("div", { id: "row-delta" });
    dialogBody.replaceChildren(
      h("dl", { class: "facts" },
        h("dt", {}, "Time"), h("dd", {}, row.at),
        h("dt", {}, "Transport"), h("dd", {}, row.transport === "mcp" ? "MCP" + (row.mcp_method ? ` (${row.mcp_method})` : "") : "REST"),
        h("dt", {}, "Call"), h("dd", { class: "mono" }, `${row.method} ${row.path}`),
        h("dt", {}, "Tool"), h("dd", { class: "mono" }, row.tool || "none (not an action)"),
        h("dt", {}, "Status"), h("dd", {}, String(row.status)),
        h("dt", {}, "Changed state"), h("dd", { id: "row-mutation" }, row.state_mutation ? "yes" : "no"),
        h("dt", {}, "Latency"), h("dd", {}, `${row.latency_us} µs`)),
      h("div", { class: "two" },
        h("section", { "aria-labelledby": "req-title" },
          h("h3", { id: "req-title" }, "Request"),
          Object.keys((row.request && row.request.query) || {}).length ? h("div", {}, h("h4", {}, "Query"), h("pre", { class: "json" }, pretty(row.request.query))) : null,
          h("h4", {}, "Body"), h("pre", { class: "json", id: "row-request-body" }, row.request && row.request.body !== undefined ? pretty(row.request.body) : "(none)"),
          h("details", {}, h("summary", {}, "Headers (secrets redacted as stored)"), h("pre", { class: "json" }, pretty((row.request && row.request.headers) || {})))),
        h("section", { "aria-labelledby": "resp-title" },
          h("h3", { id: "resp-title" }, "Response"),
          h("pre", { class: "json", id: "row-response-body" }, row.response && row.response.body !== undefined ? pretty(row.response.body) : "(none)"))),
      h("section", { "aria-labelledby": "delta-title" }, h("h3", { id: "delta-title" }, "State change"), deltaBox));
    if (!dialog.open) dialog.showModal();
    dialog.returnFocusTo = fromBtn || null;

    if (!row.state_mutation) {
      deltaBox.append(h("p", {}, "This call did not change the twin's state."));
      return;
    }
    if (Array.isArray(row.state_delta)) {
      deltaBox.append(h("p", {}, "What this call changed in the twin's state:"));
      deltaBox.append(diffTable(row.state_delta, null, "After", "Before"));
      return;
    }
    if (row.state_delta) {
      deltaBox.append(h("p", { class: "note" }, "This call's change was too large to keep on the tape; its start:"));
      deltaBox.append(h("pre", { class: "json" }, pretty(row.state_delta)));
      return;
    }
    deltaBox.append(h("p", { class: "note" },
      "This call changed the twin's state. The server does not tape each call's own change (start it with --state-deltas for that), so the change below is the twin's whole seed-to-now diff: it includes this call's change and every other call's."));
    if (diffSource) {
      deltaBox.append(diffSource(row.twin));
      return;
    }
    try {
      const d = await api("GET", `/ui/api/sandboxes/${encodeURIComponent(sid)}/diff/${encodeURIComponent(row.twin)}`);
      deltaBox.append(diffTable(d.changes, null));
    } catch (err) {
      deltaBox.append(h("div", { class: "error-box" }, "Could not read the state: " + err.message));
    }
  }
  document.getElementById("row-dialog-close").addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => {
    if (dialog.returnFocusTo && document.contains(dialog.returnFocusTo)) dialog.returnFocusTo.focus();
  });

  // ---- Runs -------------------------------------------------------------

  async function runsPage() {
    page("Runs", h("p", { class: "note" }, "Loading…"));
    let res;
    try {
      res = await api("GET", "/ui/api/runs");
    } catch (err) {
      page("Runs", h("div", { class: "error-box", role: "alert" }, err.message));
      return;
    }
    const parts = [h("p", { class: "note" }, `Run directories written by pome run under ${res.runs_dir}.`)];
    const latest = res.latest;
    if (latest && Array.isArray(latest.tasks)) {
      parts.push(h("h2", {}, "Last pome run"),
        h("p", { class: "note" }, `Agent ${latest.agent || "?"}, finished ${fmtTime(latest.finished_at)}, exit code ${latest.exit_code}.`),
        h("table", { class: "list", id: "latest" },
          h("caption", { class: "sr-only" }, "Tasks of the last run with their pass rates"),
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Task"), h("th", { scope: "col", class: "num" }, "K"),
            h("th", { scope: "col", class: "num" }, "Passed"), h("th", { scope: "col", class: "num" }, "pass@1"),
            h("th", { scope: "col", class: "num" }, "pass^K"), h("th", { scope: "col" }, "Trials"))),
          h("tbody", {}, latest.tasks.map((t) => h("tr", {},
            h("td", {}, t.task),
            h("td", { class: "num" }, String(t.k)),
            h("td", { class: "num" }, String(t.passed)),
            h("td", { class: "num" }, pct(t.pass_at_1)),
            h("td", { class: "num" }, pct(t.pass_pow_k)),
            h("td", {}, h("div", { class: "evidence" }, (t.trials || []).map((tr, i) => tr.run_id
              ? h("a", { href: `#/run/${encodeURIComponent(t.slug)}/${encodeURIComponent(tr.run_id)}` },
                h("span", { class: "badge " + (tr.state || "error") }, `#${i + 1} ${tr.state || "error"}`))
              : h("span", { class: "badge error", title: tr.error || "" }, `#${i + 1} error`)))))))));
    }
    parts.push(h("h2", {}, "All runs by task"));
    if (!res.tasks.length) {
      parts.push(h("p", {}, "No run directories yet. Run a task with pome run, then reload."));
    }
    for (const t of res.tasks) {
      parts.push(h("section", { class: "panel", "aria-labelledby": "task-" + t.slug },
        h("h3", { id: "task-" + t.slug }, t.task, " ", h("span", { class: "note" }, `(${t.slug}${t.twins.length ? "; " + t.twins.join(", ") : ""})`)),
        h("p", { class: "note" }, `${t.passed} of ${t.total} stored runs passed (${pct(t.total ? t.passed / t.total : 0)}).`),
        h("table", { class: "list" },
          h("caption", { class: "sr-only" }, "Runs of " + t.task),
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Run"), h("th", { scope: "col" }, "Verdict"),
            h("th", { scope: "col", class: "num" }, "Score"), h("th", { scope: "col" }, "Criteria"), h("th", { scope: "col" }, "Started"))),
          h("tbody", {}, t.runs.map((r) => h("tr", {},
            h("td", {}, h("a", { class: "mono", href: `#/run/${encodeURIComponent(t.slug)}/${encodeURIComponent(r.run_id)}` }, r.run_id)),
            h("td", {}, h("span", { class: "badge " + r.state, title: r.error || "" }, r.state)),
            h("td", { class: "num" }, r.score === undefined || r.score === null ? "" : String(Math.round(r.score * 10) / 10)),
            h("td", {}, r.counts ? `${r.counts.passed}/${r.counts.evaluated} passed, ${r.counts.excluded} excluded, ${r.counts.abstained} abstained` : (r.error || "")),
            h("td", {}, fmtTime(r.started_at))))))));
    }
    page("Runs", ...parts);
  }

  async function runPage(slug, id) {
    page("Run " + id, h("p", { class: "note" }, "Loading…"));
    let res;
    try {
      res = await api("GET", `/ui/api/runs/${encodeURIComponent(slug)}/${encodeURIComponent(id)}`);
    } catch (err) {
      page("Run " + id, h("div", { class: "error-box", role: "alert" }, err.message), h("p", {}, h("a", { href: "#/runs" }, "All runs")));
      return;
    }
    const meta = res.meta || {};
    const v = res.verdict;
    const eventsList = h("ul", { class: "rows", id: "run-events", "aria-label": "Calls of this run, all twins, by time" });
    arrowNav(eventsList);
    const diffsBox = h("div");
    const byKey = {};
    for (const row of res.events) byKey[`${row.twin}:${row.seq}`] = row;
    const diffFor = (twin) => {
      const d = res.diffs[twin];
      return d ? diffTable(d.changes, null, "Final") : h("p", { class: "note" }, "No states recorded for " + twin + ".");
    };
    const openEvent = (twin, seq) => {
      const row = byKey[`${twin}:${seq}`];
      if (!row) { setStatus(`Row ${twin} #${seq} is not in this run's events.jsonl.`, true); return; }
      const btn = eventsList.querySelector(`button[data-twin="${CSS.escape(twin)}"][data-seq="${Number(seq)}"]`);
      openRow(row, meta.session_id, btn, diffFor);
    };
    if (!res.events.length) eventsList.append(h("li", { class: "empty" }, "No events recorded."));
    for (const row of res.events.slice(0, maxRowsShown)) {
      eventsList.append(h("li", {}, rowButton(row, meta.session_id, (r, btn) => openRow(r, meta.session_id, btn, diffFor))));
    }
    // showPath points at the diff rows under a state path an evidence
    // entry names (checks cite the list or object they read; the diff
    // lists the elements in it that changed).
    const showPath = (twin, p) => {
      const box = document.getElementById("run-diff-box-" + twin);
      const rows = box ? [...box.querySelectorAll("tr[data-path]")].filter((tr) => {
        const q = tr.dataset.path;
        return q === p || q.startsWith(p + "/") || p.startsWith(q + "/");
      }) : [];
      document.querySelectorAll("tr.flash").forEach((tr) => tr.classList.remove("flash"));
      if (!rows.length) {
        setStatus(`${p} did not change between the seed and the final ${twin} state.`);
        return;
      }
      rows.forEach((tr) => tr.classList.add("flash"));
      rows[0].tabIndex = -1;
      rows[0].scrollIntoView({ block: "center" });
      rows[0].focus();
    };
    for (const [twin, d] of Object.entries(res.diffs)) {
      diffsBox.append(h("section", { "aria-labelledby": "run-diff-" + twin, id: "run-diff-box-" + twin },
        h("h3", { id: "run-diff-" + twin }, twin),
        d.error ? h("p", { class: "error-box" }, d.error) : diffTable(d.changes, null, "Final")));
    }
    const parts = [
      h("div", { class: "panel" }, h("dl", { class: "facts" },
        h("dt", {}, "Task"), h("dd", {}, meta.task || slug),
        h("dt", {}, "Verdict"), h("dd", {}, h("span", { class: "badge " + ((v && v.state) || "error"), id: "run-state" }, (v && v.state) || "no verdict"),
          v ? ` score ${Math.round(v.score * 10) / 10} (threshold ${v.pass_threshold})` : ""),
        h("dt", {}, "Agent"), h("dd", { class: "mono" }, meta.agent || ""),
        h("dt", {}, "Trial"), h("dd", {}, String(meta.trial || "")),
        h("dt", {}, "Sandbox"), h("dd", {}, meta.session_id ? h("a", { class: "mono", href: "#/sandbox/" + meta.session_id }, meta.session_id) : ""),
        h("dt", {}, "Started"), h("dd", {}, fmtTime(meta.started_at)),
        h("dt", {}, "Finished"), h("dd", {}, fmtTime(meta.finished_at)),
        meta.error ? [h("dt", {}, "Error"), h("dd", { class: "error-box" }, meta.error)] : null)),
    ];
    if (v) {
      if (v.reason) parts.push(h("p", { class: "error-box" }, v.reason));
      parts.push(h("h2", {}, "Criteria"),
        h("div", { class: "kpis" },
          [["passed", v.passed], ["evaluated", v.evaluated], ["excluded", v.excluded], ["abstained", v.abstained], ["errors", v.errors]]
            .map(([l, n]) => h("div", { class: "kpi" }, h("div", { class: "v" }, String(n || 0)), h("div", { class: "l" }, l)))),
        h("table", { class: "list criteria", id: "criteria" },
          h("caption", { class: "sr-only" }, "Criteria and their outcomes"),
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Status"), h("th", { scope: "col" }, "Criterion"),
            h("th", { scope: "col" }, "Reason"), h("th", { scope: "col" }, "Evidence"))),
          h("tbody", {}, (v.criteria || []).map((c) => {
            const ev = c.evidence || {};
            const links = [];
            for (const seq of ev.tape_seqs || []) {
              links.push(h("button", { type: "button", class: "link", "data-evidence-seq": seq, onclick: () => openEvent(c.twin, seq) }, `${c.twin} row #${seq}`));
            }
            for (const p of ev.state_paths || []) {
              links.push(h("button", { type: "button", class: "link mono", "data-evidence-path": p, title: "Show in the seed → final diff",
                onclick: () => showPath(c.twin, p) }, p));
            }
            return h("tr", {},
              h("td", {}, h("span", { class: "badge " + c.status }, c.status)),
              h("td", { class: "text" }, c.text, c.check ? h("div", { class: "note mono" }, c.check) : null),
              h("td", {}, c.reason || ""),
              h("td", {}, h("div", { class: "evidence" }, links.length ? links : h("span", { class: "note" }, "—"))));
          }))));
    }
    parts.push(
      h("h2", {}, "Calls"),
      h("p", { class: "note" }, "Every twin's tape rows from events.jsonl, merged by time."),
      h("section", { class: "tape", "aria-label": "Run events" }, eventsList),
      h("h2", {}, "Seed → final state"),
      diffsBox,
      h("h2", {}, "Agent output"),
      h("details", {}, h("summary", {}, "stdout (tail)"), h("pre", { class: "json" }, res.stdout || "(empty)")),
      h("details", {}, h("summary", {}, "stderr (tail)"), h("pre", { class: "json" }, res.stderr || "(empty)")),
      h("p", { class: "note" }, "Files: " + res.files.join(", ")));
    page("Run " + id, ...parts);
  }

  // ---- Router -----------------------------------------------------------

  async function route() {
    leave();
    if (dialog.open) dialog.close();
    const hash = location.hash.replace(/^#/, "") || "/sandboxes";
    const [path, query] = hash.split("?");
    const params = new URLSearchParams(query || "");
    const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
    const loggedIn = !!apiKey();
    document.getElementById("nav").hidden = !loggedIn;
    document.getElementById("who").hidden = !loggedIn;
    document.getElementById("team").textContent = loggedIn ? "team " + (sessionStorage.getItem(TEAM) || "?") : "";
    for (const a of document.querySelectorAll("[data-nav]")) {
      const current = a.dataset.nav === parts[0] || (a.dataset.nav === "sandboxes" && parts[0] === "sandbox") || (a.dataset.nav === "runs" && parts[0] === "run");
      if (current) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
    }
    if (!loggedIn) {
      loginPage();
      return;
    }
    switch (parts[0]) {
      case "login": location.hash = "#/sandboxes"; return;
      case "new": await newPage(); break;
      case "sandbox": await sandboxPage(parts[1] || "", params); break;
      case "runs": await runsPage(); break;
      case "run": await runPage(parts[1] || "", parts[2] || ""); break;
      default: await sandboxesPage(params);
    }
    const title = document.getElementById("page-title");
    if (title && !main.contains(document.activeElement)) title.focus();
  }

  window.addEventListener("hashchange", () => { setStatus(""); route(); });
  route();
})();
