/**
 * The notes page: file name, body, Save (which opens an in-page confirmation), the save status,
 * and in the cookie scenarios the consent dialog over it all.
 */
import type { Session } from "../../sessions.js";
import { cookieVariantOf } from "../../scenarios.js";
import { esc } from "../html.js";
import { cookieDialog, saveConfirmDialog } from "./dialogs.js";

export function renderNotesPage(
  matchId: string | undefined,
  session: Session,
): { title: string; main: string; overlays: string; inert: boolean } {
  const id = matchId?.trim().toUpperCase() || undefined;
  const back = id
    ? `<a class="back" data-mark="back-match" href="/match/${esc(id)}">← Back to ${esc(id)}</a>`
    : `<a class="back" data-mark="back-home" href="/">← Home</a>`;
  const main = `${back}
<h1>${esc(id ? `Notes for ${id}` : "Notes")}</h1>
<form class="notes-form" data-note-form${id ? ` data-match="${esc(id)}"` : ""}>
<label for="note-name">File name</label>
<input class="text note-name" id="note-name" data-mark="note-name" name="name" value="${esc(id ? `${id}.md` : "note.md")}" autocomplete="off" spellcheck="false">
<label for="note-body">Note</label>
<textarea class="text note-body" id="note-body" data-mark="note-body" name="body" spellcheck="false"></textarea>
<div class="row"><button class="btn primary" type="submit" data-mark="note-save" data-effect="note_saved">Save</button><span class="save-status" data-mark="save-status" role="status"></span></div>
</form>`;
  const hasCookieDialog = cookieVariantOf(session.scenario) !== null;
  const open = hasCookieDialog && session.cookie.open;
  const overlays = saveConfirmDialog() + (hasCookieDialog ? cookieDialog(open) : "");
  return {
    title: id ? `Notes for ${id} · Bat & Ball League` : "Notes · Bat & Ball League",
    main,
    overlays,
    inert: open,
  };
}
