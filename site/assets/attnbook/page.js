// On every page: a code block wider than its box shows that it scrolls sideways (its right
// edge fades until the reader has scrolled to the end), on a phone as on a laptop.
(() => {
  const CUE = "attnbook-scrolls";
  function mark(pre) {
    const more = pre.scrollWidth - pre.clientWidth - pre.scrollLeft > 1;
    pre.classList.toggle(CUE, more);
  }
  function markAll() {
    for (const pre of document.querySelectorAll(".bd-article div.highlight pre")) mark(pre);
  }
  document.addEventListener(
    "scroll",
    (event) => {
      if (event.target instanceof HTMLElement && event.target.matches("div.highlight pre")) {
        mark(event.target);
      }
    },
    { capture: true, passive: true },
  );
  let pending = 0;
  window.addEventListener("resize", () => {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(markAll);
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", markAll);
  else markAll();
})();
