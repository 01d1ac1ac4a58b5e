"""Headless Chromium (Debian's `chromium`) with one page, spoken to over the DevTools
protocol through websocket-client: what the report's and the console's browser tests drive."""

from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import websocket

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--hide-scrollbars", "--remote-debugging-port=0"]
# Any script the data managed to run would call alert or set window.__xss.
TRAP = "window.alert = window.confirm = window.prompt = () => { window.__xss = true; };"


def require_chromium() -> None:
    """Never skipped: a missing browser fails the suite."""
    if not os.path.exists(CHROMIUM):
        raise RuntimeError("Chromium is not installed: apt-get install chromium fonts-noto-cjk (.ci/run does it)")


class Browser:
    """Headless Chromium with one page, spoken to over the DevTools protocol."""

    def __init__(self, profile: Path):
        require_chromium()
        self.process = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port = self._port(profile / "DevToolsActivePort")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as answer:
            page = next(t for t in json.load(answer) if t["type"] == "page")
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=60, suppress_origin=True)
        self.ids = itertools.count(1)
        self.events: list[dict] = []
        self._ready = False

    def _port(self, path: Path) -> int:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if path.exists() and path.read_text().strip():
                return int(path.read_text().split()[0])
            if self.process.poll() is not None:
                raise RuntimeError(f"chromium exited with {self.process.returncode}")
            time.sleep(0.1)
        raise TimeoutError("chromium did not open its DevTools port")

    def send(self, method: str, **params):
        """Run one command and return its result; events that arrive meanwhile are kept."""
        number = next(self.ids)
        self.ws.send(json.dumps({"id": number, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == number:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]
            self.events.append(message)

    def wait_for(self, event: str) -> None:
        while not any(e.get("method") == event for e in self.events):
            self.events.append(json.loads(self.ws.recv()))

    def js(self, expression: str):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def until(self, expression: str, timeout: float = 30):
        """The value of `expression` once it is truthy, evaluated in the page until then
        (the page's own requestAnimationFrame-free polling: no fixed sleep)."""
        waited = self.js(f"new Promise((resolve, reject) => {{ const start = performance.now();"
                         f" const look = () => {{ let v; try {{ v = ({expression}); }} catch (e) {{ v = undefined; }}"
                         f" if (v) resolve(v); else if (performance.now() - start > {timeout * 1000})"
                         f" resolve(null); else setTimeout(look, 20); }}; look(); }})")
        if not waited:
            raise TimeoutError(f"{expression} was still false after {timeout} s")
        return waited

    def prepare(self, width: int = 1280, height: int = 2000, mobile: bool = False) -> None:
        """Enable the domains read, set the trap in every document and the window's size
        (`mobile`: a phone's, whose layout follows the page's viewport meta tag)."""
        self.events.clear()
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        if not self._ready:
            self.send("Page.addScriptToEvaluateOnNewDocument", source=TRAP)
            self._ready = True
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=mobile)

    def open(self, where: Path | str, width: int = 1280, height: int = 2000, mobile: bool = False) -> float:
        """Load a file or a URL with the trap in place, in a window `width` pixels wide; the
        seconds until its load event."""
        self.prepare(width, height, mobile)
        start = time.perf_counter()
        self.send("Page.navigate", url=where.as_uri() if isinstance(where, Path) else where)
        self.wait_for("Page.loadEventFired")
        return time.perf_counter() - start

    def navigation(self, act) -> None:
        """Run `act()` (a click, a key) and wait for the page it leads to to load."""
        self.events = [e for e in self.events if e.get("method") != "Page.loadEventFired"]
        act()
        self.wait_for("Page.loadEventFired")

    def press(self, key: str, code: str | None = None) -> None:
        """A key pressed and released, as a person types it ("s", " ", "Enter")."""
        text = key if len(key) == 1 else ("\r" if key == "Enter" else "")
        code = code or ("Space" if key == " " else f"Key{key.upper()}" if len(key) == 1 and key.isalpha() else key)
        vk = {" ": 32, "Enter": 13}.get(key, ord(key.upper()) if len(key) == 1 else 0)
        self.send("Input.dispatchKeyEvent", type="keyDown", key=key, code=code, text=text,
                  windowsVirtualKeyCode=vk, nativeVirtualKeyCode=vk)
        self.send("Input.dispatchKeyEvent", type="keyUp", key=key, code=code, windowsVirtualKeyCode=vk,
                  nativeVirtualKeyCode=vk)

    def type(self, text: str) -> None:
        """Text typed into the element that has the focus, as a keyboard (or an input method) enters it."""
        self.send("Input.insertText", text=text)

    def cookies(self) -> dict[str, str]:
        """{name: value} of the page's cookies, HttpOnly ones too: what a copy of them would carry."""
        return {c["name"]: c["value"] for c in self.send("Network.getCookies")["cookies"]}

    def errors(self) -> list:
        """Console errors, uncaught exceptions and browser log errors (CSP violations...)."""
        return [e for e in self.events
                if e.get("method") == "Runtime.exceptionThrown"
                or (e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] in ("error", "assert"))
                or (e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error")]

    def screenshot(self, path: Path) -> None:
        path.write_bytes(base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"]))

    def close(self) -> None:
        self.ws.close()
        self.process.terminate()
        self.process.wait(timeout=30)
