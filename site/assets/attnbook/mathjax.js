// MathJax, started once the page has loaded: the text, figures and explorers come first,
// and the math is typeset a moment later instead of holding up the load event.
//
// Sphinx loads this file (its mathjax_path) only on pages with math, after the inline
// `window.MathJax = {...}` configuration from _config.yml. When MathJax has typeset the
// page it leaves the performance mark "attnbook:math-typeset" (benchmarks/page_weight.py
// reads it). A display equation wider than the column (a phone) is scaled down to fit it,
// again whenever the window's width changes.
(() => {
  const MIN_SCALE = 0.5;
  function fitEquations() {
    for (const eq of document.querySelectorAll("div.math mjx-container")) {
      eq.dataset.attnbookSize ??= String(parseFloat(eq.style.fontSize) || 100);
      const base = Number(eq.dataset.attnbookSize);
      eq.style.fontSize = `${base}%`;
      const room = eq.clientWidth;
      const need = eq.scrollWidth;
      if (need > room + 1) eq.style.fontSize = `${base * Math.max(MIN_SCALE, (room - 2) / need)}%`;
    }
  }
  let pending = 0;
  window.addEventListener("resize", () => {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(fitEquations);
  });
  const startup = new URL("../attnbook-vendor/mathjax/startup.js", document.currentScript.src).href;
  const config = (window.MathJax = window.MathJax || {});
  config.startup = {
    ...config.startup,
    pageReady() {
      return window.MathJax.startup.defaultPageReady().then(() => {
        fitEquations();
        performance.mark("attnbook:math-typeset");
      });
    },
  };
  function start() {
    const script = document.createElement("script");
    script.src = startup;
    script.async = true;
    document.head.appendChild(script);
  }
  if (document.readyState === "complete") start();
  else window.addEventListener("load", start, { once: true });
})();
