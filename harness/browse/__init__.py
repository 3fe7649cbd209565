"""`ever browse`'s page: the whole memory as one self-contained HTML page.

    page        builds the page from the store and the planner [B1] [B2]

Its style, markup and script are files beside it (page.css, page.html, page.js), shipped as
package data and read with importlib.resources.
"""
