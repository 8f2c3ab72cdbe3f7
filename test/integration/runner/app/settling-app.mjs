// A small app whose pages move after `load` and after a click, as real UIs do (not umpire code), for
// issue 37: a gold click aimed from a picture taken too early lands on something else.
// - /list: the list arrives 600 ms after load and pushes "Clear all" down by eight rows; a click where
//   "Clear all" first stood opens an item instead.
// - /tray: "Edit" slides a tray in over 700 ms (a CSS transition of 500 px); the name field ends 500 px
//   left of where it starts, so a click aimed mid-slide lands on the tray's empty right half.
// - /late-tray: the same tray, but "Edit" only arms it: it starts sliding once the page is next asked
//   whether the name field is visible (as a reply a script reads a task later opens it), so it starts
//   after a settle wait looked and before the picture is taken.
// - /modal: "Delete" fades a modal in over 600 ms while it drops 80 px into place; a click aimed at
//   "Confirm" mid-fade lands above it.
// - /covered: "Buy" sits under a transparent veil: any click on it lands on the veil (as the picture
//   shows it covered); "Pay" is a plain button (the test moves it between the picture and the click).
// Every page has a spinner (an infinite animation), which no observation may wait for.
import { createServer } from "node:http";

const css = `
  body { font: 16px sans-serif; margin: 0; }
  .spinner { position: fixed; left: 10px; bottom: 10px; width: 20px; height: 20px; border: 3px solid #999;
    border-top-color: transparent; border-radius: 50%; animation: spin 1s linear infinite; }
  @keyframes spin { to { transform: rotate(360deg); } }
  button { font-size: 16px; padding: 8px 16px; }
  #status { position: fixed; top: 10px; right: 10px; }
  li { height: 40px; line-height: 40px; cursor: pointer; }
  .tray { position: fixed; top: 0; right: 0; width: 600px; height: 100%; background: #eef; padding: 40px 20px;
    box-sizing: border-box; transform: translateX(500px); visibility: hidden;
    transition: transform 700ms ease-out, visibility 0s 700ms; }
  .tray.open { transform: translateX(0); visibility: visible; transition: transform 700ms ease-out, visibility 0s; }
  .tray input { width: 80px; font-size: 16px; }
  .backdrop { position: fixed; inset: 0; background: rgba(0,0,0,.4); display: none; }
  .backdrop.open { display: block; }
  .modal { position: absolute; left: 440px; top: 200px; width: 400px; padding: 20px; background: white;
    animation: drop 600ms ease-out; }
  @keyframes drop { from { opacity: 0; transform: translateY(-80px); } to { opacity: 1; transform: none; } }
  .veil { position: fixed; left: 0; top: 0; width: 400px; height: 300px; }
`;
const page = (title, body) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><style>${css}</style></head>` +
  `<body><div class="spinner"></div><p id="status" data-testid="status"></p>${body}</body></html>`;

/** The node page with its sliding tray; `opening` is the script that opens it when "Edit" is clicked. */
function trayPage(title, opening) {
  return page(
    title,
    `<h1>Node</h1><button data-testid="edit">Edit</button>
<div class="tray" id="tray"><label>Name <input data-testid="name-field" autocomplete="off"></label>
  <p><button data-testid="save">Save</button></p></div>
<script>
  const tray = document.getElementById("tray");
  const field = document.querySelector("[data-testid=name-field]");
  ${opening}
  document.querySelector("[data-testid=save]").onclick = () => {
    document.getElementById("status").textContent = "Saved name: " + field.value;
  };
</script>`,
  );
}

const pages = {
  "/list": page(
    "List",
    `<h1>Inbox</h1><ul id="items" data-testid="items"></ul><button data-testid="clear-all">Clear all</button>
<script>
  const status = document.getElementById("status");
  const items = document.getElementById("items");
  window.addEventListener("load", async () => {
    const list = await (await fetch("/api/items")).json();
    for (const name of list) {
      const li = document.createElement("li");
      li.textContent = name;
      li.onclick = () => (status.textContent = "Opened " + name);
      items.append(li);
    }
  });
  document.querySelector("[data-testid=clear-all]").onclick = () => {
    status.textContent = "Cleared " + items.children.length + " items";
    items.replaceChildren();
  };
</script>`,
  ),
  "/tray": trayPage("Tray", `document.querySelector("[data-testid=edit]").onclick = () => tray.classList.add("open");`),
  "/late-tray": trayPage(
    "Late tray",
    `let armed = false;
  const checkVisibility = Element.prototype.checkVisibility;
  Element.prototype.checkVisibility = function (options) {
    if (armed && this === field) {
      armed = false;
      setTimeout(() => tray.classList.add("open"), 0);
    }
    return checkVisibility.call(this, options);
  };
  document.querySelector("[data-testid=edit]").onclick = () => (armed = true);`,
  ),
  "/modal": page(
    "Modal",
    `<h1>Record 7</h1><button data-testid="delete">Delete</button>
<div class="backdrop" id="backdrop"><div class="modal"><p>Delete record 7? This cannot be undone, and it
  takes a few lines of text to say so.</p><button data-testid="confirm">Confirm</button></div></div>
<script>
  document.querySelector("[data-testid=delete]").onclick = () => document.getElementById("backdrop").classList.add("open");
  document.querySelector("[data-testid=confirm]").onclick = () => {
    document.getElementById("backdrop").classList.remove("open");
    document.getElementById("status").textContent = "Deleted record 7";
  };
</script>`,
  ),
  "/covered": page(
    "Covered",
    `<p style="margin: 100px 0 0 100px"><button data-testid="buy">Buy</button></p><div class="veil" data-testid="veil"></div>
<div style="margin: 200px 0 0 100px; padding: 20px; width: 200px; background: #eee"><button data-testid="pay" id="pay">Pay</button></div>
<script>
  document.querySelector("[data-testid=buy]").onclick = () => (document.getElementById("status").textContent = "Bought");
</script>`,
  ),
};

const server = createServer((req, res) => {
  const url = new URL(req.url, "http://x");
  if (url.pathname === "/api/items") {
    const items = Array.from({ length: 8 }, (_, i) => `Message ${i + 1}`);
    setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(items)), 600);
    return;
  }
  const body = pages[url.pathname] ?? (url.pathname === "/" ? page("Home", "<h1>Settling app</h1>") : null);
  if (!body) return res.writeHead(404).end("not found");
  res.writeHead(200, { "content-type": "text/html" }).end(body);
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log(`settling app on ${process.env.PORT}`));
