"""The documentation site in headless Chromium: home, search, a guide, a reference page, a notebook, no broken link.

The site is built as `./dev check` builds it (`mkdocs build --strict`) into a temporary folder (the one
`./dev check` built moments before, named by NT_DOCS_SITE, when it has one) and served by the standard library's `http.server` on 127.0.0.1, as any static host would serve it. Then every
internal link of every page (anchors, images, scripts and stylesheets included) is followed.
"""

import functools
import http.server
import os
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

import pytest

from tests.support.lab import CHROMIUM_ARGS, PATIENT, chromium_path

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    given = os.environ.get("NT_DOCS_SITE")
    if given and (Path(given) / "index.html").is_file():
        folder = Path(given)  # ./dev check's own strict build of this tree, minutes old
    else:
        folder = tmp_path_factory.mktemp("site")
        built = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert built.returncode == 0, built.stderr[-4000:]
    # served from a thread of this process on a socket bound here: no other process can take the port
    # between choosing and binding it (a test run beside this one)
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(30)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # every request of the link check would be logged
        pass


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, site):
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(PATIENT)
    failed: list[str] = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.on("response", lambda reply: reply.status >= 400 and failed.append(f"{reply.status} {reply.url}"))
    yield page
    context.close()
    assert failed == [], f"requests that failed: {failed}"


def test_home_page_and_search(page, site):
    page.goto(site)
    assert page.title().startswith("notebook_tools")
    page.locator("h1", has_text="notebook_tools").wait_for()
    assert page.locator('img[src$="screenshots/chat-light.png"]').first.evaluate("i => i.naturalWidth") > 0
    # Material's search: open the box, type, follow the first result
    box = page.locator("input.md-search__input")
    box.click()
    # a query typed while the search worker still loads its index is dropped: wait until it is ready
    page.locator(".md-search-result__meta", has_text="Type to start searching").wait_for()
    box.press_sequentially("PostgreSQL")
    result = page.locator(".md-search-result__item a").first
    result.wait_for()
    assert "PostgreSQL" in page.locator(".md-search-result").inner_text()
    result.click()
    page.wait_for_load_state()
    assert "PostgreSQL" in page.locator("article").inner_text()


def test_a_guide(page, site):
    page.goto(site + "guides/plugins/")
    page.locator("h1", has_text="Plugins and skills").wait_for()
    code = page.locator("article pre code").first.inner_text()
    assert "def drop_nulls(column: str) -> str:" in code
    # the navigation leads on to the other guides
    assert page.locator("nav a", has_text="MCP servers").count() >= 1


def test_a_reference_page(page, site):
    page.goto(site + "reference/tools/")
    entry = page.locator('[id="notebook_tools.tools.Plugin"]')
    entry.wait_for()
    assert "Plugin" in entry.inner_text()
    assert page.locator('[id="notebook_tools.tools.tool"]').count() == 1
    # the reference index links each nt. name to its entry
    page.goto(site + "reference/")
    page.locator("a", has_text="notebook_tools.agent").first.click()
    page.wait_for_load_state()
    assert "/reference/agent/" in page.url


def test_a_rendered_notebook(page, site):
    page.goto(site + "examples/05_low_level_loop/")
    article = page.locator("article")
    article.wait_for()
    text = article.inner_text()
    assert "import notebook_tools as nt" in text  # the source cells
    assert "awaiting_frontend_tools" in text  # and the outputs it was saved with


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for key in ("href", "src"):
            if attrs.get(key) and tag in ("a", "link", "img", "script", "source", "iframe"):
                self.links.append(attrs[key])


def test_no_broken_link_across_the_site(site):
    pages: dict[str, _Links] = {}
    checked: set[str] = set()
    wanted: list[tuple[str, str]] = []  # (page, link) whose fragment must exist
    queue = [site]
    broken: list[str] = []
    while queue:
        url = queue.pop()
        if url in checked:
            continue
        checked.add(url)
        try:
            with urllib.request.urlopen(url, timeout=30) as reply:
                kind = reply.headers.get_content_type()
                body = reply.read()
        except urllib.error.URLError as error:
            broken.append(f"{url}: {error}")
            continue
        if kind != "text/html":
            continue
        parsed = _Links()
        parsed.feed(body.decode("utf-8"))
        pages[url] = parsed
        for link in parsed.links:
            target = urljoin(url, link)
            if urlparse(target).netloc != urlparse(site).netloc:
                continue  # outside the site: not ours to check here
            plain, fragment = urldefrag(target)
            if fragment:
                wanted.append((url, target))
            queue.append(plain)
    for source, target in wanted:
        plain, fragment = urldefrag(target)
        if plain in pages and fragment not in pages[plain].ids:
            broken.append(f"{source} links to {target}: no such anchor")
    assert len(pages) >= 40
    assert broken == []


def test_every_public_name_has_a_reference_entry(site):
    import importlib

    import notebook_tools as nt

    def html(path):
        with urllib.request.urlopen(site + path, timeout=30) as reply:
            return reply.read().decode("utf-8")

    missing = []
    for package in sorted(
        p.name for p in (ROOT / "notebook_tools").iterdir() if (p / "__init__.py").exists()
    ):
        if package == "static":
            continue
        names = importlib.import_module(f"notebook_tools.{package}").__all__
        page = html(f"reference/{package}/")
        missing += [f"{package}.{n}" for n in names if f'id="notebook_tools.{package}.{n}"' not in page]
    index = html("reference/")
    missing += [n for n in nt.__all__ if f'notebook_tools.{n}"' not in index and f'.{n}"' not in index]
    assert missing == []
