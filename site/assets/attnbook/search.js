// Search results quote the page's article, not the buttons above it: Sphinx takes a
// result's summary from the page's [role="main"] element, which in this theme also
// holds the header with the launch, repository and download buttons (and the
// table of contents printed on paper only).
/* global Search */
(function () {
  // searchtools.js declares `const Search`: a global binding, not a window property
  if (typeof Search === "undefined" || !Search.htmlToText) return;
  const fromMain = Search.htmlToText;
  Search.htmlToText = (htmlString, anchor) => {
    const doc = new DOMParser().parseFromString(htmlString, "text/html");
    const article = doc.querySelector("article.bd-article");
    if (!article) return fromMain(htmlString, anchor);
    // the table of contents printed on paper only
    article.querySelectorAll(".onlyprint").forEach((el) => el.remove());
    return fromMain(`<div role="main">${article.innerHTML}</div>`, anchor);
  };
})();
