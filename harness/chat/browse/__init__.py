"""`ever browse`'s page: the whole memory as one self-contained HTML page (page.py), its style,
markup and script as files beside it (page.css, page.html, page.js), shipped as package data.
"""
