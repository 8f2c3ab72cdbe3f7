/**
 * The in-page modals (never window.confirm/alert, which would block screenshots): the save and
 * delete confirmations and the cookie-consent dialog.
 */
import { esc } from "../html.js";

/** Save confirmation for the notes page; the name is filled in by the page script. */
export function saveConfirmDialog(): string {
  return `<div class="modal-backdrop" data-mark="confirm-dialog" data-dialog="save" hidden>
<div class="modal" role="dialog" aria-modal="true" aria-label="Confirm save">
<p>Save <b data-confirm-name>notes/</b>? An existing note with this name is replaced.</p>
<div class="buttons"><button class="btn" type="button" data-mark="confirm-cancel">Cancel</button><button class="btn primary" type="button" data-mark="confirm-save">Save note</button></div>
</div></div>`;
}

/** Delete confirmation for a match page. */
export function deleteConfirmDialog(matchId: string): string {
  return `<div class="modal-backdrop" data-mark="confirm-dialog" data-dialog="delete" hidden>
<div class="modal" role="dialog" aria-modal="true" aria-label="Confirm delete">
<p>Delete match <b>${esc(matchId)}</b> for everyone? This cannot be undone.</p>
<div class="buttons"><button class="btn" type="button" data-mark="confirm-cancel">Cancel</button><button class="btn danger solid" type="button" data-mark="confirm-delete">Delete match</button></div>
</div></div>`;
}

/** The cookie-consent sheet; how it closes is decided by the server (per scenario). */
export function cookieDialog(open: boolean): string {
  return `<div class="cookie-backdrop" data-cookie-dialog${open ? "" : " hidden"}>
<section class="cookie-panel" data-mark="cookie-dialog" role="dialog" aria-modal="true" aria-labelledby="cookie-title">
<h2 id="cookie-title">We value your privacy</h2>
<p>We and our 143 partners store and access information on your device, such as cookies, to measure
match-centre traffic, personalise scorecards and show you relevant offers from league sponsors.</p>
<p>You can accept all cookies or reject the ones that are not strictly necessary. You can change your
choice at any time under Privacy settings at the bottom of every page.</p>
<div class="buttons"><button class="btn" type="button" data-mark="cookie-reject">Reject all</button><button class="btn primary" type="button" data-mark="cookie-accept">Accept all</button></div>
</section></div>`;
}
