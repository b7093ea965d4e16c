"""Open a page in headless Chromium and watch it, over the DevTools protocol on a pipe.

Standard library only: Chromium is started with ``--remote-debugging-pipe`` and speaks
NUL-terminated JSON on file descriptors 3 (commands in) and 4 (events out). Every
request the page makes (``Network.requestWillBeSent``), every console error
(``Runtime.consoleAPICalled``, ``Runtime.exceptionThrown``, ``Log.entryAdded``) is
recorded; the proxy is a closed port and host names resolve nowhere, so a request that
slips through could not reach the network anyway.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

#: names Debian, Ubuntu and others give the browser
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser() -> str | None:
    """The path of a Chromium on this machine (``LABELVAR_CHROMIUM`` first), or None."""
    env = os.environ.get("LABELVAR_CHROMIUM")
    if env:
        return env if Path(env).is_file() else None
    return next((p for p in map(shutil.which, BROWSERS) if p), None)


class Browser:
    """One headless Chromium, one page: ``open(url)`` then ``evaluate``/``screenshot``."""

    def __init__(self, exe: str, width: int = 1200, height: int = 1600):
        self._profile = tempfile.mkdtemp(prefix="labelvar-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        # the child reads commands on fd 3 and writes replies on fd 4
        args = [exe, "--headless", "--disable-gpu", "--no-sandbox", "--remote-debugging-pipe",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-sync",
                "--disable-component-update", "--proxy-server=127.0.0.1:9",
                "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={self._profile}",
                f"--window-size={width},{height}", "about:blank"]

        def child_fds():  # (through fds >= 10, so that 3 and 4 cannot clobber each other)
            a = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self._proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL,
                                      pass_fds=(3, 4, to_child_r, from_child_w),
                                      preexec_fn=child_fds)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []
        self.session = None
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target,
                                                           "flatten": True})["sessionId"]
        for domain in ("Page", "Network", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    # ------------------------------------------------------------------ the pipe
    def _read(self, timeout: float) -> dict | None:
        end = time.monotonic() + timeout
        while b"\0" not in self._buf:
            left = end - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self._from_child], [], [], left)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self._buf += chunk
        msg, _, self._buf = self._buf.partition(b"\0")
        return json.loads(msg)

    def send(self, method: str, params: dict | None = None, timeout: float = 60) -> dict:
        """A command's result (events arriving meanwhile are kept in :attr:`events`)."""
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if self.session and not method.startswith("Target."):
            msg["sessionId"] = self.session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        end = time.monotonic() + timeout
        while True:
            reply = self._read(max(0.0, end - time.monotonic()))
            if reply is None:
                raise TimeoutError(f"no reply to {method} in {timeout} s")
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, timeout: float = 60) -> dict:
        """The first event ``method`` (already received or arriving within ``timeout``)."""
        for e in self.events:
            if e.get("method") == method:
                return e
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            e = self._read(end - time.monotonic())
            if e is None:
                break
            self.events.append(e)
            if e.get("method") == method:
                return e
        raise TimeoutError(f"no {method} in {timeout} s")

    # ------------------------------------------------------------------ the page
    def open(self, url: str) -> None:
        """Load ``url`` and wait for its load event (events of earlier pages dropped)."""
        self.events.clear()
        self.send("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")
        self.send("Runtime.evaluate", {"expression": "1", "returnByValue": True})  # settle

    def evaluate(self, expression: str):
        """A JavaScript expression's value in the page (JSON-able)."""
        res = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                             "awaitPromise": True})
        if "exceptionDetails" in res:
            raise RuntimeError(f"evaluate: {res['exceptionDetails']}")
        return res["result"].get("value")

    def requests(self) -> list[str]:
        """URLs the page requested."""
        return [e["params"]["request"]["url"] for e in self.events
                if e.get("method") == "Network.requestWillBeSent"]

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries."""
        out = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(" ".join(str(a.get("value", a.get("description", "")))
                                    for a in p.get("args", [])))
            elif m == "Runtime.exceptionThrown":
                out.append(str(p.get("exceptionDetails", {}).get("text")))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append(p["entry"].get("text", ""))
        return out

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        """A PNG of the page (its first screen, or all of it)."""
        params = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
        data = self.send("Page.captureScreenshot", params)["data"]
        Path(path).write_bytes(base64.b64decode(data))
        return Path(path)

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=10)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)
