/**
 * Unauthorized script injection (docs/spec.md §8): a `<script>` element that is not one of ours
 * appears in the document. Ours are the bundle's files, served from this origin; the app itself
 * never adds script elements (lazy screens load through `import()`). Under the server's
 * `script-src 'self'` a foreign or inline script would not even run: its appearance is the attempt.
 */

export type ScriptVerdict = 'ours' | 'inline' | 'foreign';

/** An element's `src` attribute (null when absent) judged against this page's origin. */
export function classifyScript(src: string | null, origin: string): ScriptVerdict {
  if (src === null || src.trim() === '') return 'inline';
  try {
    return new URL(src, origin).origin === origin ? 'ours' : 'foreign';
  } catch {
    return 'foreign';
  }
}

/** Where a foreign script came from, for the detection's text: its origin only, never a full URL with a query. */
export function scriptOrigin(src: string | null, origin: string): string {
  if (src === null || src.trim() === '') return 'inline script';
  try {
    const url = new URL(src, origin);
    // Schemes the URL parser does not know (an extension's, data:) have the opaque origin "null".
    if (url.origin !== 'null') return url.origin;
    return url.host ? `${url.protocol}//${url.host}` : url.protocol;
  } catch {
    return 'unparseable source';
  }
}

/**
 * Calls `onForeign` for each script element not of this origin added from now on (each element
 * once). Scripts already in the document came with the page the server sent (in development, the
 * dev server's inline preamble), so they are not injections. Returns the function that stops watching.
 */
export function watchScripts(doc: Document, origin: string, onForeign: (element: Element, src: string | null) => void): () => void {
  const seen = new WeakSet<Element>();
  const inspect = (element: Element) => {
    if (seen.has(element)) return;
    seen.add(element);
    const src = element.getAttribute('src') ?? element.getAttribute('href');
    if (classifyScript(src, origin) !== 'ours') onForeign(element, src);
  };
  const scan = (node: Node) => {
    if (!(node instanceof Element)) return;
    if (node.localName === 'script') inspect(node);
    for (const script of node.querySelectorAll('script')) inspect(script);
  };
  const observer = new MutationObserver((records) => {
    for (const record of records) for (const node of record.addedNodes) scan(node);
  });
  observer.observe(doc.documentElement, { childList: true, subtree: true });
  return () => observer.disconnect();
}
