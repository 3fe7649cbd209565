"""Strategy: `ever browse`'s page as a person sees it, in a real browser: headless Chromium (Debian's
`chromium` package) driven by Playwright. Chats are written in the store's file format
(tests/support/chat_files.py) with texts this file chooses, so every expected text comes from the chat's
source, never from the page's code. The page is opened from its file; each test asserts what the
DOM shows (lines, messages, search results), that the console stayed free of errors, and that a
planted script never ran. The 100,000-message page's time to first screen is measured and printed,
never asserted; its first screen's size is asserted against the view's bound [B1].

Without Chromium these tests skip with one sentence; with EVER_REQUIRE_BROWSER=1 (CI) they fail.
"""

import http.client
import os
import re
import shutil
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

from harness.browse.page import first_screen_bytes, page
from harness.memory.service import Memory
from tests.support.chat import EVER
from tests.support.chat_files import write_chat

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]

PLANTED = ('<script>window.__ran = 1</script></chat><b>bold</b><img src=x onerror="window.__ran = 2">'
           '</script><script>window.__ran = 3</script><!-- & &amp; -->')
OLD_WORD = "quetzalcoatl"
UNICODE = "naïve café — 日本語 ✓ 🦜 \u2028 and a tab\tend"


def chat_text(i, rng):
    if i == 3:
        return f"an old message with the word {OLD_WORD.capitalize()} in it"
    if i == 5:
        return PLANTED
    if i == 9:
        return "a long one. " + "x" * 900  # more than 512 bytes: summarized, not its own line
    if i == 11:
        return UNICODE
    return f"message number {i}: " + " ".join(rng.choice("ab cd ef gh ij".split()) for _ in range(200))


def expected_text(i):
    """Message i's text as the generator writes it (for the ones these tests look at)."""
    return {3: chat_text(3, None), 5: PLANTED, 11: UNICODE}[i]


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM) or shutil.which("chromium") is None:
        if os.environ.get("EVER_REQUIRE_BROWSER") == "1":
            pytest.fail(f"EVER_REQUIRE_BROWSER=1 but {CHROMIUM} is missing: apt-get install chromium")
        pytest.skip(f"the browser tests need Chromium at {CHROMIUM} (Debian: apt-get install chromium).")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield instance
        instance.close()


@pytest.fixture(scope="module")
def small_page(tmp_path_factory):
    """A chat of 600 messages (three parts) and its page on disk."""
    home = tmp_path_factory.mktemp("small")
    write_chat(home, 600, text=chat_text)
    memory = Memory.open(home)
    try:
        data = page(memory.store, memory.planner)
        view = memory.planner.view.lines()
    finally:
        memory.close()
    path = home / "memory.html"
    path.write_bytes(data)
    return path, data, view


class Opened:
    """A page in a fresh tab, with every console error and page error kept."""

    def __init__(self, browser, url):
        self.tab = browser.new_page(viewport={"width": 1200, "height": 900})
        self.errors = []
        self.tab.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.tab.on("pageerror", lambda e: self.errors.append(str(e)))
        self.tab.goto(url)
        self.tab.wait_for_selector("#view > details")

    def close(self):
        self.tab.close()


@pytest.fixture
def opened(browser, small_page):
    tabs = []

    def open_at(anchor=""):
        tab = Opened(browser, small_page[0].as_uri() + anchor)
        tabs.append(tab)
        return tab

    yield open_at
    for tab in tabs:
        tab.close()


