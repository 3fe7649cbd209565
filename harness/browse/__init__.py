"""`ever browse`: the whole memory as one self-contained HTML page [B1]–[B4].

    browsing    `ever browse`: the page written to a file or served on 127.0.0.1, a running chat copied
    page        builds the page from the store and the planner [B1] [B2]

Its style, markup and script are files beside it (page.css, page.html, page.js), shipped as
package data and read with importlib.resources.

May import: the standard library, harness.memory, harness.browse and harness.chat.config (the
settings, read where they enter). Never the SDK, harness.calls, harness.owner or harness.bench;
only harness.chat imports it.
"""
