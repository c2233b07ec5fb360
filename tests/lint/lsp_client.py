"""A minimal Language Server Protocol client over stdio, enough to drive
gradlint-clangd the way an editor does: open a file, wait for its
diagnostics, ask for the quick fixes of each and apply their edits."""

import json
import os
import select
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request


def path_to_uri(path):
    return "file://" + urllib.parse.quote(os.path.abspath(path))


def uri_to_path(uri):
    return urllib.request.url2pathname(urllib.parse.urlparse(uri).path)


class LspError(Exception):
    pass


class LspClient:
    def __init__(self, command, root, timeout=120):
        self.timeout = timeout
        # The server's log goes to a file: a full pipe would block it.
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, cwd=root)
        self.next_id = 0
        self.buffer = b""
        self.notifications = []
        self.request("initialize", {
            "processId": os.getpid(),
            "rootUri": path_to_uri(root),
            "capabilities": {
                "textDocument": {
                    "publishDiagnostics": {"relatedInformation": True},
                    "codeAction": {"codeActionLiteralSupport": {
                        "codeActionKind": {"valueSet": ["quickfix"]}}},
                },
            },
        })
        self.notify("initialized", {})

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()
        finally:
            for stream in (self.proc.stdin, self.proc.stdout, self.log):
                stream.close()

    def _send(self, message):
        body = json.dumps(message).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _read_message(self, deadline):
        while True:
            header_end = self.buffer.find(b"\r\n\r\n")
            if header_end >= 0:
                headers = self.buffer[:header_end].decode("ascii").split("\r\n")
                length = next(int(h.split(":")[1]) for h in headers
                              if h.lower().startswith("content-length"))
                start = header_end + 4
                if len(self.buffer) >= start + length:
                    body = self.buffer[start:start + length]
                    self.buffer = self.buffer[start + length:]
                    return json.loads(body)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise LspError("timed out waiting for the language server")
            ready, _, _ = select.select([self.proc.stdout], [], [], remaining)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    self.log.seek(0)
                    log = self.log.read().decode(errors="replace")
                    raise LspError(f"language server exited: {log[-int(os.environ.get('GRADLINT_LSP_LOG_TAIL', 2000)):]}")
                self.buffer += chunk

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params):
        self.next_id += 1
        request_id = self.next_id
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._read_message(deadline)
            if message.get("id") == request_id and "method" not in message:
                if "error" in message:
                    raise LspError(f"{method} failed: {message['error']}")
                return message.get("result")
            if "method" in message and "id" in message:
                # A request from the server (e.g. workDoneProgress/create).
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif "method" in message:
                self.notifications.append(message)

    def wait_for_diagnostics(self, uri):
        deadline = time.monotonic() + self.timeout
        while True:
            for i, message in enumerate(self.notifications):
                if (message["method"] == "textDocument/publishDiagnostics"
                        and message["params"]["uri"] == uri):
                    del self.notifications[i]
                    return message["params"]["diagnostics"]
            message = self._read_message(deadline)
            if "method" in message and "id" in message:
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif "method" in message:
                self.notifications.append(message)

    def open(self, path, text):
        uri = path_to_uri(path)
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "cpp", "version": 1, "text": text}})
        return uri

    def quick_fix_edits(self, uri, diagnostic):
        actions = self.request("textDocument/codeAction", {
            "textDocument": {"uri": uri},
            "range": diagnostic["range"],
            "context": {"diagnostics": [diagnostic], "only": ["quickfix"]},
        }) or []
        edits = []
        for action in actions:
            if action.get("kind") != "quickfix" or "edit" not in action:
                continue
            if action.get("diagnostics") and not any(
                    d["range"] == diagnostic["range"] and d["message"] == diagnostic["message"]
                    for d in action["diagnostics"]):
                continue
            edits.extend(action["edit"].get("changes", {}).get(uri, []))
            for change in action["edit"].get("documentChanges", []):
                if change["textDocument"]["uri"] == uri:
                    edits.extend(change["edits"])
            break  # the first quick fix, as an editor's "apply fix" does
        return edits


def offset_of(text, position):
    """The string offset of an LSP position (line, UTF-16 character)."""
    lines = text.split("\n")
    offset = sum(len(l) + 1 for l in lines[:position["line"]])
    line = lines[position["line"]] if position["line"] < len(lines) else ""
    units = 0
    for i, ch in enumerate(line):
        if units >= position["character"]:
            return offset + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return offset + len(line)


def apply_edits(text, edits):
    spans = sorted(((offset_of(text, e["range"]["start"]), offset_of(text, e["range"]["end"]),
                     e["newText"]) for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text