def test_the_page_opens_on_the_view_with_no_console_error(opened, small_page, tmp_path):
    _, _, view = small_page
    shown = opened()
    ids = shown.tab.eval_on_selector_all("#view > details", "ds => ds.map(d => d.id)")
    assert ids == [f"n{i << l}+{1 << l}" for l, i in view]
    assert shown.tab.text_content("#status").startswith("600 messages · the view: ")
    shown.tab.screenshot(path=str(tmp_path / "page.png"))
    assert (tmp_path / "page.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shown.errors == []


def test_the_page_opens_at_the_newest_line_and_an_anchor_still_wins(browser, small_page):
    _, _, view = small_page
    tab = browser.new_page(viewport={"width": 1200, "height": 300})  # shorter than the view
    try:
        tab.goto(small_page[0].as_uri())
        tab.wait_for_selector("#view > details")
        assert tab.evaluate("document.scrollingElement.scrollHeight > innerHeight + 100")
        l, i = view[-1]
        last = tab.evaluate(f"document.getElementById('n{i << l}+{1 << l}').getBoundingClientRect().toJSON()")
        first = tab.evaluate("document.querySelector('#view > details').getBoundingClientRect().toJSON()")
        height = tab.evaluate("innerHeight")
        assert 0 <= last["top"] and last["bottom"] <= height + 1  # the newest line is on screen
        assert first["bottom"] < 0  # the oldest is above it, scrolled past
        tab.goto(small_page[0].as_uri() + "#m5")
        tab.wait_for_selector("#m5")
        top = tab.evaluate("document.getElementById('m5').getBoundingClientRect().toJSON()")
        assert 0 <= top["top"] < height  # an anchor opens where it points, not at the end
    finally:
        tab.close()


def test_a_line_opens_into_its_two_lines_down_to_the_message(opened):
    shown = opened()
    tab = shown.tab
    first = tab.query_selector("#view > details")
    level = int(first.get_attribute("data-l"))
    assert level >= 2, "the oldest view line of 600 messages is a merge"
    target = first
    for l in range(level, 0, -1):
        target.query_selector(":scope > summary").click()
        children = target.query_selector_all(":scope > .children > details")
        tab.wait_for_function("d => d.querySelectorAll(':scope > .children > details').length == 2", arg=target)
        children = target.query_selector_all(":scope > .children > details")
        assert [c.get_attribute("id") for c in children] == [f"n0+{1 << (l - 1)}", f"n{1 << (l - 1)}+{1 << (l - 1)}"]
        target = children[0]
    target.query_selector(":scope > summary").click()
    tab.wait_for_selector("#m0")
    assert tab.text_content("#m0 pre").startswith("message number 0: ")
    assert tab.text_content("#m0 .kind") == "user"
    assert tab.text_content("#n0\\+1 > summary .meta").startswith("message 0 · 2026-01-01 09:00 · ")
    assert shown.errors == []


@pytest.mark.slow  # a page of thousands of lines in Chromium, seconds each: make test-slow
def test_an_anchor_opens_the_lines_down_to_its_message_or_line(opened, small_page):
    shown = opened("#m3")
    tab = shown.tab
    tab.wait_for_selector("#m3.sought")
    assert tab.text_content("#m3 pre") == expected_text(3)
    assert tab.text_content("#m3 .kind") == "ever"
    other = opened("#m11")
    other.tab.wait_for_selector("#m11.sought")
    assert other.tab.text_content("#m11 pre") == expected_text(11)  # decoded from its part whole
    assert small_page[2][1] == (3, 1), "the view starts with two lines of 8 messages"
    line = opened("#n8+2")
    line.tab.wait_for_selector("[id='n8+2'].sought")
    assert line.tab.eval_on_selector("[id='n8+2']", "d => d.open") is True
    assert line.tab.eval_on_selector("[id='n8+8']", "d => d.open") is True
    assert line.tab.text_content("[id='n8+2'] > summary .meta").startswith("messages 8–9 · 2026-01-01 09:24 – 2026-01-01 09:27 · ")
    above = opened("#n256+128")
    above.tab.wait_for_function("() => document.getElementById('notice').textContent != ''")
    assert above.tab.text_content("#notice") == "Line 256+128 is above the view's lines; its messages are under them."
    assert shown.errors == [] and line.errors == [] and above.errors == [] and other.errors == []


def test_search_finds_a_word_from_an_old_message(opened):
    shown = opened()
    tab = shown.tab
    tab.fill("#search", OLD_WORD.upper())
    tab.press("#search", "Enter")
    tab.wait_for_function("() => document.getElementById('searching').textContent.endsWith('found')")
    links = tab.eval_on_selector_all("#results a", "as => as.map(a => a.getAttribute('href'))")
    assert "#m3" in links
    tab.click("#results a[href='#m3']")
    tab.wait_for_selector("#m3.sought")
    assert OLD_WORD.capitalize() in tab.text_content("#m3 pre")
    assert shown.errors == []


def test_a_planted_script_is_shown_as_text_and_never_runs(opened, small_page):
    _, data, _ = small_page
    assert b"<script>window.__ran" not in data and b"<img src=x" not in data
    shown = opened("#m5")
    tab = shown.tab
    tab.wait_for_selector("#m5.sought")
    assert tab.text_content("#m5 pre") == PLANTED
    assert tab.evaluate("window.__ran") is None
    assert tab.eval_on_selector_all("main img, main b", "es => es.length") == 0
    tab.fill("#search", "window.__ran")
    tab.press("#search", "Enter")
    tab.wait_for_function("() => document.getElementById('searching').textContent.endsWith('found')")
    assert tab.evaluate("window.__ran") is None
    assert shown.errors == []


def test_ever_browse_writes_the_page_and_serves_it_on_the_loopback(tmp_path):
    write_chat(tmp_path, 40, text=chat_text)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVER_"))}
    env["EVER_HOME"] = str(tmp_path)
    out = tmp_path / "page.html"
    done = subprocess.run([EVER, "browse", "--out", str(out)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{out} ({out.stat().st_size:,} bytes): open it in a browser\n"
    assert oct(out.stat().st_mode & 0o777) == "0o600"
    server = subprocess.Popen([EVER, "browse", "--serve"], env=env, stdout=subprocess.PIPE, text=True)
    try:
        said = server.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:[0-9]+/\S+/", said)[0]
        with urllib.request.urlopen(url, timeout=60) as answer:  # a hang guard
            served = answer.read()
        assert served.startswith(b"<!doctype html>") and b"40 messages" in served
        made = re.compile(rb'"made":"[^"]*"')  # the two pages differ only in when they were made
        assert made.sub(b"", served) == made.sub(b"", out.read_bytes())
    finally:
        server.terminate()
        server.wait(timeout=60)


def request(url: str, method: str = "GET", host: str | None = None):
    """(status, headers, body) of one real HTTP request."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.putrequest(method, parts.path, skip_host=host is not None)
        if host is not None:
            connection.putheader("Host", host)
        connection.endheaders()
        answer = connection.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read()
    finally:
        connection.close()


def test_the_served_page_needs_its_secret_and_a_loopback_host_answers_head_and_shows_new_messages(tmp_path):
    write_chat(tmp_path, 40, text=chat_text)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVER_"))}
    env["EVER_HOME"] = str(tmp_path)
    server = subprocess.Popen([EVER, "browse", "--serve"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        said = server.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:([0-9]+)(/\S+/)", said)
        port, path = url[1], url[2]
        assert len(path) >= 30  # a secret of at least 24 random characters
        root = f"http://127.0.0.1:{port}/"
        assert request(root)[0] == 404  # without the secret, nothing
        assert request(root + path.strip("/"))[0] == 404
        assert request(url[0], host=f"rebound.example:{port}")[0] == 421  # DNS rebinding
        assert request(url[0], host="127.0.0.1")[0] == 421  # not the port served
        status, _, first = request(url[0], host=f"localhost:{port}")
        assert status == 200 and b"40 messages" in first
        status, headers, body = request(url[0], "HEAD")
        assert (status, body) == (200, b"") and int(headers["Content-Length"]) > 1000
        write_chat(tmp_path, 44, text=chat_text)  # the chat goes on while it is served
        status, _, again = request(url[0])
        assert status == 200 and b"44 messages" in again
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=60)
    assert path.strip("/") not in errors  # the secret is logged nowhere


# the first screen is bounded whatever T [B1]: make test shows it at 20,000 messages,
# make test-long (EVER_LONG_TESTS=1) at the 100,000 the README's figures come from
BIG_CHAT = 100_000 if os.environ.get("EVER_LONG_TESTS") == "1" else 20_000


@pytest.mark.slow
def test_a_page_of_100000_messages_opens_with_a_bounded_first_screen(browser, tmp_path):
    home = tmp_path
    write_chat(home, BIG_CHAT, seed=11)
    memory = Memory.open(home)
    try:
        started = time.perf_counter()
        data = page(memory.store, memory.planner)
        made_seconds = time.perf_counter() - started
        view_bytes = memory.planner.view.bytes
        wanted = memory.store.message(BIG_CHAT * 7 // 9)["text"]
    finally:
        memory.close()
    path = home / "memory.html"
    path.write_bytes(data)
    first = first_screen_bytes(data)
    # [B1] the first screen is the view's lines and the page's own code, whatever T
    assert first <= view_bytes + 64_000, (first, view_bytes)
    tab = browser.new_page(viewport={"width": 1200, "height": 900})
    errors = []
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    started = time.perf_counter()
    tab.goto(path.as_uri(), wait_until="commit")
    tab.wait_for_selector("#view > details")
    shown_seconds = time.perf_counter() - started
    tab.wait_for_load_state("load")
    loaded_seconds = time.perf_counter() - started
    timings = tab.evaluate("""() => ({
        mark: performance.getEntriesByName('first-screen')[0].startTime,
        paint: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime,
        load: performance.timing.loadEventEnd - performance.timing.navigationStart})""")
    sought = f"m{BIG_CHAT * 7 // 9}"
    tab.goto(path.as_uri() + "#" + sought)
    tab.wait_for_selector(f"#{sought}.sought", timeout=30_000)
    assert tab.text_content(f"#{sought} pre") == wanted
    tab.close()
    print(f"\n{BIG_CHAT:,} messages: page {len(data):,} bytes made in {made_seconds:.2f} s; first screen "
          f"{first:,} bytes (view {view_bytes:,}); first line on screen {shown_seconds * 1000:.0f} ms "
          f"from goto; script's mark {timings['mark']:.0f} ms, first paint {timings['paint']} ms, "
          f"load {timings['load']} ms after navigation (the whole file: {loaded_seconds * 1000:.0f} ms)")
    assert errors == []


def test_a_planted_script_in_a_line_of_the_view_stays_text(browser, tmp_path):
    """A chat logged through the memory itself: short messages are their own lines, so the
    planted text is in the first screen's JSON, not only in a compressed part."""
    memory = Memory.open(tmp_path)
    try:
        memory.append("user", "hello")
        memory.append("ever", PLANTED)
        data = page(memory.store, memory.planner)
        view = [(l, i) for l, i in memory.planner.view.lines()]
    finally:
        memory.close()
    first_screen = data[:first_screen_bytes(data)]
    assert b"</script><script>" not in first_screen and b"<img src=x" not in first_screen
    assert "ever: " + PLANTED in memory_texts(first_screen)  # it is there, escaped
    path = tmp_path / "memory.html"
    path.write_bytes(data)
    shown = Opened(browser, path.as_uri())
    try:
        tab = shown.tab
        ids = tab.eval_on_selector_all("#view > details", "ds => ds.map(d => d.id)")
        assert ids == [f"n{i << l}+{1 << l}" for l, i in view]
        assert PLANTED in tab.text_content("#view")
        assert tab.evaluate("window.__ran") is None
        assert tab.eval_on_selector_all("main img, main b", "es => es.length") == 0
        assert shown.errors == []
    finally:
        shown.close()


def memory_texts(first_screen: bytes) -> str:
    """The texts of the first screen's JSON, decoded as a browser's JSON.parse would."""
    import json

    start = first_screen.index(b'<script type="application/json" id="head">') + len(b'<script type="application/json" id="head">')
    end = first_screen.index(b"</script>", start)
    head = json.loads(first_screen[start:end])
    return "\n".join(line[2] or "" for line in head["view"])


def test_an_empty_chat_gives_a_page_that_says_so(browser, tmp_path):
    memory = Memory.open(tmp_path)
    try:
        data = page(memory.store, memory.planner)
    finally:
        memory.close()
    path = tmp_path / "memory.html"
    path.write_bytes(data)
    tab = browser.new_page()
    errors = []
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.goto(path.as_uri())
    tab.wait_for_function("() => document.getElementById('notice').textContent != ''")
    assert tab.text_content("#notice") == "The chat has no messages yet."
    assert tab.text_content("#status").startswith("0 messages · the view: 0 lines, 0 B")
    tab.fill("#search", "anything")
    tab.press("#search", "Enter")
    tab.wait_for_function("() => document.getElementById('searching').textContent.endsWith('found')")
    assert tab.text_content("#searching") == "0 found" and errors == []
    tab.close()


def test_a_chat_owned_by_another_process_is_browsed_from_a_copy_and_the_owner_goes_on(tmp_path):
    owner = Memory.open(tmp_path)
    try:
        for k in range(300):
            owner.append("user" if k % 2 == 0 else "ever", f"message {k} while the chat runs")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVER_"))}
        env["EVER_HOME"] = str(tmp_path)
        scratch = tmp_path / "scratch"
        scratch.mkdir()
        env["TMPDIR"] = str(scratch)  # where the copy is made, and must be gone after
        out = tmp_path / "page.html"
        done = subprocess.run([EVER, "browse", "--out", str(out)], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert b"300 messages" in out.read_bytes()
        record = owner.append("user", "and the owner goes on")  # it never gave the chat up
        assert record["i"] == 300
    finally:
        owner.close()
    assert list(scratch.iterdir()) == []


def test_browse_out_never_writes_through_a_link_or_into_another_users_file_and_an_error_names_it(tmp_path):
    write_chat(tmp_path, 4, text=chat_text)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVER_"))}
    env["EVER_HOME"] = str(tmp_path)
    victim = tmp_path / "victims-file"
    victim.write_text("theirs\n")
    link = tmp_path / "page-link.html"
    link.symlink_to(victim)
    theirs = tmp_path / "made-by-another.html"
    theirs.write_text("")
    cases = [(link, "is a symbolic link")]
    if os.geteuid() == 0:  # only root can make a file another user owns
        os.chown(theirs, 65534, 65534)
        os.chmod(theirs, 0o666)
        cases.append((theirs, "belongs to another user"))
    cases.append((tmp_path / "no-such-folder" / "page.html", "No such file or directory"))
    for target, why in cases:
        done = subprocess.run([EVER, "browse", "--out", str(target)], env=env, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 1 and done.stdout == "", (target, done.stderr)
        assert done.stderr.startswith(f"ever: {target}") and why in done.stderr, done.stderr
        assert done.stderr.count("\n") == 1
    assert victim.read_text() == "theirs\n" and link.is_symlink()
    assert theirs.read_text() == ""
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    mine = tmp_path / "mine.html"
    done = subprocess.run([EVER, "browse", "--out", str(mine)], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and mine.read_bytes().startswith(b"<!doctype html>")
    assert oct(mine.stat().st_mode & 0o777) == "0o600"


SOUGHT_WORD = "marmalade"
SOUGHT_AT = (120, 1_600, 3_100, 4_990)  # the messages that hold it: the first far above the newest line


@pytest.mark.slow  # a page of thousands of lines in Chromium, seconds each: make test-slow
def test_search_on_5000_messages_scrolls_to_each_hit_and_marks_it(browser, tmp_path):
    # every message is longer than a line, so no line of the tree repeats the word: the hits are
    # the messages alone, known from the chat's source
    write_chat(tmp_path, 5_000, text=lambda i, rng: (f"message {i} about {SOUGHT_WORD} " if i in SOUGHT_AT
                                                   else f"message {i} ") + "words " * 100)
    memory = Memory.open(tmp_path)
    try:
        data = page(memory.store, memory.planner)
    finally:
        memory.close()
    path = tmp_path / "memory.html"
    path.write_bytes(data)
    tab = browser.new_page(viewport={"width": 1200, "height": 900})
    errors = []
    tab.on("pageerror", lambda e: errors.append(str(e)))
    try:
        tab.goto(path.as_uri())
        tab.wait_for_selector("#view > details")
        opened_at = tab.evaluate("scrollY")
        assert opened_at > 5_000  # the page opens at its newest line, far below the first hit

        def on_screen(element_id: str) -> dict:
            return tab.evaluate(f"""(() => {{
                const box = document.getElementById({element_id!r}).getBoundingClientRect();
                const mark = document.querySelector('#{element_id} mark.hit');
                return {{top: box.top, bottom: box.bottom, height: innerHeight, y: scrollY,
                         sought: document.getElementById({element_id!r}).classList.contains('sought'),
                         mark: mark && mark.textContent, markTop: mark && mark.getBoundingClientRect().top,
                         header: document.querySelector('header').getBoundingClientRect().bottom}};
            }})()""")

        def says(text: str) -> None:
            from playwright.sync_api import TimeoutError as Waited

            try:
                tab.wait_for_function(f"() => document.getElementById('searching').textContent === {text!r}",
                                      timeout=120_000)  # a hang guard on a loaded machine
            except Waited:
                raise AssertionError(f"the search never said {text!r}: "
                                     f"{tab.text_content('#searching')!r}") from None

        tab.fill("#search", SOUGHT_WORD)
        tab.press("#search", "Enter")
        says("1 of 4 found")
        links = tab.eval_on_selector_all("#results a", "as => as.map(a => a.getAttribute('href'))")
        assert links == [f"#m{i}" for i in SOUGHT_AT]
        first = on_screen("m120")
        assert first["sought"] and first["mark"] == SOUGHT_WORD
        assert first["header"] <= first["markTop"] < first["height"]  # the word is in the window, not under the header
        assert first["y"] < opened_at - 5_000  # scrolled up to it
        assert tab.is_visible("#results a.current[href='#m120']")  # the list, in the header, says which
        steps = [("#next", "m1600", "2 of 4 found"), ("#next", "m3100", "3 of 4 found"),
                 ("#previous", "m1600", "2 of 4 found")]
        for button, element_id, said in steps:
            tab.click(button)
            says(said)
            shown = on_screen(element_id)
            assert shown["sought"] and shown["mark"] == SOUGHT_WORD, element_id
            assert shown["header"] <= shown["markTop"] < shown["height"], (element_id, shown)
            assert tab.eval_on_selector_all("mark.hit", "ms => ms.length") == 1  # only the current hit is marked
        tab.press("#search", "Shift+Enter")  # Enter again steps, Shift-Enter steps back
        says("1 of 4 found")
        assert on_screen("m120")["sought"]
        tab.press("#search", "Shift+Enter")  # from the first, back to the last
        says("4 of 4 found")
        last = on_screen("m4990")
        assert last["header"] <= last["markTop"] < last["height"]
        assert errors == []
    finally:
        tab.close()
