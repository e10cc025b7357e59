// The book's explorers on the static site, without a kernel and without the
// ipywidgets HTML manager.
//
// Each explorer is an anywidget: its saved state (the page's
// application/vnd.jupyter.widget-state+json script) holds the widget's ES module
// (`_esm`), its stylesheet (`_css`) and the synced traits. For every
// application/vnd.jupyter.widget-view+json script on the page this module imports
// the `_esm` through a Blob URL, adds the `_css` once, and calls the module's
// `render({ model, el })` with a small model that keeps the traits in the page.
// In Colab and JupyterLab the real anywidget front end runs instead.

const STATE_TYPE = "application/vnd.jupyter.widget-state+json";
const VIEW_TYPE = "application/vnd.jupyter.widget-view+json";

/** The saved traits of one widget, with a minimal anywidget model interface. */
class StaticModel {
  constructor(id, state) {
    this.model_id = id;
    this._state = { ...state };
    this._listeners = new Map();
  }

  get(name) {
    return this._state[name];
  }

  set(name, value) {
    const old = this._state[name];
    this._state[name] = value;
    if (old !== value) {
      this._emit(`change:${name}`, value);
      this._emit("change", value);
    }
  }

  on(event, callback, context) {
    for (const name of event.split(/\s+/).filter(Boolean)) {
      if (!this._listeners.has(name)) this._listeners.set(name, []);
      this._listeners.get(name).push({ callback, context });
    }
  }

  off(event, callback) {
    if (!event) {
      this._listeners.clear();
      return;
    }
    for (const name of event.split(/\s+/).filter(Boolean)) {
      if (!callback) this._listeners.delete(name);
      else {
        const kept = (this._listeners.get(name) || []).filter((l) => l.callback !== callback);
        this._listeners.set(name, kept);
      }
    }
  }

  // Nothing to sync with: there is no kernel on the static site.
  save_changes() {}

  send() {}

  _emit(name, value) {
    for (const { callback, context } of [...(this._listeners.get(name) || [])]) {
      callback.call(context, this, value);
    }
  }
}

/** Binary traits are saved base64-encoded next to the JSON state. */
function withBuffers(state, buffers) {
  for (const { path, data, encoding } of buffers || []) {
    if (encoding !== "base64" || !path?.length) continue;
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    let node = state;
    for (const key of path.slice(0, -1)) node = node[key];
    node[path[path.length - 1]] = new DataView(bytes.buffer);
  }
  return state;
}

function readModels() {
  const tag = document.querySelector(`script[type="${STATE_TYPE}"]`);
  if (!tag) return new Map();
  const saved = JSON.parse(tag.textContent).state || {};
  const models = new Map();
  for (const [id, { model_module, state, buffers }] of Object.entries(saved)) {
    models.set(id, {
      module: model_module,
      state: withBuffers(state, buffers),
    });
  }
  return models;
}

const definitions = new Map(); // _esm source -> widget definition
const styled = new Set(); // _anywidget_id or _css whose stylesheet is on the page
const initialized = new Set(); // model ids whose `initialize` has run

async function definition(source) {
  if (!definitions.has(source)) {
    const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
    const loaded = import(url)
      .then(async (mod) => {
        // anywidget accepts `export default { render }`, a default function returning
        // that object, or named exports
        const def = mod.default ?? mod;
        return typeof def === "function" ? await def() : def;
      })
      .finally(() => URL.revokeObjectURL(url));
    definitions.set(source, loaded);
  }
  return definitions.get(source);
}

function addStyle(model) {
  const css = model.get("_css");
  const key = model.get("_anywidget_id") || css;
  if (!css || styled.has(key)) return;
  styled.add(key);
  const style = document.createElement("style");
  style.dataset.anywidget = key;
  style.textContent = css;
  document.head.appendChild(style);
}

async function renderView(script, models, instances) {
  const { model_id: id } = JSON.parse(script.textContent);
  const saved = models.get(id);
  if (!saved || saved.module !== "anywidget") return; // only anywidgets are drawn here
  if (!instances.has(id)) instances.set(id, new StaticModel(id, saved.state));
  const model = instances.get(id);
  const el = document.createElement("div");
  el.className = "attnbook-widget";
  script.after(el);
  addStyle(model);
  const widget = await definition(model.get("_esm"));
  if (widget.initialize && !initialized.has(id)) {
    initialized.add(id);
    await widget.initialize({ model });
  }
  await widget.render?.({ model, el });
}

export async function renderAll(root = document) {
  const models = readModels();
  const instances = new Map();
  const views = [...root.querySelectorAll(`script[type="${VIEW_TYPE}"]`)];
  const results = await Promise.allSettled(views.map((s) => renderView(s, models, instances)));
  for (const r of results) if (r.status === "rejected") console.error("explorer:", r.reason);
}

renderAll();
