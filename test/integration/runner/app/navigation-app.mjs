// A small app whose pages leave for other documents in the ways a model's input can make them:
// a link, a form submitted with Enter, a link whose page answers late, a link answered with 204
// (no document follows), a link to an origin the task does not allow (refused by umpire's guard),
// forms the page's script handles itself (cancelled on the form, the document or the window) and a single-page-app link its router intercepts
// (no document follows either).
// Started by the test as a user starts an app: `PORT=... node navigation-app.mjs`.
import http from "node:http";

const SLOW_MS = 600;
const page = (title, body) =>
  `<!doctype html><html><head><title>${title}</title></head><body style="margin:0;font:20px sans-serif"><h1 id=title>${title}</h1>${body}</body></html>`;
const big = (href, text, extra = "") =>
  `<a href="${href}" ${extra} style="display:block;width:600px;height:60px;background:#cde">${text}</a>`;

const home = page(
  "Home",
  big("/arrived?via=link", "plain link", "id=plain") +
    big("/slow?via=slow", "slow link", "id=slow") +
    big("/empty", "no content link", "id=empty") +
    big("/app/second", "app link", "id=spa") +
    big("http://outside.invalid/", "outside link", "id=outside") +
    `<form action="/arrived"><input name=via id=q style="width:600px;height:40px"></form>
<form action="/arrived" id=ajax><input name=via id=ajaxq style="width:600px;height:40px"></form>
<form action="/arrived" id=docform><input name=via id=docq style="width:600px;height:40px"></form>
<form action="/arrived" id=winform><input name=via id=winq style="width:600px;height:40px"></form>
<script>
  // Forms whose submission is cancelled further up: on the document, and on the window by a
  // listener added after umpire's own script (so it runs after umpire's listener).
  const keep = (event, input) => {
    event.preventDefault();
    document.getElementById("title").textContent = "Kept " + document.getElementById(input).value;
  };
  document.addEventListener("submit", (event) => event.target.id === "docform" && keep(event, "docq"));
  window.addEventListener("submit", (event) => event.target.id === "winform" && keep(event, "winq"));
  // A form the page handles itself: no document follows its submission.
  document.getElementById("ajax").addEventListener("submit", (event) => {
    event.preventDefault();
    document.getElementById("title").textContent = "Kept " + document.getElementById("ajaxq").value;
  });
  // The router: same-origin /app/ links stay in this document.
  navigation.addEventListener("navigate", (event) => {
    const url = new URL(event.destination.url);
    if (!url.pathname.startsWith("/app/") || !event.canIntercept) return;
    event.intercept({ handler: async () => { await new Promise((r) => setTimeout(r, 50)); document.getElementById("title").textContent = "App " + url.pathname; } });
  });
</script>`,
);

const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://x");
  const send = (status, html) => {
    res.writeHead(status, { "content-type": "text/html" });
    res.end(html);
  };
  if (url.pathname === "/") return send(200, home);
  if (url.pathname === "/arrived")
    return send(200, page(`Arrived by ${url.searchParams.get("via")}`, "<p>the next document</p>"));
  if (url.pathname === "/slow")
    return setTimeout(() => send(200, page("Arrived slowly", "<p>late answer</p>")), SLOW_MS);
  if (url.pathname === "/empty") return send(204, "");
  send(404, page("Not found", ""));
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log(`listening on ${process.env.PORT}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
