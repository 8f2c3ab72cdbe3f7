/**
 * `/dialogs`: the browser's own dialogs (window.alert, confirm, prompt and a beforeunload guard) and
 * two ways to open a tab, for the runner's native-dialog handling. Every answer is written into
 * `dialog-result`, so a page check (or a person) sees how the dialog was answered.
 */
export function renderNativeDialogs(): { title: string; main: string } {
  const main = `<div class="native-dialogs">
<h1>Dialogs</h1>
<p>Buttons that ask through the browser's own dialogs.</p>
<p><button class="btn" type="button" data-mark="alert-button" id="alert-button">Show notice</button>
<button class="btn danger" type="button" data-mark="confirm-button" id="confirm-button">Delete draft</button>
<button class="btn" type="button" data-mark="prompt-button" id="prompt-button">Rename draft</button>
<button class="btn" type="button" data-mark="leave-guard" id="leave-guard">Start editing</button></p>
<p><a data-mark="leave-link" href="/">Leave for the home page</a> ·
<a data-mark="new-tab-link" href="/search?q=BB-042" target="_blank">Open BB-042 results in a new tab</a> ·
<button class="btn" type="button" data-mark="window-open" id="window-open">Open match BB-042 in a window</button></p>
<p data-mark="dialog-result" id="dialog-result">No dialog answered yet.</p>
</div>
<script>
(() => {
  const out = document.getElementById("dialog-result");
  const say = (text) => { out.textContent = text; };
  document.getElementById("alert-button").onclick = () => { alert("The season ends on Sunday."); say("alert: closed"); };
  document.getElementById("confirm-button").onclick = () => { say(confirm("Delete the draft note?") ? "confirm: deleted" : "confirm: kept"); };
  document.getElementById("prompt-button").onclick = () => {
    const name = prompt("New name for the draft:", "draft.md");
    say(name === null ? "prompt: cancelled" : "prompt: renamed to " + name);
  };
  document.getElementById("leave-guard").onclick = () => {
    window.addEventListener("beforeunload", (event) => { event.preventDefault(); event.returnValue = ""; });
    say("editing: leaving asks first");
  };
  document.getElementById("window-open").onclick = () => { window.open("/match/BB-042", "_blank"); };
})();
</script>`;
  return { title: "Dialogs", main };
}
