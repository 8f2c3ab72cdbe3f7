"""A minimal external agent in Python that speaks CDP itself (Debian's python3-websocket).

It solves scorecard-note-bb042 with a scripted policy and shows the contract: the trial arrives
as UMPIRE_* environment variables, each step is reported to UMPIRE_EVENTS_FILE as an Agents API
envelope event, the result goes to UMPIRE_RESULT_FILE. A real agent asks its model what to do.
"""
import json
import os
import sys
import time
from datetime import datetime, timezone

import websocket  # apt-get install python3-websocket


class Cdp:
    def __init__(self, url):
        self.ws = websocket.create_connection(url, timeout=30)
        self.next_id = 0

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.ws.send(json.dumps(message))
        while True:  # events arrive between replies; this agent needs none of them
            reply = json.loads(self.ws.recv())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})


def report(data):
    event = {"type": "AgentEvent", "data": data, "timestamp": datetime.now(timezone.utc).isoformat()}
    with open(os.environ["UMPIRE_EVENTS_FILE"], "a") as f:
        f.write(json.dumps(event) + "\n")


def main():
    cdp = Cdp(os.environ["UMPIRE_CDP_URL"])
    pages = [t for t in cdp.send("Target.getTargets")["targetInfos"] if t["type"] == "page"]
    session = cdp.send("Target.attachToTarget", {"targetId": pages[0]["targetId"], "flatten": True})["sessionId"]

    def js(expression):
        result = cdp.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True}, session)
        return result.get("result", {}).get("value")

    def wait_for(expression, what):
        for _ in range(100):
            try:
                if js(expression):
                    return
            except RuntimeError:
                pass  # the page is being replaced by a navigation
            time.sleep(0.1)
        raise RuntimeError(f"gave up waiting for {what}")

    step = 0

    def act(thought, tool, args, expression, until, what):
        nonlocal step
        step += 1
        request = {"tool_name": tool, "args": args, "id": f"py-{step}"}
        report({"kind": "policy_event", "reasoning_content": None, "content": thought, "tool_reqs": [request], "validation_errors": []})
        js(expression)
        wait_for(until, what)
        report({"kind": "tool_result", "tool_req": request, "result": {"status": "success", "message": f"{tool}: {what}"}})

    mark = lambda name: f"document.querySelector('[data-mark=\"{name}\"]')"
    note = "match: BB-042\nteams: Pune Pioneers vs Jaipur Kites\nscores: Pune Pioneers 168/6, Jaipur Kites 169/4\nresult: Jaipur Kites won by 6 wickets\n"
    wait_for(f"!!{mark('search-box')}", "the home page")
    act("Search for the match id", "write", {"content": "BB-042", "press_enter": True},
        f"{mark('search-box')}.value = 'BB-042'; {mark('search-box')}.form ? {mark('search-box')}.form.requestSubmit() : {mark('search-button')}.click()",
        f"!!{mark('result-BB-042')}", "search results")
    act("Open BB-042, not its look-alikes", "click", {"element": "BB-042 result"}, f"{mark('result-BB-042')}.click()",
        f"location.pathname === '/match/BB-042' && !!{mark('add-note')}", "the scorecard")
    act("Go to the notes page", "click", {"element": "Add note"}, f"{mark('add-note')}.click()",
        f"location.pathname === '/notes' && document.readyState === 'complete' && !!{mark('note-body')}", "the notes page")
    act("Write the four lines", "write", {"content": note}, f"{mark('note-body')}.value = {json.dumps(note)}; {mark('note-body')}.dispatchEvent(new Event('input', {{bubbles: true}}))",
        f"{mark('note-body')}.value.length > 0", "the note typed")
    act("Save", "click", {"element": "Save"}, f"{mark('note-save')}.click()", f"!!{mark('confirm-save')}", "the confirm dialog")
    act("Confirm the save", "click", {"element": "Confirm"}, f"{mark('confirm-save')}.click()",
        f"({mark('save-status')} || {{}}).textContent && {mark('save-status')}.textContent.includes('Saved')", "the save acknowledged")

    answer = "Saved notes/BB-042.md: Pune Pioneers 168/6, Jaipur Kites 169/4; Jaipur Kites won by 6 wickets."
    report({"kind": "answer_event", "answer": answer, "outcome": "success"})
    with open(os.environ["UMPIRE_RESULT_FILE"], "w") as f:
        json.dump({"answer": answer, "outcome": "success"}, f)


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # a non-zero exit is the agent_crashed stop reason
        print(f"python-agent: {error}", file=sys.stderr)
        sys.exit(1)
