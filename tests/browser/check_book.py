#!/usr/bin/env python3
"""Checks the rendered book (target/book) in a real browser, offline.

Serves the book on 127.0.0.1, opens pages in headless Chromium (Debian's `chromium`) and checks:
the formulas are MathML that the browser lays out, an example shows what the reference runtime
computed, HLO blocks are highlighted and every runnable example shows its `xla-spec run` command
with a working copy button, the search page finds an op, and no request left the machine. Chromium is pointed at a
recording proxy on another local port: the loopback server is reached directly, anything else
would go through the proxy and be recorded as a failure (name resolution is also disabled for
every other host). A screenshot of one page is kept at target/book-screenshot.png.

Standard library only. Usage: python3 tests/browser/check_book.py [BOOK_DIR] [SCREENSHOT]
"""

import base64
import fcntl
import functools
import json
import select
import http.server
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

class Handler(http.server.SimpleHTTPRequestHandler):
    log = None

    def do_GET(self):
        Handler.log.append(self.path)
        super().do_GET()

    def log_message(self, *args):
        pass


def recording_proxy(log):
    """A listener that records the first line of anything sent to it and hangs up."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)

    def run():
        while True:
            try:
                c, _ = s.accept()
            except OSError:
                return
            try:
                c.settimeout(2)
                first = c.recv(4096).split(b"\r\n", 1)[0].decode("latin-1")
                log.append(first)
                c.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            except OSError:
                pass
            finally:
                c.close()

    threading.Thread(target=run, daemon=True).start()
    return s


def chromium_binary():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("check_book: no chromium found (apt-get install chromium)")


class Browser:
    """Headless Chromium driven over the DevTools protocol on a pipe (fds 3 and 4, messages
    separated by NUL bytes), so that every request a page makes is seen."""

    def __init__(self, binary, proxy_port, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # Move the child's ends above 4 first, so that placing them at 3 and 4 cannot clobber.
        hi_r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
        hi_w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)

        def child():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        cmd = [
            binary,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--disable-extensions",
            "--user-data-dir=" + profile,
            # Anything not on the loopback interface goes to the recording proxy, which answers
            # nothing; host names other than 127.0.0.1 do not resolve.
            "--proxy-server=http://127.0.0.1:%d" % proxy_port,
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            "--remote-debugging-pipe",
            "--window-size=1280,1400",
            "about:blank",
        ]
        self.proc = subprocess.Popen(
            cmd,
            preexec_fn=child,
            pass_fds=(3, 4),  # kept open after `child` placed the pipe ends there
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for fd in (to_chrome_r, from_chrome_w, hi_r, hi_w):
            os.close(fd)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError("no answer from chromium")
            ready, _, _ = select.select([self.from_chrome], [], [], left)
            if ready:
                chunk = os.read(self.from_chrome, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, session=None, timeout=60, **params):
        self.next_id += 1
        mid = self.next_id
        msg = {"id": mid, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == mid:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, session, timeout=60):
        deadline = time.time() + timeout
        for i, m in enumerate(self.events):
            if m.get("method") == method and m.get("sessionId") == session:
                return self.events.pop(i)
        while True:
            m = self._read(deadline)
            if m.get("method") == method and m.get("sessionId") == session:
                return m
            self.events.append(m)

    def open(self, url):
        """Opens `url` in a new tab, waits for its load event, returns (session, requested URLs)."""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Network.enable", session)
        self.call("Page.enable", session)
        self.call("Page.navigate", session, url=url)
        self.wait_event("Page.loadEventFired", session)
        urls = [
            m["params"]["request"]["url"]
            for m in self.events
            if m.get("method") == "Network.requestWillBeSent" and m.get("sessionId") == session
        ]
        return session, urls

    def eval(self, session, expression):
        r = self.call("Runtime.evaluate", session, expression=expression, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError("script failed: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    def screenshot(self, session, path):
        data = self.call("Page.captureScreenshot", session, format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


MATH_FACTS = """(() => {
  const maths = [...document.querySelectorAll("math")];
  const frac = document.querySelector("mfrac");
  return {
    count: maths.length,
    mathml: maths.filter(m => m instanceof MathMLElement).length,
    laidOut: maths.filter(m => { const r = m.getBoundingClientRect(); return r.width > 0 && r.height > 0; }).length,
    fracHeight: frac ? frac.getBoundingClientRect().height : 0,
    fontSize: parseFloat(getComputedStyle(document.querySelector("p")).fontSize) || 0,
  };
})()"""


def main():
    book = sys.argv[1] if len(sys.argv) > 1 else "target/book"
    shot = sys.argv[2] if len(sys.argv) > 2 else "target/book-screenshot.png"
    if not os.path.exists(os.path.join(book, "index.html")):
        sys.exit("check_book: %s has no index.html; run `cargo run --release -- book` first" % book)
    requests, outside = [], []
    Handler.log = requests
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=book)
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    proxy = recording_proxy(outside)
    base = "http://127.0.0.1:%d/" % server.server_address[1]
    binary = chromium_binary()
    failures = []

    def check(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            failures.append(what)

    page_requests = []
    with tempfile.TemporaryDirectory() as profile:
        browser = Browser(binary, proxy.getsockname()[1], profile)
        try:
            # 1. The BatchNorm formulas: MathML elements that the browser lays out.
            session, urls = browser.open(base + "ops/numerics/batch-norm.html")
            page_requests += urls
            m = browser.eval(session, MATH_FACTS)
            print("math facts: %s" % m)
            check(m["count"] >= 5, "the batch-norm page has MathML formulas (%d <math>)" % m["count"])
            check(m["mathml"] == m["count"], "every <math> is a MathMLElement")
            check(m["laidOut"] == m["count"], "every formula has a non-empty box")
            # Laid out as MathML, a fraction stacks numerator over denominator; as plain text it
            # would be one line of about 1.2 times the font size.
            check(m["fracHeight"] > 1.5 * m["fontSize"], "fractions are stacked")
            os.makedirs(os.path.dirname(os.path.abspath(shot)), exist_ok=True)
            browser.screenshot(session, shot)
            check(os.path.getsize(shot) > 10000, "screenshot written to " + shot)

            # 2. An example shows its computed result.
            session, urls = browser.open(base + "ops/movement/slice.html")
            page_requests += urls
            shown = browser.eval(
                session,
                "[...document.querySelectorAll('.computed')].map(e => e.innerText)",
            )
            check(
                any("Computed by the reference runtime" in t and "{" in t for t in shown),
                "the slice page shows computed example results (%d)" % len(shown),
            )

            # 3. HLO is highlighted by the renderer, and every runnable example shows the
            # `xla-spec run` command that runs it, with a copy button that copies a snippet.
            hl = browser.eval(
                session,
                """(() => {
                  const blocks = [...document.querySelectorAll('pre > code.hlo')];
                  const kinds = ['op', 'shape', 'attr', 'name', 'kw'];
                  const count = k => document.querySelectorAll('code.hlo .hl-' + k).length;
                  const op = document.querySelector('code.hlo .hl-op');
                  const plain = document.querySelector('code.hlo');
                  return {
                    blocks: blocks.length,
                    spans: Object.fromEntries(kinds.map(k => [k, count(k)])),
                    opColor: op ? getComputedStyle(op).color : '',
                    textColor: plain ? getComputedStyle(plain).color : '',
                    examples: document.querySelectorAll('.computed').length,
                    commands: [...document.querySelectorAll('.computed .run-command code')].map(e => e.innerText),
                    buttons: document.querySelectorAll('.computed .run-command button.copy').length,
                    copy: (document.querySelector('.run-command button.copy') || {getAttribute: () => ''}).getAttribute('data-copy'),
                  };
                })()""",
            )
            print("highlighting: %s blocks, spans %s" % (hl["blocks"], hl["spans"]))
            check(hl["blocks"] >= 1 and all(v > 0 for v in hl["spans"].values()),
                  "HLO blocks are highlighted (opcodes, shapes, attributes, names, keywords)")
            check(hl["opColor"] != "" and hl["opColor"] != hl["textColor"],
                  "an opcode is drawn in its own colour (%s vs %s)" % (hl["opColor"], hl["textColor"]))
            check(hl["examples"] > 0 and len(hl["commands"]) == hl["examples"] and hl["buttons"] == hl["examples"],
                  "every runnable example has a run command and a copy button (%d examples, %d commands, %d buttons)"
                  % (hl["examples"], len(hl["commands"]), hl["buttons"]))
            check(bool(hl["commands"]) and all(c.startswith("xla-spec run ") and ".hlo" in c for c in hl["commands"]) and any(".hlo '" in c for c in hl["commands"]),
                  "the commands run the example's module with its arguments (%s)" % hl["commands"][:1])
            check(hl["copy"].startswith("cat > ") and hl["copy"].rstrip().endswith(hl["commands"][0] if hl["commands"] else "?"),
                  "the copy button holds a snippet that writes the module and runs the command")
            # The real clipboard needs a user gesture; a stand-in records what the button writes.
            browser.eval(
                session,
                "if (!navigator.clipboard) Object.defineProperty(navigator, 'clipboard', {value: {}});"
                " navigator.clipboard.writeText = t => { window.__copied = t; return Promise.resolve(); };"
                " document.querySelector('.run-command button.copy').click(); 0",
            )
            time.sleep(0.3)
            copied = browser.eval(session, "window.__copied || ''")
            check(copied == hl["copy"], "clicking the copy button copies the snippet")

            # 4. Search finds an op.
            for query, page in [
                ("gather", "ops/indexing/gather.html"),
                ("select-and-scatter", "ops/reduction/select-and-scatter.html"),
            ]:
                session, urls = browser.open(base + "search.html?search=" + query)
                page_requests += urls
                links = browser.eval(
                    session,
                    "[...document.querySelectorAll('#search-results a')].map(a => a.getAttribute('href'))",
                )
                check(page in links[:3], "searching for `%s` lists %s in the top three (%s)" % (query, page, links[:3]))
        finally:
            browser.close()

    server.shutdown()
    proxy.close()
    check("/assets/book.css" in requests, "pages loaded their style sheet from the local server")
    check("/search-index.js" in requests, "the search page loaded its index from the local server")
    foreign = [u for u in page_requests if not u.startswith(base)]
    check(bool(page_requests) and not foreign,
          "the pages requested only %s (%d requests)%s" % (base, len(page_requests), "" if not foreign else ": %s" % foreign))
    # Chromium's own background traffic (time and sign-in services) happens even on about:blank;
    # it met the dead-end proxy, so it did not leave the machine either.
    print("note: %d browser-internal connection attempt(s) stopped at the local proxy" % len(outside))
    if failures:
        sys.exit("check_book: %d check(s) failed" % len(failures))
    print("check_book: all checks passed")


if __name__ == "__main__":
    main()
