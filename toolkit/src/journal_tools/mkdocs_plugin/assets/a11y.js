// Material's script puts a <nav class="md-code__nav"> (the copy button) into
// every code block. Unnamed, they are navigation landmarks that a screen
// reader lists as identical (axe: landmark-unique): name each one after its
// code block's place on the page. They are created after load, so a
// MutationObserver names them as they appear.
(() => {
  const name = () => {
    document.querySelectorAll("nav.md-code__nav").forEach((nav, i) => {
      const label = `Code block ${i + 1}`;
      if (nav.getAttribute("aria-label") !== label) nav.setAttribute("aria-label", label);
    });
  };
  new MutationObserver(name).observe(document.body, { childList: true, subtree: true });
  name();
})();
